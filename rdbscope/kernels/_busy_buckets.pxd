# C types for _busy_buckets.py (pure Python mode).

import cython
from libc.string cimport memcpy

cdef unsigned long long VALUE_MIX, GROUP_MIX
cdef int COUNT_CAP

@cython.locals(number=int, value="unsigned long long", group="unsigned long long")
cdef inline unsigned long long bucket_of(const unsigned char[::1] raw, Py_ssize_t at, const long long[::1] group_map,
                                         unsigned long long mask) noexcept nogil

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, b=Py_ssize_t)
cpdef count_buckets(const unsigned char[::1] raw, Py_ssize_t size, const long long[::1] group_map,
                    unsigned long long mask, unsigned short[::1] counts)

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, k=Py_ssize_t)
cpdef Py_ssize_t busy_records(const unsigned char[::1] raw, Py_ssize_t size, const long long[::1] group_map,
                              unsigned long long mask, const unsigned short[::1] counts, int threshold,
                              long long[::1] out)
