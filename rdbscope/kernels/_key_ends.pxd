# C types for _key_ends.py (pure Python mode).

import cython

from libc.string cimport memcmp

@cython.locals(a_len=Py_ssize_t, b_len=Py_ssize_t, order=cython.int)
cdef inline Py_ssize_t compare_keys(const unsigned char[::1] data, Py_ssize_t a_start, Py_ssize_t a_end,
                                    Py_ssize_t b_start, Py_ssize_t b_end) noexcept nogil

@cython.locals(n=Py_ssize_t, r=Py_ssize_t, g=cython.int, low=cython.longlong, high=cython.longlong)
cpdef fill_key_ends(const int[::1] offsets, const unsigned char[::1] data, const int[::1] group,
                    long long[::1] lowest, long long[::1] highest)
