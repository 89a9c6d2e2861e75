# C types for _runs.py (pure Python mode).

import cython

cdef unsigned long long MAX_VALUE

@cython.locals(two=cython.bint, n=Py_ssize_t, n_groups=Py_ssize_t, g=Py_ssize_t, low=Py_ssize_t, high=Py_ssize_t,
               j=Py_ssize_t, alive=Py_ssize_t, i=Py_ssize_t, smallest=cython.ulonglong)
cpdef Py_ssize_t merge_runs(const unsigned long long[::1] value, const unsigned long long[::1] first,
                            const unsigned long long[::1] second, const long long[::1] run_start,
                            const long long[::1] run_end, const long long[::1] group_runs,
                            const long long[::1] run_of, long long[::1] heads, long long[::1] ends,
                            unsigned long long[::1] head_values, long long[::1] out_group,
                            unsigned long long[::1] out_value, unsigned long long[::1] out_first,
                            unsigned long long[::1] out_second)
