# C types for _forms.py (pure Python mode).

import cython

from rdbscope.compiled.words cimport load_le64

cdef extern from *:
    """
    #define RDBSCOPE_MASK64 0xFFFFFFFFFFFFFFFFULL
    """
    const unsigned long long MASK64 "RDBSCOPE_MASK64"

cdef unsigned long long SEED, MIX, LOW7, HIGH_BITS, ABOVE_9, FROM_0, ZEROS

cdef const unsigned char *start_of(const unsigned char[::1] buffer) noexcept nogil

cdef inline unsigned long long word_at(const unsigned char *masked, Py_ssize_t i) noexcept nogil

@cython.locals(h=cython.ulonglong, w=cython.ulonglong, i=Py_ssize_t)
cdef unsigned long long form_hash(const unsigned char *masked, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil

@cython.locals(low=cython.ulonglong, digits=cython.ulonglong, spread=cython.ulonglong)
cdef inline unsigned long long masked_word(unsigned long long w) noexcept nogil

@cython.locals(w=cython.ulonglong, shift=cython.int)
cdef inline unsigned long long tail_word(const unsigned char *data, Py_ssize_t i, Py_ssize_t hi) noexcept nogil

@cython.locals(h=cython.ulonglong, i=Py_ssize_t)
cdef unsigned long long masked_form_hash(const unsigned char *data, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil

@cython.locals(j=Py_ssize_t, w=cython.ulonglong, f=cython.ulonglong)
cdef inline bint is_form_of(const unsigned char *data, Py_ssize_t lo, const unsigned char *forms,
                            Py_ssize_t at, Py_ssize_t length) noexcept nogil

@cython.locals(n=Py_ssize_t, slots=Py_ssize_t, recent_mask=Py_ssize_t, n_forms=Py_ssize_t, r=Py_ssize_t,
               lo=Py_ssize_t, length=Py_ssize_t, slot=Py_ssize_t, f=cython.int, at=Py_ssize_t, j=Py_ssize_t,
               b=cython.uchar, keys="const unsigned char *", written="const unsigned char *")
cpdef number_forms(const int[::1] offsets, const unsigned char[::1] data, int[::1] table, int[::1] form_of_key,
                   int[::1] form_offsets, unsigned char[::1] forms, long long[::1] key_counts, long long[::1] state,
                   int[::1] recent)

@cython.locals(slots=Py_ssize_t, f=Py_ssize_t, slot=Py_ssize_t, written="const unsigned char *")
cpdef place_forms(const int[::1] form_offsets, const unsigned char[::1] forms, int[::1] table, Py_ssize_t n_forms)
