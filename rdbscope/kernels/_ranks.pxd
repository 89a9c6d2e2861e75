# C types for _ranks.py (pure Python mode).

import cython

from rdbscope.compiled.bits cimport bit_length

cdef unsigned long long MASK64, MIX1, MIX2

@cython.locals(n=Py_ssize_t, i=Py_ssize_t)
cpdef fill_ranks(unsigned long long first_row, unsigned long long salt, unsigned long long[::1] out)

@cython.locals(n=Py_ssize_t, found=Py_ssize_t, i=Py_ssize_t, x=cython.ulonglong, b=cython.int)
cpdef Py_ssize_t ranks_under(unsigned long long first_row, unsigned long long salt, int bits, long long[::1] counts,
                             long long[::1] rows, unsigned long long[::1] ranks)

@cython.locals(x=cython.ulonglong)
cdef inline unsigned long long _rank(unsigned long long row, unsigned long long salt) noexcept nogil
