# C types for _mapguard.py (pure Python mode).

import cython
from libc.string cimport memset
from libc.signal cimport SIGBUS, SIG_DFL, SIG_IGN, raise_
from posix.mman cimport mmap, MAP_FAILED, PROT_READ, PROT_WRITE, MAP_PRIVATE, MAP_ANONYMOUS, MAP_FIXED
from posix.signal cimport siginfo_t, SA_SIGINFO, SA_ONSTACK, sigemptyset
from posix.types cimport sigset_t

cdef extern from "<signal.h>" nogil:
    # Function pointers, so that a handler can be stored and the previous one called.
    ctypedef struct sigaction_t "struct sigaction":
        void (*sa_sigaction)(int, siginfo_t *, void *) noexcept nogil
        void (*sa_handler)(int) noexcept nogil
        sigset_t sa_mask
        int sa_flags
    int sigaction(int, const sigaction_t *, sigaction_t *)

cdef int SLOTS
cdef size_t slot_start[8]
cdef size_t slot_end[8]
cdef Py_ssize_t slot_cut[8]
cdef size_t page_size
cdef bint installed
cdef sigaction_t action
cdef sigaction_t previous

@cython.locals(addr=size_t, i=int, start=size_t, end=size_t, page=size_t)
cdef void on_sigbus(int sig, siginfo_t *info, void *context) noexcept nogil

cdef bint install() except -1

@cython.locals(view="const unsigned char[::1]", start=size_t, end=size_t, i=int)
cpdef int guard(object mapping) except -2

cpdef Py_ssize_t cut(int slot)

cpdef void release(int slot)
