# C types for _ranks.py (pure Python mode).

import cython

from rdbscope.compiled.bits cimport bit_length

cdef unsigned long long MASK64, MIX1, MIX2

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, x=cython.ulonglong)
cpdef fill_ranks(unsigned long long first_row, unsigned long long salt, unsigned long long[::1] out)

@cython.locals(n=Py_ssize_t, i=Py_ssize_t)
cpdef count_bit_lengths(const unsigned long long[::1] rank, long long[::1] counts)
