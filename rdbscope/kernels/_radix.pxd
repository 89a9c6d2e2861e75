# C types for _radix.py (pure Python mode).

import cython

cdef Py_ssize_t DIGIT_BITS, BUCKETS, PASSES

@cython.locals(i=Py_ssize_t, k=cython.ulonglong, digit=Py_ssize_t, at=cython.longlong)
cdef inline void scatter(const unsigned long long[::1] keys, const long long[::1] order,
                         unsigned long long[::1] to_keys, long long[::1] to_order, long long[::1] counts,
                         Py_ssize_t base, int shift, Py_ssize_t n, bint first) noexcept nogil

@cython.locals(n=Py_ssize_t, p=Py_ssize_t, passes=Py_ssize_t, top=cython.ulonglong, i=Py_ssize_t, b=Py_ssize_t,
               k=cython.ulonglong, held=cython.int, base=Py_ssize_t, shift=cython.int, total=cython.longlong,
               c=cython.longlong)
cpdef stable_order(const unsigned long long[::1] keys, long long[::1] order, unsigned long long[::1] keys_a,
                   unsigned long long[::1] keys_b, long long[::1] order_b, long long[::1] counts)
