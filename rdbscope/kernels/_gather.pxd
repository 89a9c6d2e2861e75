# C types for _gather.py (pure Python mode).

import cython

from libc.string cimport memcpy

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, r=Py_ssize_t, total=Py_ssize_t)
cpdef Py_ssize_t fill_offsets(const int[::1] offsets, const long long[::1] rows, int[::1] out_offsets)

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, r=Py_ssize_t, start=Py_ssize_t, length=Py_ssize_t)
cpdef copy_keys(const int[::1] offsets, const unsigned char[::1] data, const long long[::1] rows,
                const int[::1] out_offsets, unsigned char[::1] out_data)
