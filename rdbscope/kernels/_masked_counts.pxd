# C types for _masked_counts.py (pure Python mode).

import cython

from rdbscope.kernels.ints cimport id_t, code_t

@cython.locals(n=Py_ssize_t, i=Py_ssize_t)
cpdef count_where(const id_t[::1] ids, const unsigned char[::1] mask, long long[::1] counts)

@cython.locals(n=Py_ssize_t, i=Py_ssize_t)
cpdef count_of_codes(const id_t[::1] ids, const code_t[::1] codes, const unsigned char[::1] wanted,
                     long long[::1] counts)
