# C types for _key_hashes.py (pure Python mode).

import cython

cdef unsigned long long MASK64, FNV_OFFSET, FNV_PRIME, MIX1, MIX2

@cython.locals(n=Py_ssize_t, r=Py_ssize_t, i=Py_ssize_t, hi=Py_ssize_t, x=cython.ulonglong)
cpdef fill_key_hashes(const int[::1] offsets, const unsigned char[::1] data, unsigned long long[::1] out)
