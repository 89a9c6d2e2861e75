# C types for _key_hashes.py (pure Python mode).

import cython

from rdbscope.kernels._forms cimport form_hash

cdef unsigned long long MASK64, MIX1, MIX2

@cython.locals(x=cython.ulonglong)
cdef inline unsigned long long key_hash(const unsigned char[::1] data, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil

@cython.locals(n=Py_ssize_t, r=Py_ssize_t)
cpdef fill_key_hashes(const int[::1] offsets, const unsigned char[::1] data, unsigned long long[::1] out)

@cython.locals(n=Py_ssize_t, r=Py_ssize_t, found=Py_ssize_t, x=cython.ulonglong)
cpdef Py_ssize_t keys_under_cut(const int[::1] offsets, const unsigned char[::1] data, const int[::1] group,
                                const unsigned long long[::1] cut, long long[::1] rows,
                                unsigned long long[::1] hashes)
