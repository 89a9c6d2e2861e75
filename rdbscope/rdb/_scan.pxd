# C types for _scan.py ("pure Python mode"): the .py file is the only source of logic.
# setup.py compiles it with bounds checks off; the scanner checks every index itself.

import cython
from libc.string cimport memcpy
from posix.mman cimport madvise

from rdbscope.rdb._memory cimport MemoryModel

ctypedef unsigned long long u64
ctypedef long long i64

cdef object CRC_TABLES
cdef tuple COMPACT
cdef const u64[::1] CRC_VIEW
cdef object np

@cython.locals(t="const u64[::1]", i=Py_ssize_t, x=u64, k=int)
cdef u64 crc64_update(u64 crc, const unsigned char[::1] data, Py_ssize_t start, Py_ssize_t stop) noexcept nogil

@cython.locals(view="const unsigned char[::1]")
cpdef u64 crc64_chunk(u64 crc, object data, Py_ssize_t start, Py_ssize_t stop)

cdef Py_ssize_t RELEASE_EVERY, CHUNK

@cython.locals(view="const unsigned char[::1]", out="unsigned long long[::1]", flag="unsigned char[::1]",
               done="long long[::1]", n=Py_ssize_t, crc=u64, at=Py_ssize_t, k=Py_ssize_t)
cpdef object crc_marks(object data, object marks, object stop, object progress)

cdef int MADV_POPULATE_WRITE
cdef Py_ssize_t PAGE

@cython.locals(view="unsigned char[::1]", start=Py_ssize_t, stop=Py_ssize_t, first=size_t, last=size_t, refused=int)
cpdef object warm_pages(object regions)

cdef void copy_forward(unsigned char *dst, const unsigned char *src, Py_ssize_t n) noexcept nogil

cdef Py_ssize_t LZF_TOO_LONG, LZF_CUT, LZF_BEFORE_START, LZF_LITERAL_PAST_END
cdef u64 LZF_MAX_RATIO

@cython.locals(i=Py_ssize_t, o=Py_ssize_t, ctrl=int, run=Py_ssize_t, ref=Py_ssize_t, k=Py_ssize_t)
cdef Py_ssize_t lzf_expand(const unsigned char *ip, Py_ssize_t clen, unsigned char *op,
                           Py_ssize_t ulen) noexcept nogil

@cython.locals(i=Py_ssize_t, out=Py_ssize_t, ctrl=int, run=Py_ssize_t, distance=Py_ssize_t)
cdef Py_ssize_t lzf_measure(const unsigned char *ip, Py_ssize_t clen, Py_ssize_t ulen,
                            Py_ssize_t *at) noexcept nogil

@cython.locals(inverted=i64)
cdef i64 to_signed(u64 v, int nbytes)

@cython.locals(n=int)
cpdef int int_text_len(i64 v)

@cython.locals(v=u64)
cdef u64 u32_le(const unsigned char[::1] data, Py_ssize_t p) noexcept

@cython.locals(v=u64)
cdef u64 u32_be(const unsigned char[::1] data, Py_ssize_t p) noexcept

cpdef int writer_for_rdb_version(int version)

cpdef int embstr_limit_for(int redis_ver)

@cython.locals(i=Py_ssize_t, stop=Py_ssize_t, negative=bint, c=int, v=u64)
cdef bint is_int_text(const unsigned char[::1] data, Py_ssize_t start, Py_ssize_t n)


@cython.final
cdef class Scanner:
    cdef object src
    cdef readonly object buf
    cdef const unsigned char[::1] view
    cdef Py_ssize_t pos
    cdef Py_ssize_t end
    cdef i64 base
    cdef bint eof
    cdef bint verify_crc
    cdef object pool
    cdef readonly bint contiguous
    cdef readonly Py_ssize_t cap
    cdef readonly bint full
    cdef i64 db_keys
    cdef Py_ssize_t next_cap
    cdef Py_ssize_t key_limit
    cdef bint warm_linux
    cdef object dense
    cdef bint whole
    cdef Py_ssize_t released
    cdef object crc_worker
    cdef object warm_columns
    cdef object string_costs
    cdef object run_shapes
    cdef Py_ssize_t sc_klen
    cdef u64 sc_n
    cdef int sc_enc
    cdef bint sc_expire
    cdef u64 sc_est
    cdef u64 crc
    cdef Py_ssize_t crc_pos
    cdef bint relaxed_version
    cdef object scratch
    cdef unsigned char[::1] sview
    cdef const unsigned char[::1] blob
    cdef readonly int batch_rows
    cdef readonly int version
    cdef readonly bint valkey
    cdef readonly bint done
    cdef readonly i64 db
    cdef object context
    cdef int value_type
    cdef Py_ssize_t cur_kstart
    cdef Py_ssize_t cur_klen
    cdef readonly int writer_valkey_major
    cdef readonly int writer_redis_ver
    cdef int embstr_limit
    cdef i64 expire_ms
    cdef int lfu
    cdef i64 idle
    cdef i64 prefix_start
    cdef u64 r_n
    cdef u64 r_max
    cdef int r_enc
    cdef int r_type
    cdef u64 r_ttl_fields
    cdef u64 r_module_id
    cdef bint r_no_counts
    cdef u64 lv
    cdef u64 slen
    cdef bint sint
    cdef u64 e_len
    cdef bint e_isint
    cdef i64 e_int
    cdef u64 w_n
    cdef u64 w_max
    cdef u64 w_acc
    cdef u64 w_ttl
    cdef object memory_model_for
    cdef readonly MemoryModel mm
    cdef public bint estimating
    cdef u64 m_elems
    cdef u64 m_blob
    cdef u64 m_nodes
    cdef u64 m_lzf
    cdef readonly object aux
    cdef readonly object resizedb
    cdef readonly object slot_info
    cdef readonly object functions
    cdef readonly object module_aux
    cdef readonly object slot_imports
    cdef readonly int key_meta_entries
    cdef readonly object checksum
    cdef readonly bint checksum_verified
    cdef public object want_db
    cdef public object want_types
    cdef public object key_filter
    cdef readonly object a_db, a_koff, a_type, a_enc, a_expire, a_rdb_bytes, a_n, a_max
    cdef readonly object a_lfu, a_idle, a_offset, a_module, a_ttl_fields, a_est, a_est_fallback
    cdef readonly object a_v_expire, a_v_counts, a_v_lfu, a_v_idle, a_v_module, a_v_ttl_fields
    cdef readonly Py_ssize_t nulls_expire, nulls_counts, nulls_lfu, nulls_idle, nulls_module, nulls_ttl_fields
    cdef readonly Py_ssize_t nulls_est
    cdef readonly bint max_is_n
    cdef readonly object module_names
    cdef object module_ids
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

    cdef inline Py_ssize_t _key_reserve(self, Py_ssize_t n) except -1

    @cython.locals(cap=Py_ssize_t)
    cdef int _grow_keys(self, Py_ssize_t need) except -1

    @cython.locals(keep=Py_ssize_t, cap=Py_ssize_t, grow=Py_ssize_t, got=Py_ssize_t)
    cdef int _fill(self, Py_ssize_t need) except -1

    cdef inline int ensure(self, Py_ssize_t n) except -1

    @cython.locals(b=int)
    cdef inline int u8(self) except -1

    @cython.locals(v=u64, i=int)
    cdef inline u64 le(self, int nbytes) except? 0xFFFFFFFFFFFFFFFF

    cdef long long le_signed(self, int nbytes) except? 0x7FFFFFFFFFFFFFFF

    @cython.locals(avail=Py_ssize_t)
    cdef inline int skip(self, u64 n) except -1

    @cython.locals(b=int, kind=int, v=u64, i=int)
    cdef inline int read_len(self) except -1

    cdef inline u64 read_plain_len(self) except? 0xFFFFFFFFFFFFFFFF

    @cython.locals(n=u64)
    cdef inline u64 read_count(self) except? 0xFFFFFFFFFFFFFFFF

    @cython.locals(enc=u64, clen=u64, ulen=u64, n=u64)
    cdef int skip_string(self, bint check_int) except -1

    @cython.locals(start=Py_ssize_t, at=Py_ssize_t, n=u64, i=Py_ssize_t)
    cdef Py_ssize_t read_key(self) except -1

    @cython.locals(p=Py_ssize_t, end=Py_ssize_t, b=int, n=Py_ssize_t,
                   kat=Py_ssize_t, vlen=Py_ssize_t, sint=bint, at=Py_ssize_t)
    cdef bint read_string_record(self) except -1

    @cython.locals(clen=u64, ulen=u64, at=Py_ssize_t, n=Py_ssize_t, i=Py_ssize_t)
    cdef int read_key_encoded(self, u64 enc) except -1

    @cython.locals(enc=u64, clen=u64, ulen=u64, n=u64)
    cdef object read_bytes_object(self)

    cdef int check_lzf_claim(self, u64 clen, u64 ulen) except -1

    @cython.locals(stop=i64, out=u64, ctrl=int, run=u64, distance=u64, got=Py_ssize_t, at=Py_ssize_t)
    cdef int check_lzf(self, u64 clen, u64 ulen) except -1

    cdef int lzf_fail(self, Py_ssize_t code, u64 ulen) except -1

    @cython.locals(src="const unsigned char[::1]", out="unsigned char[::1]", ip=Py_ssize_t, in_end=Py_ssize_t,
                   op=Py_ssize_t, ctrl=int, run=Py_ssize_t, ref=Py_ssize_t, i=Py_ssize_t, got=Py_ssize_t)
    cdef int decompress_lzf(self, u64 clen, u64 ulen) except -1

    @cython.locals(clen=u64, ulen=u64, n=u64)
    cdef int walk_blob(self, int kind, int group) except -1

    @cython.locals(p=Py_ssize_t, run=Py_ssize_t, total=u64)
    cdef int decompress_blob(self, int kind, u64 clen, u64 ulen) except -1

    cdef int _walk(self, Py_ssize_t start, Py_ssize_t length, int kind,
                   int group) except -1

    @cython.locals(r=u64)
    cdef int _group_entry(self, u64 i, int group) except -1

    @cython.locals(per=int)
    cdef int _finish_group(self, u64 entries, int group) except -1

    @cython.locals(b=int, size=Py_ssize_t, v=u64, nbytes=int, i=int)
    cdef Py_ssize_t lp_entry(self, Py_ssize_t p, Py_ssize_t stop) except -1

    @cython.locals(b=int, kind=int, nbytes=int, v=u64, i=int)
    cdef Py_ssize_t zl_entry(self, Py_ssize_t p, Py_ssize_t stop) except -1

    @cython.locals(header=int, total=u64)
    cdef int packed_header(self, Py_ssize_t start, Py_ssize_t length,
                           bint listpack) except -1

    @cython.locals(count=int, stop=Py_ssize_t, p=Py_ssize_t, i=u64)
    cdef int walk_packed(self, Py_ssize_t start, Py_ssize_t length,
                         int group, bint listpack) except -1

    @cython.locals(width=u64, count=u64, v=u64, i=int, n=int, k=int, p=Py_ssize_t)
    cdef int walk_intset(self, Py_ssize_t start, Py_ssize_t length) except -1

    cdef int check_intset_header(self, u64 width, u64 count, u64 length) except -1

    @cython.locals(stop=Py_ssize_t, p=Py_ssize_t, n=u64, pair=u64, side=int, b=int, ln=u64, ln_free=int,
                   count=int)
    cdef int walk_zipmap(self, Py_ssize_t start, Py_ssize_t length) except -1

    @cython.locals(kind=int, n=u64, mx=u64, i=u64, b=int, group=int, rtype=int, renc=int)
    cdef int read_value(self, int rdbtype) except -1

    cdef int set_walked(self, int rtype, int renc) except -1

    @cython.locals(k=Py_ssize_t, khdr=int, size=u64)
    cdef inline int string_encoding(self, u64 n) except -1

    @cython.locals(n=u64, mx=u64, ttl=u64, i=u64, pair=u64, field=u64, field_ttl=bint)
    cdef int read_hash_pairs(self, int ttl_mode) except -1

    @cython.locals(nodes=u64, total=u64, mx=u64, packed=u64, i=u64, container=u64)
    cdef int read_quicklist(self, bint v2) except -1

    @cython.locals(nodes=u64, mx=u64, i=u64, clen=u64, ulen=u64, n=u64, length=u64, groups=u64,
                   g=u64, pel=u64, j=u64, consumers=u64, c=u64, cpel=u64, producers=u64, p=u64, iids=u64,
                   name=u64)
    cdef int read_stream(self, int rdbtype) except -1

    cdef Py_ssize_t lp_int(self, Py_ssize_t p, Py_ssize_t stop) except -1

    @cython.locals(stop=Py_ssize_t, p=Py_ssize_t, count=i64, deleted=i64, nmf=i64, master=u64,
                   i=i64, live=i64, dead=i64, mx=u64, flags=i64, size=u64, nf=i64)
    cdef int walk_stream_listpack(self, Py_ssize_t start,
                                  Py_ssize_t length) except -1

    @cython.locals(op=u64)
    cdef int skip_module_value(self) except -1

    @cython.locals(n=u64, mx=u64, i=u64, tag=u64, ln=u64)
    cdef int read_array(self) except -1

    @cython.locals(classes=u64, i=u64)
    cdef int skip_key_meta(self) except -1

    @cython.locals(has_expire=bint, est=u64)
    cdef u64 string_cost(self) except? 0

    cdef int known_type(self, int t)

    cdef inline bint keep_row(self, Py_ssize_t kstart) except -1

    @cython.locals(start=i64, op=int, db=u64, kstart=Py_ssize_t, r=Py_ssize_t, byte=Py_ssize_t, bit=int, est=u64,
                   first=Py_ssize_t, stop=Py_ssize_t)
    cpdef Py_ssize_t scan_batch(self) except -1
