# C types for _forms.py (pure Python mode).

import cython

from rdbscope.compiled.words cimport load_le64

cdef extern from *:
    """
    #define RDBSCOPE_MASK64 0xFFFFFFFFFFFFFFFFULL
    """
    const unsigned long long MASK64 "RDBSCOPE_MASK64"

# Whether a key of at least 16 bytes with its digits as 0 is a form, sixteen bytes a step (SSE2 where there
# is; is_form_of's words otherwise): what is_form_of in _forms.py answers.
cdef extern from *:
    """
    #include <stddef.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    static inline int rdbscope_same16(const unsigned char *key, const unsigned char *form) {
        __m128i w = _mm_loadu_si128((const __m128i *)key);
        __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(w, _mm_set1_epi8(0x2F)), _mm_cmplt_epi8(w, _mm_set1_epi8(0x3A)));
        __m128i masked = _mm_or_si128(_mm_andnot_si128(digit, w), _mm_and_si128(digit, _mm_set1_epi8(0x30)));
        return _mm_movemask_epi8(_mm_cmpeq_epi8(masked, _mm_loadu_si128((const __m128i *)form))) == 0xFFFF;
    }
    #else
    static inline int rdbscope_same16(const unsigned char *key, const unsigned char *form) {
        for (int i = 0; i < 16; i++)
            if ((key[i] >= 0x30 && key[i] <= 0x39 ? 0x30 : key[i]) != form[i]) return 0;
        return 1;
    }
    #endif
    static inline int rdbscope_is_form_wide(const unsigned char *key, const unsigned char *form, ptrdiff_t length) {
        ptrdiff_t j = 0;
        for (; j + 16 <= length; j += 16)
            if (!rdbscope_same16(key + j, form + j)) return 0;
        return j == length || rdbscope_same16(key + length - 16, form + length - 16);
    }
    """
    bint is_form_wide "rdbscope_is_form_wide" (const unsigned char *key, const unsigned char *form,
                                               Py_ssize_t length) noexcept nogil

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
