# C types for _key_hashes.py (pure Python mode).

import cython

from rdbscope.kernels._forms cimport MASK64, form_hash, start_of

cdef unsigned long long MIX1, MIX2

cdef inline unsigned long long finished(unsigned long long x) noexcept nogil

@cython.locals(n=Py_ssize_t, r=Py_ssize_t, keys="const unsigned char *")
cpdef fill_key_hashes(const int[::1] offsets, const unsigned char[::1] data, unsigned long long[::1] out)

@cython.locals(n=Py_ssize_t, r=Py_ssize_t, found=Py_ssize_t, x=cython.ulonglong, keys="const unsigned char *")
cpdef Py_ssize_t keys_under_cut(const int[::1] offsets, const unsigned char[::1] data, const int[::1] group,
                                const unsigned long long[::1] cut, long long[::1] rows,
                                unsigned long long[::1] hashes)
