# C types for _columns.py ("pure Python mode"): the scanner's base class, whose typed
# buffers the compiled scan loop writes directly.

import cython

ctypedef unsigned long long u64
ctypedef long long i64

cdef object np


cdef class Columns:
    cdef readonly bint contiguous
    cdef readonly Py_ssize_t cap
    cdef readonly bint full
    cdef object dense
    cdef public bint estimating
    cdef public bint reading_past
    cdef bint reusable
    cdef readonly object a_db, a_koff, a_type, a_enc, a_expire, a_rdb_bytes, a_n, a_max
    cdef readonly object a_lfu, a_idle, a_offset, a_module, a_ttl_fields, a_est, a_est_fallback
    cdef readonly object a_v_expire, a_v_counts, a_v_lfu, a_v_idle, a_v_module, a_v_ttl_fields
    cdef readonly Py_ssize_t nulls_expire, nulls_counts, nulls_lfu, nulls_idle, nulls_module, nulls_ttl_fields
    cdef readonly Py_ssize_t nulls_est
    cdef readonly bint max_is_n
    cdef int[::1] c_db
    cdef int[::1] c_koff
    cdef signed char[::1] c_type
    cdef signed char[::1] c_enc
    cdef i64[::1] c_expire
    cdef u64[::1] c_rdb_bytes
    cdef u64[::1] c_n
    cdef u64[::1] c_max
    cdef unsigned char[::1] c_lfu
    cdef u64[::1] c_idle
    cdef u64[::1] c_offset
    cdef int[::1] c_module
    cdef u64[::1] c_ttl_fields
    cdef u64[::1] c_est
    cdef unsigned char[::1] c_est_fallback
    cdef unsigned char[::1] c_v_expire
    cdef unsigned char[::1] c_v_counts
    cdef unsigned char[::1] c_v_lfu
    cdef unsigned char[::1] c_v_idle
    cdef unsigned char[::1] c_v_module
    cdef unsigned char[::1] c_v_ttl_fields
    cdef Py_ssize_t kcap
    cdef readonly object keydata
    cdef unsigned char[::1] kview
    cdef readonly Py_ssize_t klen
    cdef readonly int rows

    @cython.locals(cap=Py_ssize_t)
    cdef int _grow_keys(self, Py_ssize_t need) except -1
