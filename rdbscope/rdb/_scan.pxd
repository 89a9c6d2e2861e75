# C types for _scan.py ("pure Python mode"): the .py file is the only source of logic.
# setup.py compiles it with bounds checks off; the scanner checks every index itself.

import cython
from libc.string cimport memcpy

from rdbscope.rdb._columns cimport Columns
from rdbscope.rdb._crc64 cimport crc64_update
from rdbscope.compiled.words cimport load_le64
from rdbscope.rdb._lzf cimport (
    LZF_BEFORE_START,
    LZF_CUT,
    LZF_LITERAL_PAST_END,
    LZF_MAX_RATIO,
    LZF_SLACK,
    LZF_TOO_LONG,
    lzf_expand,
    lzf_measure,
)
from rdbscope.rdb._memory cimport MemoryModel
from rdbscope.rdb._pages cimport RELEASE_EVERY

ctypedef unsigned long long u64
ctypedef long long i64

cdef object np
cdef Py_ssize_t CHUNK

@cython.locals(inverted=i64)
cdef i64 to_signed(u64 v, int nbytes) noexcept nogil

@cython.locals(n=int, u=u64, t=u64)
cpdef int int_text_len(i64 v) noexcept nogil

@cython.locals(v=u64, i=int)
cdef inline u64 le_at(const unsigned char[::1] data, Py_ssize_t p, int nbytes) noexcept nogil

@cython.locals(v=u64)
cdef u64 u32_le(const unsigned char[::1] data, Py_ssize_t p) noexcept

@cython.locals(v=u64)
cdef u64 u32_be(const unsigned char[::1] data, Py_ssize_t p) noexcept

cpdef int writer_for_rdb_version(int version)

cpdef int newest_writer_for_rdb_version(int version)

cpdef int embstr_limit_for(int redis_ver)

@cython.locals(i=Py_ssize_t, stop=Py_ssize_t, negative=bint, c=int, v=u64)
cdef bint is_int_text(const unsigned char[::1] data, Py_ssize_t start, Py_ssize_t n) noexcept nogil


@cython.final
cdef int ID_BYTES, NO_NODE, BRANCHING, COMPRESSED


cpdef u64 rax_node_bytes(u64 size, u64 children) noexcept


@cython.final
cdef class RaxNodes:
    cdef list kind
    cdef list run_end
    cdef list children
    cdef bytearray last
    cdef readonly u64 nodes
    cdef readonly u64 keys
    cdef MemoryModel mm
    cdef readonly u64 done

    @cython.locals(total=u64, j=int)
    cpdef u64 path_bytes(self, int start)
    cpdef u64 alloc_bytes(self)
    @cython.locals(common=int, d=int, end=int, j=int)
    cpdef add(self, const unsigned char[::1] data, Py_ssize_t p)


cdef class Scanner(Columns):
    cdef object src
    cdef readonly object buf
    cdef const unsigned char[::1] view
    cdef Py_ssize_t pos
    cdef Py_ssize_t end
    cdef i64 base
    cdef bint eof
    cdef bint verify_crc
    cdef object pool
    cdef i64 db_keys
    cdef Py_ssize_t next_cap
    cdef Py_ssize_t key_limit
    cdef bint warm_linux
    cdef bint whole
    cdef Py_ssize_t released
    cdef object crc_worker
    cdef object warm_columns
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
    cdef readonly int writer_valkey_ver
    cdef readonly bint writer_unstable
    cdef public int named_version
    cdef readonly bint writer_named
    cdef readonly int writer_redis_ver
    cdef int embstr_limit
    cdef i64 expire_ms
    cdef bint has_expire
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
    cdef readonly object module_names
    cdef object module_ids

    cdef inline Py_ssize_t _key_reserve(self, Py_ssize_t n) except -1 nogil

    @cython.locals(keep=Py_ssize_t, cap=Py_ssize_t, grow=Py_ssize_t, got=Py_ssize_t)
    cdef int _fill(self, Py_ssize_t need) except -1

    cdef inline int ensure(self, Py_ssize_t n) except -1

    @cython.locals(b=int)
    cdef inline int u8(self) except -1

    @cython.locals(v=u64)
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
                   kat=Py_ssize_t, vlen=Py_ssize_t, sint=bint, at=Py_ssize_t, width=int)
    cdef bint read_string_record(self) except -1 nogil

    @cython.locals(p=Py_ssize_t)
    cdef bint skip_string_record(self) noexcept

    @cython.locals(b=int)
    cdef inline Py_ssize_t string_end(self, Py_ssize_t p) noexcept

    @cython.locals(clen=u64, ulen=u64, at=Py_ssize_t, n=Py_ssize_t, i=Py_ssize_t)
    cdef int read_key_encoded(self, u64 enc) except -1

    @cython.locals(enc=u64, clen=u64, ulen=u64, n=u64)
    cdef object read_bytes_object(self)

    cdef int check_lzf_claim(self, u64 clen, u64 ulen) except -1

    @cython.locals(stop=i64, out=u64, ctrl=int, run=u64, distance=u64, got=Py_ssize_t, at=Py_ssize_t)
    cdef int check_lzf(self, u64 clen, u64 ulen) except -1

    cdef int lzf_fail(self, Py_ssize_t code, u64 ulen) except -1

    @cython.locals(got=Py_ssize_t)
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
    cdef inline int string_encoding(self, u64 n) noexcept nogil

    @cython.locals(n=u64, mx=u64, ttl=u64, i=u64, pair=u64, field=u64, field_ttl=bint)
    cdef int read_hash_pairs(self, int ttl_mode) except -1

    @cython.locals(nodes=u64, total=u64, mx=u64, packed=u64, i=u64, container=u64)
    cdef int read_quicklist(self, bint v2) except -1

    @cython.locals(nodes=u64, mx=u64, i=u64, clen=u64, ulen=u64, n=u64, length=u64, groups=u64,
                   g=u64, pel=u64, j=u64, consumers=u64, c=u64, cpel=u64, producers=u64, p=u64, iids=u64,
                   name=u64, shared=u64, nacked=u64, indexed=set, counting=bint, index=RaxNodes,
                   pel_tree=RaxNodes, group_tree=RaxNodes, pids=list)
    cdef int read_stream(self, int rdbtype) except -1

    cdef Py_ssize_t lp_int(self, Py_ssize_t p, Py_ssize_t stop) except -1

    @cython.locals(stop=Py_ssize_t, p=Py_ssize_t, count=i64, deleted=i64, nmf=i64, master=u64,
                   i=i64, live=i64, dead=i64, mx=u64, flags=i64, size=u64, nf=i64)
    cdef int walk_stream_listpack(self, Py_ssize_t start,
                                  Py_ssize_t length) except -1

    @cython.locals(op=u64)
    cdef int skip_module_value(self) except -1

    @cython.locals(n=u64, mx=u64, i=u64, tag=u64, ln=u64, v=i64, elems=u64, index=u64, slice_id=u64,
                   offset=u64, cur=u64, in_slice=u64, first=u64, tenth=u64, last=u64, blocks=u64)
    cdef int read_array(self) except -1

    @cython.locals(classes=u64, i=u64)
    cdef int skip_key_meta(self) except -1

    @cython.locals(has_expire=bint, est=u64)
    cdef u64 string_cost(self) noexcept nogil

    cdef int known_type(self, int t)

    cdef inline bint keep_row(self, Py_ssize_t kstart) except -1

    @cython.locals(start=i64, op=int, db=u64, kstart=Py_ssize_t, r=Py_ssize_t, byte=Py_ssize_t, bit=int, est=u64,
                   first=Py_ssize_t, stop=Py_ssize_t, past=bint, simple=bint, unfiltered=bint, plain=bint,
                   run=Py_ssize_t)
    cpdef Py_ssize_t scan_batch(self) except -1

    @cython.locals(r=Py_ssize_t, byte=Py_ssize_t, bit=int, i=Py_ssize_t)
    cdef int store_row(self, i64 start, u64 est, int module) noexcept nogil

    @cython.locals(first=Py_ssize_t, p=Py_ssize_t, op=int)
    cdef Py_ssize_t scan_strings(self, Py_ssize_t stop) noexcept nogil
