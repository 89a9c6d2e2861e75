# C types for _slot_counts.py (pure Python mode).

import cython

from rdbscope.compiled.bits cimport bit_length
from rdbscope.kernels.ints cimport code_t

ctypedef fused group_t:
    int
    long long

ctypedef fused value_t:
    unsigned long long
    long long

@cython.locals(n=Py_ssize_t, i=Py_ssize_t)
cpdef count_into(const code_t[::1] slot, const unsigned long long[::1] weight, long long[::1] count,
                 unsigned long long[::1] total)

@cython.locals(n=Py_ssize_t, s=Py_ssize_t)
cpdef Py_ssize_t take_counted(long long[::1] count, unsigned long long[::1] total, Py_ssize_t stop,
                              long long[::1] slot_out, long long[::1] count_out,
                              unsigned long long[::1] total_out)

@cython.locals(weighted=cython.bint, n=Py_ssize_t, i=Py_ssize_t, s=cython.longlong)
cpdef count_pairs_into(const code_t[::1] group, const value_t[::1] value, const unsigned long long[::1] weight,
                       unsigned long long low, long long width, long long[::1] count,
                       unsigned long long[::1] total)

@cython.locals(two=cython.bint, n=Py_ssize_t, s=Py_ssize_t, g=Py_ssize_t, v=Py_ssize_t)
cpdef Py_ssize_t take_pairs(long long[::1] count, unsigned long long[::1] total, unsigned long long[::1] second,
                            Py_ssize_t n_groups, Py_ssize_t width, long long[::1] group_out,
                            long long[::1] value_out, long long[::1] count_out,
                            unsigned long long[::1] total_out, unsigned long long[::1] second_out)

@cython.locals(two=cython.bint, n=Py_ssize_t, i=Py_ssize_t, s=cython.longlong)
cpdef add_pairs_into(const long long[::1] group, const long long[::1] new_group, const value_t[::1] value,
                     const unsigned long long[::1] first, const unsigned long long[::1] second,
                     unsigned long long low, long long width, long long[::1] count,
                     unsigned long long[::1] total, unsigned long long[::1] second_total)

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, s=cython.longlong, v=cython.ulonglong, shift=cython.int)
cpdef count_rounded_into(const group_t[::1] group, const unsigned long long[::1] value,
                         const unsigned long long[::1] weight, const long long[::1] base, int precision,
                         long long[::1] count, unsigned long long[::1] total)
