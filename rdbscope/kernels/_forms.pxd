# C types for _forms.py (pure Python mode).

import cython

from rdbscope.compiled.words cimport load_le64

cdef unsigned long long MASK64, SEED, MIX

@cython.locals(i=Py_ssize_t, b=cython.uchar)
cpdef mask_digits_into(const unsigned char[::1] data, Py_ssize_t start, Py_ssize_t stop, unsigned char[::1] out)

cdef inline unsigned long long word_at(const unsigned char[::1] masked, Py_ssize_t i) noexcept nogil

@cython.locals(h=cython.ulonglong, w=cython.ulonglong, i=Py_ssize_t, shift=cython.int)
cdef unsigned long long form_hash(const unsigned char[::1] masked, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil

@cython.locals(j=Py_ssize_t)
cdef bint same_bytes(const unsigned char[::1] masked, Py_ssize_t a, Py_ssize_t b, Py_ssize_t length) noexcept nogil

@cython.locals(n=Py_ssize_t, slots=Py_ssize_t, recent_mask=Py_ssize_t, n_forms=Py_ssize_t, r=Py_ssize_t,
               lo=Py_ssize_t, hi=Py_ssize_t, slot=Py_ssize_t, f=cython.int, k=Py_ssize_t, other=Py_ssize_t)
cpdef number_forms(const int[::1] offsets, const unsigned char[::1] masked, Py_ssize_t base, int[::1] table,
                   int[::1] form_of_key, int[::1] first_key, long long[::1] key_counts, long long[::1] state,
                   int[::1] recent)

@cython.locals(slots=Py_ssize_t, f=Py_ssize_t, k=Py_ssize_t, slot=Py_ssize_t)
cpdef place_forms(const int[::1] offsets, const unsigned char[::1] masked, Py_ssize_t base, int[::1] table,
                  const int[::1] first_key, Py_ssize_t n_forms)

@cython.locals(n=Py_ssize_t, r=Py_ssize_t)
cpdef fill_form_hashes(const int[::1] offsets, const unsigned char[::1] data, unsigned long long[::1] out)
