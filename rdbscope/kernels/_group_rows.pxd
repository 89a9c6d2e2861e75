# C types for _group_rows.py (pure Python mode).

import cython

from rdbscope.kernels.ints cimport id_t

@cython.locals(every=cython.bint, n=Py_ssize_t, r=Py_ssize_t, m=Py_ssize_t, most=Py_ssize_t, g=cython.longlong)
cpdef Py_ssize_t first_rows(const id_t[::1] groups, const unsigned char[::1] marked, long long k,
                            long long[::1] seen, long long[::1] out)

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, m=Py_ssize_t, most=Py_ssize_t, g=cython.longlong)
cpdef Py_ssize_t first_rows_of(const id_t[::1] groups, const long long[::1] rows, long long k,
                               long long[::1] seen, long long[::1] out)

@cython.locals(n=Py_ssize_t, r=Py_ssize_t, m=Py_ssize_t, g=cython.longlong)
cpdef Py_ssize_t largest_rows(const unsigned long long[::1] values, const id_t[::1] groups,
                              const unsigned long long[::1] threshold, long long k, long long[::1] tied,
                              long long[::1] out)
