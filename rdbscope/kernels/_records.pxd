# C types for _records.py (pure Python mode).

import cython
from libc.string cimport memcpy

cdef Py_ssize_t RECORD_BYTES
cdef object _PACKED

@cython.locals(p="long long")
cdef inline long long partition_of(long long value, long long parts) noexcept nogil

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, k=Py_ssize_t, parts=Py_ssize_t, p="long long", at=Py_ssize_t, g=int,
               v="long long", m="unsigned long long", q="unsigned long long")
cpdef pack_records(const int[::1] number, const long long[::1] group, const long long[::1] value,
                   const unsigned long long[::1] memory, const unsigned long long[::1] place, long long[::1] bounds,
                   long long[::1] cursor, unsigned char[::1] out)

@cython.locals(s="long long")
cdef inline long long second_of(long long value) noexcept nogil

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, s=Py_ssize_t)
cpdef count_seconds(const int[::1] number, const long long[::1] group, const long long[::1] value,
                    const unsigned long long[::1] memory, long long low, long long width,
                    unsigned long long[::1] counted)
