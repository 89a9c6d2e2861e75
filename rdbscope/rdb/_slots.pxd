# C types for _slots.py (pure Python mode).

import cython

cdef extern from *:
    """
    #include <string.h>
    static inline Py_ssize_t rdbscope_find_byte(const unsigned char *p, Py_ssize_t n, int byte) {
        const unsigned char *found = (const unsigned char *)memchr(p, byte, (size_t)n);
        return found ? found - p : n;
    }
    """
    Py_ssize_t find_byte_c "rdbscope_find_byte" (const unsigned char *p, Py_ssize_t n, int byte) noexcept nogil

cdef extern from "crc16_clmul.h":
    int clmul_level "rdbscope_crc16_clmul_level" () noexcept nogil
    void slots_clmul "rdbscope_slots_fast" (int level, const int *offsets, const unsigned char *data, size_t size,
                                            Py_ssize_t n, unsigned short *out, const unsigned long long *memory,
                                            long long *n_keys, double *total) noexcept nogil

cdef object CRC16_TABLES
cdef int CLMUL

cdef inline Py_ssize_t find_byte(const unsigned char[::1] data, Py_ssize_t lo, Py_ssize_t hi,
                                 int byte) noexcept nogil

@cython.locals(i=Py_ssize_t, j=Py_ssize_t, crc=cython.uint)
cdef inline Py_ssize_t key_slot(const unsigned short[::1] t, const unsigned char[::1] data, Py_ssize_t lo,
                                Py_ssize_t hi) noexcept nogil

@cython.locals(t="const unsigned short[::1]", n=Py_ssize_t, r=Py_ssize_t)
cpdef fill_slots(const int[::1] offsets, const unsigned char[::1] data, unsigned short[::1] out)

@cython.locals(t="const unsigned short[::1]", n=Py_ssize_t, r=Py_ssize_t, slot=Py_ssize_t)
cpdef count_slots(const int[::1] offsets, const unsigned char[::1] data, const unsigned long long[::1] memory,
                  unsigned short[::1] out, long long[::1] n_keys, double[::1] total)
