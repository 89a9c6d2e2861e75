# C types for _ranks.py (pure Python mode).

import cython

cdef extern from *:
    """
    static inline Py_ssize_t rdbscope_bit_length(unsigned long long x) {
        return x ? 64 - __builtin_clzll(x) : 0;
    }
    """
    Py_ssize_t bit_length_c "rdbscope_bit_length" (unsigned long long x) noexcept nogil

cdef unsigned long long MASK64, MIX1, MIX2

@cython.locals(b=Py_ssize_t, shift=Py_ssize_t)
cdef inline Py_ssize_t bit_length(unsigned long long x) noexcept nogil

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, x=cython.ulonglong)
cpdef fill_ranks(unsigned long long first_row, unsigned long long salt, unsigned long long[::1] out)

@cython.locals(n=Py_ssize_t, i=Py_ssize_t)
cpdef count_bit_lengths(const unsigned long long[::1] rank, long long[::1] counts)
