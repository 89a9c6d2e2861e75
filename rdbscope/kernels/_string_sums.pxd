# C types for _string_sums.py (pure Python mode).

import cython

from rdbscope.kernels.ints cimport id_t, code_t

@cython.locals(n=Py_ssize_t, r=Py_ssize_t, g=Py_ssize_t, length=cython.ulonglong)
cpdef sums_into(const id_t[::1] group, const code_t[::1] codes, const unsigned char[::1] wanted,
                const unsigned char[::1] eligible, const unsigned long long[::1] lengths, const int[::1] offsets,
                long long limit, long long[::1] keys, long long[::1] n_short,
                unsigned long long[::1] key_bytes, unsigned long long[::1] value_bytes)
