# C types for _lzf.py ("pure Python mode"); _scan.pxd cimports what the scanner calls.

import cython
from libc.string cimport memcpy

cdef Py_ssize_t LZF_TOO_LONG, LZF_CUT, LZF_BEFORE_START, LZF_LITERAL_PAST_END, LZF_SLACK
cdef unsigned long long LZF_MAX_RATIO

cdef void copy_forward(unsigned char *dst, const unsigned char *src, Py_ssize_t n) noexcept nogil

@cython.locals(i=Py_ssize_t, o=Py_ssize_t, ctrl=int, run=Py_ssize_t, ref=Py_ssize_t, k=Py_ssize_t)
cdef Py_ssize_t lzf_expand(const unsigned char *ip, Py_ssize_t clen, unsigned char *op,
                           Py_ssize_t ulen) noexcept nogil

@cython.locals(i=Py_ssize_t, out=Py_ssize_t, ctrl=int, run=Py_ssize_t, distance=Py_ssize_t)
cdef Py_ssize_t lzf_measure(const unsigned char *ip, Py_ssize_t clen, Py_ssize_t ulen,
                            Py_ssize_t *at) noexcept nogil

@cython.locals(n=Py_ssize_t, got=Py_ssize_t, view="unsigned char[::1]")
cpdef object lzf_decompress(const unsigned char[::1] data, Py_ssize_t ulen)
