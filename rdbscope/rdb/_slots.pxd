# C types for _slots.py (pure Python mode).

import cython

cdef object CRC16_TABLE
cdef object CRC16_PAIR_TABLE

@cython.locals(crc=cython.uint, i=Py_ssize_t)
cdef unsigned int crc16(const unsigned char[::1] data, Py_ssize_t start, Py_ssize_t stop,
                        const unsigned short[::1] table, const unsigned short[::1] pair) noexcept nogil

@cython.locals(table="const unsigned short[::1]", pair="const unsigned short[::1]", n=Py_ssize_t, r=Py_ssize_t, lo=Py_ssize_t, hi=Py_ssize_t,
               i=Py_ssize_t, j=Py_ssize_t)
cpdef fill_slots(const int[::1] offsets, const unsigned char[::1] data, unsigned short[::1] out)
