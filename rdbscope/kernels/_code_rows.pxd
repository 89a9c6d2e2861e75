# C types for _code_rows.py (pure Python mode).

import cython

from rdbscope.kernels.ints cimport code_t

@cython.locals(m=Py_ssize_t, r=Py_ssize_t, found=Py_ssize_t)
cpdef Py_ssize_t rows_over(const unsigned long long[::1] values, const code_t[::1] codes,
                           const unsigned long long[::1] limits, long long[::1] out)

@cython.locals(m=Py_ssize_t, r=Py_ssize_t, c=Py_ssize_t, v=cython.ulonglong)
cpdef top_rows(const unsigned long long[::1] values, const code_t[::1] codes, Py_ssize_t n,
               unsigned long long[::1] heap_values, long long[::1] heap_rows, long long[::1] sizes)

@cython.locals(m=Py_ssize_t, found=Py_ssize_t, r=Py_ssize_t, c=Py_ssize_t, v=cython.ulonglong, e=cython.ulonglong)
cpdef Py_ssize_t big_rows(const unsigned long long[::1] memory, const unsigned long long[::1] elements,
                          const code_t[::1] codes, const unsigned long long[::1] limits,
                          unsigned long long memory_limit, Py_ssize_t n, unsigned long long[::1] memory_heap,
                          long long[::1] memory_rows, long long[::1] memory_sizes,
                          unsigned long long[::1] element_heap, long long[::1] element_rows,
                          long long[::1] element_sizes, long long[::1] out)

@cython.locals(base=Py_ssize_t, size=Py_ssize_t, i=Py_ssize_t, parent=Py_ssize_t, child=Py_ssize_t)
cdef inline void _offer(unsigned long long[::1] heap_values, long long[::1] heap_rows, long long[::1] sizes,
                        Py_ssize_t c, Py_ssize_t n, unsigned long long v, Py_ssize_t r) noexcept nogil

cdef inline bint _first(unsigned long long value, long long row, unsigned long long other_value,
                        long long other_row) noexcept nogil
