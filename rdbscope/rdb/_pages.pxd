# C types for _pages.py ("pure Python mode"); _scan.pxd cimports what the scanner uses.

import cython
from posix.mman cimport madvise

cdef object np
cdef Py_ssize_t RELEASE_EVERY, PAGE
cdef int MADV_POPULATE_WRITE

@cython.locals(view="unsigned char[::1]", start=Py_ssize_t, stop=Py_ssize_t, first=size_t, last=size_t, refused=int)
cpdef object warm_pages(object regions)
