# C types for _crc64.py ("pure Python mode"); _scan.pxd cimports what the scanner calls.

import cython

from rdbscope.compiled.words cimport load_le64

ctypedef unsigned long long u64

cdef object CRC_TABLES
cdef const u64[::1] CRC_VIEW
cdef object np
cdef Py_ssize_t MARK_EVERY, LANE_BYTES, MIN_LANES

cdef extern from "crc64_clmul.h":
    int clmul_level "rdbscope_crc64_clmul_level" () noexcept nogil
    u64 crc64_clmul "rdbscope_crc64_fast" (int level, u64 crc, const unsigned char *p, size_t n,
                                           const u64 *table) noexcept nogil
    Py_ssize_t CLMUL_MIN "RDBSCOPE_CRC64_CLMUL_MIN"

cdef int CLMUL

cdef object STREAM_SHIFT
cdef const u64[::1] STREAM_SHIFT_VIEW
cdef Py_ssize_t STREAM_BYTES

@cython.locals(x=u64, k=int)
cdef inline u64 crc64_step(u64 crc, const unsigned char[::1] data, Py_ssize_t i, const u64[::1] t) noexcept nogil

cdef inline u64 crc64_shift(u64 crc, const u64[::1] s) noexcept nogil

@cython.locals(t="const u64[::1]", s="const u64[::1]", i=Py_ssize_t, j=Py_ssize_t, a=u64, b=u64, c=u64)
cdef u64 crc64_update(u64 crc, const unsigned char[::1] data, Py_ssize_t start, Py_ssize_t stop) noexcept nogil

@cython.locals(view="const unsigned char[::1]")
cpdef u64 crc64_chunk(u64 crc, object data, Py_ssize_t start, Py_ssize_t stop)

@cython.locals(view="const unsigned char[::1]", out="unsigned long long[::1]", flag="unsigned char[::1]",
               done="long long[::1]", n=Py_ssize_t, crc=u64, at=Py_ssize_t, k=Py_ssize_t)
cpdef object crc_marks(object data, object marks, object stop, object progress, Py_ssize_t until)
