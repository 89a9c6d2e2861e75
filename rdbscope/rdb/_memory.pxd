# C types for _memory.py (pure Python mode, compiled like _scan.py).

import cython

ctypedef unsigned long long u64

cdef object np

@cython.locals(k=u64, step=u64)
cpdef u64 jemalloc_usable(u64 n, u64 quantum) noexcept nogil

cpdef u64 glibc_usable(u64 n) noexcept nogil

@cython.locals(size=u64)
cpdef u64 next_power(u64 n) noexcept

cpdef int sds_header(u64 n) noexcept nogil

@cython.locals(buckets=u64, want=u64)
cpdef u64 valkey_buckets(u64 n) noexcept

@cython.locals(lam=double, term=double, below=double, k=int)
cpdef double expected_overflow_buckets(u64 n, u64 buckets) noexcept


@cython.final
cdef class MemoryModel:
    cdef readonly int layout
    cdef readonly int allocator
    cdef readonly int list_compress_depth
    cdef readonly bint valkey
    cdef readonly bint tracked
    cdef readonly bint embedded
    cdef readonly bint counts_rax_nodes
    cdef readonly double skiplist_node
    cdef object small_array
    cdef const u64[::1] small

    cpdef u64 usable(self, u64 n) noexcept nogil
    cpdef u64 alloc(self, u64 n) noexcept nogil
    cpdef u64 sds(self, u64 n) noexcept nogil
    cpdef u64 counted(self, u64 n) noexcept
    @cython.locals(mean=double, p=double, level=int)
    cpdef double expected_node(self, u64 base) noexcept
    cpdef u64 set_member(self, u64 n) noexcept
    cpdef u64 zset_member(self, u64 n) noexcept
    @cython.locals(ttl=u64, fhdr=u64, together=u64)
    cpdef u64 hash_pair(self, u64 field, u64 value, bint has_ttl) noexcept
    cpdef u64 rax_size(self, u64 keys, u64 nodes, u64 tree_bytes) noexcept
    cpdef u64 stream_listpack(self, u64 n) noexcept
    @cython.locals(group=u64)
    cpdef u64 stream_group(self, u64 pel, u64 shared, u64 nacked, u64 pel_nodes, u64 pel_bytes) noexcept
    cpdef u64 idmp_entry(self, u64 iid) noexcept
    cpdef u64 idmp_producers(self, list pids)
    @cython.locals(is_key=bint, value=u64, end=Py_ssize_t, chars=u64, size=u64, children=u64, below=u64,
                   start=Py_ssize_t, stop=Py_ssize_t)
    cpdef u64 rax_node_bytes(self, list keys, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t depth)
    @cython.locals(consumer=u64)
    cpdef u64 stream_consumer(self, u64 name, u64 pel, u64 pel_nodes, u64 pel_bytes) noexcept
    @cython.locals(struct=u64)
    cpdef u64 stream_size(self, u64 klen, bint has_expire, u64 listpack_bytes, u64 index_and_groups) noexcept
    cpdef u64 array_string(self, u64 n) noexcept
    @cython.locals(cap=u64, window=u64)
    cpdef u64 array_slice(self, u64 n, u64 first, u64 tenth, u64 last) noexcept
    @cython.locals(table=u64)
    cpdef u64 array_directory(self, u64 top_slice, u64 blocks) noexcept
    cpdef u64 key_entry(self, u64 klen) noexcept nogil
    @cython.locals(size=u64)
    cpdef u64 embedded_object(self, u64 klen, bint has_expire, u64 extra) noexcept nogil
    @cython.locals(entry=u64, obj=u64, size=u64)
    cpdef u64 string_size(self, u64 klen, bint has_expire, int enc, u64 slen) noexcept nogil
    cpdef u64 object_size(self, u64 klen, bint has_expire) noexcept
    cpdef u64 compact_size(self, u64 klen, bint has_expire, u64 blob_bytes) noexcept
    @cython.locals(buckets=u64, struct=u64, overflow=double)
    cpdef u64 table_size(self, u64 n) noexcept
    @cython.locals(buckets=u64, taken=double)
    cpdef u64 chained_set_entries(self, u64 n) noexcept
    @cython.locals(size=u64, old=u64)
    cpdef u64 rehashing_buckets(self, u64 n) noexcept
    @cython.locals(size=u64)
    cpdef u64 hashtable_size(self, u64 klen, bint has_expire, int rtype, u64 n, u64 elements) noexcept
    @cython.locals(node=u64)
    cpdef u64 quicklist_size(self, u64 klen, bint has_expire, u64 nodes, u64 node_bytes) noexcept
    @cython.locals(depth=int)
    cpdef u64 list_node_bytes(self, u64 i, u64 nodes, u64 blob_bytes, u64 lzf_bytes) noexcept
    @cython.locals(size=u64)
    cpdef u64 estimate(self, u64 klen, bint has_expire, int rtype, int enc, int rdbtype, u64 n,
                       u64 blob_bytes, u64 elements, u64 nodes, u64 ttl_fields) noexcept
