# C types for _ids.py (pure Python mode).

import cython

from rdbscope.kernels.ints cimport code_t

ctypedef fused id_t:
    int
    long long

@cython.locals(size=Py_ssize_t, mask=Py_ssize_t, i=Py_ssize_t)
cpdef count_into(const id_t[::1] ids, long long[::1] counts, Py_ssize_t n, Py_ssize_t lanes)

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, found=Py_ssize_t, g=Py_ssize_t)
cpdef ends_into(const id_t[::1] ids, const unsigned char[::1] wanted, long long[::1] first, long long[::1] last,
                Py_ssize_t n_wanted)

ctypedef fused value_t:
    int
    long long

@cython.locals(n=Py_ssize_t, i=Py_ssize_t)
cpdef take_into(const value_t[::1] values, const id_t[::1] ids, value_t[::1] out)

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, s=Py_ssize_t)
cpdef count_pairs(const code_t[::1] first, const code_t[::1] second, Py_ssize_t width, long long[::1] counts)

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, s=Py_ssize_t)
cpdef pair_codes(const code_t[::1] first, const code_t[::1] second, Py_ssize_t width, const short[::1] lookup,
                 short[::1] out)
