# C types for _slot_counts.py (pure Python mode).

import cython

@cython.locals(n=Py_ssize_t, i=Py_ssize_t)
cpdef count_into(const long long[::1] slot, const unsigned long long[::1] weight, long long[::1] count,
                 unsigned long long[::1] total)

@cython.locals(n=Py_ssize_t, s=Py_ssize_t)
cpdef Py_ssize_t take_counted(long long[::1] count, unsigned long long[::1] total, Py_ssize_t stop,
                              long long[::1] slot_out, long long[::1] count_out,
                              unsigned long long[::1] total_out)
