# C types for _group_sums.py (pure Python mode).

import cython

ctypedef fused group_t:
    int
    long long

ctypedef fused weight_t:
    unsigned long long
    long long

@cython.locals(n=Py_ssize_t, i=Py_ssize_t)
cpdef sum_into(const group_t[::1] group, const weight_t[::1] weight, unsigned long long[::1] total)
