"""The arithmetic of the memory model, called by the scanner once per key.

Compiled with ``_memory.pxd`` like the scanner. ``memory.py`` picks the layout
and allocator; the figures follow each server's ``MEMORY USAGE`` (src/object.c
objectComputeSize in Redis <= 8.2 and Valkey, kvobj and hashtable layouts in
Redis 8 and Valkey 8.1+) after the server has loaded the dump.
"""

try:
    import cython
except ImportError:  # Cython is only needed to build the extension
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython
import numpy as np

# Allocators: what zmalloc_size() returns for a request of n bytes.
A_JEMALLOC = cython.declare(cython.int, 0)  # Redis's bundled jemalloc: 8-byte quantum
A_JEMALLOC16 = cython.declare(cython.int, 1)  # distribution jemalloc (Debian, Ubuntu): 16-byte quantum
A_LIBC = cython.declare(cython.int, 2)  # glibc malloc (MALLOC=libc builds)

# Layouts of the server's data structures.
L_REDIS6 = cython.declare(cython.int, 0)  # Redis 4.0-6.2: dict of 96 bytes, ziplists, sizes not rounded
L_REDIS70 = cython.declare(cython.int, 1)  # Redis 7.0: listpacks, allocation sizes
L_REDIS72 = cython.declare(cython.int, 2)  # Redis 7.2-7.4 and Valkey 7.2: listpack sets, key-only set entries
L_REDIS8 = cython.declare(cython.int, 3)  # Redis 8: key and expiry embedded in the object (kvobj)
L_VALKEY8 = cython.declare(cython.int, 4)  # Valkey 8.1: embedded key, open-addressing hashtables
L_VALKEY9 = cython.declare(cython.int, 5)  # Valkey 9.1: as 8.x, strings embedded up to 128 bytes
# Redis 8.4: MEMORY USAGE adds up what each object counts of its own allocations
# (src/object.c kvobjAllocSize): listpacks, intsets, short sds strings and the object
# header as requested, the rest as allocated.
L_REDIS84 = cython.declare(cython.int, 6)
# Redis 8.6-8.8: as 8.4, but the object header as allocated (zmalloc_size, since the
# key metadata of 8.6).
L_REDIS86 = cython.declare(cython.int, 7)
# Redis unstable after 8.8 (June 2026): the object header as requested again.
L_REDIS_NEXT = cython.declare(cython.int, 8)
# Valkey 9.0: as 8.x, but a hash's hashtable carries a pointer to its volatile-field set.
L_VALKEY90 = cython.declare(cython.int, 9)
# Valkey 8.0: the dicts of Redis 7.2, but the main dict's entry holds the key
# (src/dict.c dictEntryEmbedded), and MEMORY USAGE counts that entry's allocation.
L_VALKEY80 = cython.declare(cython.int, 10)
EMBEDDED_DICT_ENTRY = cython.declare(cython.int, 17)  # value, next pointer, key header size

# Scanner type and encoding ids (the same values as _scan.py's T_* and E_*).
T_STRING = cython.declare(cython.int, 0)
T_LIST = cython.declare(cython.int, 1)
T_SET = cython.declare(cython.int, 2)
T_ZSET = cython.declare(cython.int, 3)
T_HASH = cython.declare(cython.int, 4)
T_STREAM = cython.declare(cython.int, 5)
T_ARRAY = cython.declare(cython.int, 7)
E_INT = cython.declare(cython.int, 0)
E_EMBSTR = cython.declare(cython.int, 1)
E_RAW = cython.declare(cython.int, 2)
E_QUICKLIST = cython.declare(cython.int, 5)
E_HASHTABLE = cython.declare(cython.int, 7)
E_SKIPLIST = cython.declare(cython.int, 9)
E_LISTPACKEX = cython.declare(cython.int, 11)

ROBJ = cython.declare(cython.int, 16)
STREAM_INDEX_KEY = cython.declare(cython.int, 58)  # a key of a stream's id-to-groups index (Redis 8.4+)
CONSUMER_PEL_KEY = cython.declare(cython.int, 52)  # a key of a consumer's PEL (Redis 8.6+, fitted)
SMALL = cython.declare(cython.int, 4096)
DICT_ENTRY = cython.declare(cython.int, 24)

# Redis 8.8 arrays (src/sparsearray.h), at the server's defaults: slices of 4096 indexes
# (array-slice-size), kept sparse up to 10 elements (array-sparse-kmax).
ARRAY_STRUCT = cython.declare(cython.int, 80)  # struct redisArray
ARRAY_SLICE_HEADER = cython.declare(cython.int, 32)  # struct arSlice, before its payload
ARRAY_SLICE_SIZE = cython.declare(cython.int, 4096)
ARRAY_SPARSE_MAX = cython.declare(cython.int, 10)
ARRAY_DENSE_MIN = cython.declare(cython.int, 8)  # the first window of a dense slice
ARRAY_BLOCK_SLICES = cython.declare(cython.int, 2048)  # slices a directory block points to
ARRAY_INLINE_MAX = cython.declare(cython.int, 7)  # longest string kept in the tagged word


def sds_header(n):
    """Header bytes of an sds string of length n (src/sds.h sdsReqType)."""
    if n < 32:
        return 1
    if n < 256:
        return 3
    if n < 65536:
        return 5
    return 9


def jemalloc_usable(n, quantum):
    """Usable size of a jemalloc allocation of n bytes: 4 size classes per doubling."""
    if n <= 8:
        return 8
    if n <= 64:
        return (n + quantum - 1) // quantum * quantum
    if n > cython.cast(cython.ulonglong, 1) << 62:  # no real allocation; keep the doubling below from overflowing
        return n
    k = 128
    while k < n:
        k <<= 1
    step = k >> 3
    return (n + step - 1) // step * step


def glibc_usable(n):
    """Usable size of a glibc malloc chunk for n bytes (16-byte aligned, 8-byte header)."""
    if n + 8 <= 32:
        return 24
    return ((n + 8 + 15) & ~15) - 8


def next_power(n):
    """Buckets of a dict sized for n entries (src/dict.c _dictNextExp, at least 4)."""
    size = 4
    while size < n:
        size <<= 1
    return size


def valkey_buckets(n):
    """64-byte buckets of a Valkey hashtable sized for n entries: 7 entries per
    bucket, filled to 91% at most (src/hashtable.c nextBucketExp)."""
    buckets = 1
    want = (n * 5 + 31) // 32
    while buckets < want:
        buckets <<= 1
    return buckets


def expected_overflow_buckets(n, buckets):
    """Expected child buckets of a Valkey hashtable of ``buckets`` buckets holding n entries.

    A bucket holds 7 entries; a full one gives its last slot to a pointer to a child
    bucket (src/hashtable.c), so a chain of k > 7 entries has ceil((k - 7) / 6)
    children. Where entries land depends on the hash seed, drawn anew by every
    server process, so the count per bucket is taken as binomial: a table of one
    bucket, or of few entries, never chains.
    """
    if buckets <= 1:
        return cython.cast(cython.double, (n - 2) // 6 if n > 7 else 0)
    q = 1.0 / buckets
    ratio = q / (1.0 - q)
    pk = (1.0 - q) ** cython.cast(cython.double, n)  # no entry in a bucket
    expected = 0.0
    k = 0
    top = n if n < 96 else 96  # at most 6.4 entries per bucket on average: the tail is nil
    while k < top:
        pk *= (cython.cast(cython.double, n) - k) / (k + 1) * ratio
        k += 1
        if k > 7:
            expected += pk * ((k - 2) // 6)
    return buckets * expected


class MemoryModel:
    """Allocator and layout of one server; every size is what that server reports."""

    def __init__(self, layout, allocator, list_compress_depth):
        self.layout = layout
        self.allocator = allocator
        self.list_compress_depth = list_compress_depth
        self.valkey = layout == L_VALKEY8 or layout == L_VALKEY90 or layout == L_VALKEY9
        self.tracked = layout == L_REDIS84 or layout == L_REDIS86 or layout == L_REDIS_NEXT
        self.embedded = layout == L_REDIS8 or self.tracked
        # Redis up to 8.2 counts a stream's radix trees by their nodes: the scanner counts them.
        self.counts_rax_nodes = not (self.valkey or self.tracked)
        # Most requests are small: look their sizes up instead of computing them.
        self.small_array = np.array([self.usable(n) for n in range(SMALL)], np.uint64)
        self.small = self.small_array
        self.skiplist_node = self.expected_node(24)

    def usable(self, n):
        if self.allocator == A_LIBC:
            return glibc_usable(n)
        return jemalloc_usable(n, 16 if self.allocator == A_JEMALLOC16 else 8)

    def alloc(self, n):
        """What zmalloc_size() reports for a request of n bytes."""
        if n < SMALL:
            return self.small[n]
        return self.usable(n)

    def sds(self, n):
        """Allocation of an sds string of n bytes."""
        if self.tracked and n < 32:
            return n + 2  # sdsAllocSize() of a type-5 sds: what was asked for
        return self.alloc(sds_header(n) + n + 1)

    def counted(self, n):
        """A compact blob (listpack, intset) of n bytes, as the server counts it."""
        if self.layout == L_REDIS6 or self.tracked:
            return n
        return self.alloc(n)

    def expected_node(self, base):
        """Mean allocation of a skiplist node of ``base`` bytes plus 16 per level;
        levels are drawn with p = 1/4 (src/t_zset.c zslRandomLevel), so the
        estimate is the same on every run."""
        mean = 0.0
        p = 0.75
        level = 1
        while level <= 12:
            mean += p * self.alloc(base + 16 * level)
            p *= 0.25
            level += 1
        return mean

    # ---------------------------------------------------------------- elements

    def set_member(self, n):
        """A set member (or linked-list element) of n bytes, as its own sds."""
        return self.sds(n)

    def zset_member(self, n):
        """A sorted-set member of n bytes: its skiplist node and its string.

        The node's size is an expectation over its random level: rounded to the
        nearest byte, so that a zset's members do not lose half a byte each.
        """
        if self.tracked and self.layout != L_REDIS84:
            # Redis 8.6+ keeps the member inside the node, after the levels.
            return cython.cast(cython.ulonglong, self.expected_node(16 + sds_header(n) + n + 1) + 0.5)
        if self.layout == L_VALKEY9:
            # One more byte: the offset of the embedded sds (src/t_zset.c zslCreateNode).
            return cython.cast(cython.ulonglong, self.expected_node(17 + sds_header(n) + n + 1) + 0.5)
        # A node of 24 bytes plus 16 per level, and the member as its own sds: so on
        # Redis 8.2 too (zsets of one member of every length from 1 to 69 bytes, reloaded).
        return cython.cast(cython.ulonglong, self.skiplist_node + 0.5) + self.sds(n)

    def hash_pair(self, field, value, has_ttl):
        """A hash field and its value in a hashtable-encoded hash."""
        if self.valkey:
            # One allocation holds the field and, when it all fits in 128 bytes,
            # the value (src/entry.c entryReqSize).
            ttl = 8 if has_ttl else 0
            fhdr = sds_header(field)
            if fhdr == 1 and has_ttl:
                fhdr = 3
            together = ttl + fhdr + field + 1 + 3 + value + 1
            if together <= 128:
                return self.alloc(together)
            return self.alloc(ttl + 8 + max(fhdr, 3) + field + 1) + self.sds(value)
        if self.tracked:
            # One entry holds the field, its expiry, and the value while all fit in
            # 128 bytes; else a pointer to the value (src/entry.c setEntryWriteInfo).
            expiry = 16 if has_ttl else 0  # struct ExpireMeta
            fhdr = 1 if field < 32 and not has_ttl else max(sds_header(field), 3)
            together = expiry + fhdr + field + 1 + 3 + value + 1
            if together <= 128:
                return together
            return expiry + max(fhdr, 3) + field + 1 + 8 + self.sds(value)
        if has_ttl:
            # The field carries its expiry before an sds header of at least 3 bytes,
            # and 8 more bytes go to the hash's expiry buckets (seen on Redis 8.2).
            return self.alloc(8 + max(sds_header(field), 3) + field + 1) + 8 + self.sds(value)
        return self.sds(field) + self.sds(value)

    def rax_size(self, keys, nodes, tree_bytes):
        """A radix tree of stream IDs (the listpack index, a PEL) of ``nodes`` nodes
        whose nodes allocate ``tree_bytes`` (both from the scanner's RaxNodes).

        Redis up to 8.2 counts 16 bytes per key and 244 per node (src/object.c
        streamRadixTreeMemoryUsage; 0 nodes stands for the guess of a tree of k
        sequential IDs, about 2k + 2). Valkey counts what the tree allocates
        (src/rax.c raxAllocSize): its 32-byte struct and every node.
        """
        if self.valkey:
            return self.alloc(32) + tree_bytes
        if self.tracked:
            return 40 + 58 * keys  # fitted on unstable builds writing RDB 13 and 14
        if nodes == 0:
            nodes = 1 if keys == 0 else 2 if keys == 1 else 2 * keys + 2
        return 16 * keys + 244 * nodes

    def stream_listpack(self, n):
        """One listpack of a stream: its bytes up to 6.2, its allocation since 7.0."""
        return self.counted(n)

    def stream_group(self, pel, shared, nacked, pel_nodes, pel_bytes):
        """A consumer group with ``pel`` pending entries (``shared`` of them pending in
        an earlier group too, ``nacked`` released by XNACK) in a tree of ``pel_nodes``
        nodes: struct, PEL tree, NACKs."""
        if self.tracked:
            # Struct, name, its PEL and consumer trees, and per pending entry a
            # NACK, its keys in the group's and the consumer's PEL and, once per id,
            # the stream's id-to-groups index (fitted on unstable builds writing RDB 13 and 14);
            # an entry released by XNACK belongs to no consumer's PEL.
            if self.layout == L_REDIS84:
                return 240 + 216 * pel - STREAM_INDEX_KEY * shared  # fitted on an unstable build writing RDB 12
            return 216 + 208 * pel - STREAM_INDEX_KEY * shared - CONSUMER_PEL_KEY * nacked
        group = 32 if self.layout == L_REDIS6 else 40
        return group + self.rax_size(pel, pel_nodes, pel_bytes) + 24 * pel

    def idmp_entry(self, iid):
        """An idempotent id of ``iid`` bytes a stream remembers (Redis 8.6+, src/t_stream.c
        idmpEntryCreate: next pointer, stream ID and length, then the id)."""
        return self.alloc(32 + iid)

    def idmp_producers(self, pids):
        """The producers of a stream's idempotent ids: one struct each and the radix
        tree of their names (src/t_stream.c idmpProducerCreate, raxNewWithMetadata)."""
        return 24 * len(pids) + 32 + self.rax_node_bytes(sorted(pids), 0, len(pids), 0)

    def rax_node_bytes(self, keys, lo, hi, depth):
        """Bytes of the radix-tree nodes under the node for the first ``depth`` bytes
        shared by ``keys[lo:hi]`` (sorted), with the value pointers of the keys that end
        there (src/rax.c): a node of one child and no key packs the chain of such
        nodes below it; a node of several children is a branching node."""
        is_key = len(keys[lo]) == depth
        if is_key:
            lo += 1
        value = 8 if is_key else 0
        if lo == hi:
            return self.alloc(8 + value)  # a leaf: 4-byte header, padding, the value
        if keys[lo][depth] == keys[hi - 1][depth]:
            # one child: follow the chain while every key goes on the same way
            end = depth + 1
            while len(keys[lo]) > end and keys[lo][end] == keys[hi - 1][end]:  # no key ends at ``end``
                end += 1
            chars = end - depth
            size = 4 + chars
            size += (8 - size % 8) % 8
            return self.alloc(size + 8 + value) + self.rax_node_bytes(keys, lo, hi, end)
        children = 0
        below = 0
        start = lo
        while start < hi:
            stop = start + 1
            while stop < hi and keys[stop][depth] == keys[start][depth]:
                stop += 1
            below += self.rax_node_bytes(keys, start, stop, depth + 1)
            children += 1
            start = stop
        size = 4 + children
        size += (8 - size % 8) % 8
        return self.alloc(size + 8 * children + value) + below

    def stream_consumer(self, name, pel, pel_nodes, pel_bytes):
        """A consumer: struct, name, and its own PEL tree (NACKs are the group's)."""
        if self.layout == L_REDIS6:
            return 24 + name + self.rax_size(pel, pel_nodes, pel_bytes)
        if self.tracked:
            # Its PEL's entries are counted with the group's.
            return (254 if self.layout == L_REDIS84 else 214) + self.sds(name)
        if self.valkey:
            return 32 + name + self.rax_size(pel, pel_nodes, pel_bytes)  # the name by its length
        if self.layout == L_VALKEY80:
            return 32 + name + self.rax_size(pel, pel_nodes, pel_bytes)  # the name by its length
        consumer = 24 if self.layout == L_REDIS70 else 32
        return consumer + self.sds(name) + self.rax_size(pel, pel_nodes, pel_bytes)

    def stream_size(self, klen, has_expire, listpack_bytes, index_and_groups):
        """A stream: struct, the listpacks, and (from the scanner) its listpack index and groups."""
        if self.layout == L_REDIS6:
            struct = 40
        elif self.layout == L_REDIS8:
            struct = 112
        elif self.layout == L_REDIS84:
            struct = 128
        elif self.tracked:
            struct = 160  # 8.6 added the IDMP fields
        else:
            struct = 80
        return self.object_size(klen, has_expire) + struct + listpack_bytes + index_and_groups

    def array_string(self, n):
        """A string element of n bytes: kept in the tagged word up to 7 bytes, else its own
        allocation with a length header of 2 bytes, 8 past 32767 (src/sparsearray.c arStringNew)."""
        if n <= ARRAY_INLINE_MAX:
            return 0
        return self.alloc((2 if n <= 32767 else 8) + n)

    def array_slice(self, n, first, tenth, last):
        """One slice of an array loaded in index order: ``n`` elements, the first, tenth and
        last at these offsets in the slice (src/sparsearray.c arSet).

        A slice starts sparse, offsets and values of 4 elements, grown to 8 then 10; the 11th
        makes it dense: a window of the next power of two over the first ten, at least 8,
        which doubles to the right as later elements need, within the slice.
        """
        if n <= ARRAY_SPARSE_MAX:
            cap = 4 if n <= 4 else 8 if n <= 8 else ARRAY_SPARSE_MAX
            return self.alloc(ARRAY_SLICE_HEADER + (2 * cap + 7) // 8 * 8 + 8 * cap)
        if tenth < first:  # not in index order: no server wrote it so
            tenth = first
        window = ARRAY_DENSE_MIN
        while window < tenth - first + 1:
            window <<= 1
        if window >= ARRAY_SLICE_SIZE:
            return self.alloc(ARRAY_SLICE_HEADER + 8 * ARRAY_SLICE_SIZE)
        if first + window > ARRAY_SLICE_SIZE:  # the window ends at the slice's end: all fits
            return self.alloc(ARRAY_SLICE_HEADER + 8 * window)
        while last >= first + window and window < ARRAY_SLICE_SIZE:
            window <<= 1
        return self.alloc(ARRAY_SLICE_HEADER + 8 * window)

    def array_directory(self, top_slice, blocks):
        """The array's struct and its directory of slices: a flat table of pointers, a power
        of two past the highest slice; from slice 2048 on, blocks of 2048 pointers, one per
        block in use, listed 24 bytes each in a table of 4, 8, ... (src/sparsearray.c arDirGrow)."""
        if top_slice < ARRAY_BLOCK_SLICES:
            table = 1
            while table <= top_slice:
                table <<= 1
            return self.alloc(ARRAY_STRUCT) + self.alloc(8 * table)
        table = 4
        while table < blocks:
            table <<= 1
        return self.alloc(ARRAY_STRUCT) + self.alloc(24 * table) + blocks * self.alloc(8 * ARRAY_BLOCK_SLICES)

    # ---------------------------------------------------------------- keys

    def key_entry(self, klen):
        """The key's own cost in the main dict, outside the value object."""
        if self.embedded or self.valkey:
            return 0
        if self.layout == L_VALKEY80:
            return self.alloc(EMBEDDED_DICT_ENTRY + sds_header(klen) + klen + 1)
        return self.sds(klen) + DICT_ENTRY

    def embedded_object(self, klen, has_expire, extra):
        """Object header with the key (and expiry) embedded, plus ``extra`` bytes."""
        size = ROBJ + 1 + sds_header(klen) + klen + 1 + extra
        # Valkey 9 and Redis 8.4+ keep room for an expiry in objects with keys of
        # 128 bytes or more (src/object.c KEY_SIZE_TO_INCLUDE_EXPIRE_THRESHOLD).
        if has_expire or ((self.layout == L_VALKEY9 or self.tracked) and klen >= 128):
            size += 8
        if (self.layout == L_REDIS84 or self.layout == L_REDIS_NEXT) and extra == 0:
            return size
        return self.alloc(size)

    def string_size(self, klen, has_expire, enc, slen):
        """MEMORY USAGE of a string key."""
        if self.layout == L_VALKEY9 and enc == E_EMBSTR:
            # The value takes the pointer's place: at least 8 bytes (src/object.c).
            size = ROBJ - 8 + 1 + sds_header(klen) + klen + 1 + max(3 + slen + 1, 8)
            if has_expire:
                size += 8
            return self.alloc(size)
        if self.embedded or self.valkey:
            if enc == E_EMBSTR:
                return self.embedded_object(klen, has_expire, 3 + slen + 1)
            obj = self.embedded_object(klen, has_expire, 0)
            if enc == E_INT:
                return obj
            return obj + self.sds(slen)
        entry = self.key_entry(klen)
        if enc == E_INT:
            return entry + ROBJ
        if enc == E_EMBSTR:
            if self.layout == L_REDIS6:
                return entry + ROBJ + slen + 2
            return entry + self.alloc(ROBJ + 3 + slen + 1)
        return entry + ROBJ + self.alloc(max(sds_header(slen), 3) + slen + 1)

    def object_size(self, klen, has_expire):
        """The value object of a collection, with the key where the layout puts it."""
        if self.embedded or self.valkey:
            return self.embedded_object(klen, has_expire, 0)
        return self.key_entry(klen) + ROBJ

    # ---------------------------------------------------------------- values

    def compact_size(self, klen, has_expire, blob_bytes):
        """A listpack, ziplist or intset value: one allocation of the blob."""
        return self.object_size(klen, has_expire) + self.counted(blob_bytes)

    def table_size(self, n):
        """The set/hash/zset table for n entries, entries themselves excluded."""
        if self.valkey:
            buckets = valkey_buckets(n)
            struct = 80 if self.layout == L_VALKEY9 else 72  # 9.1 added the safe iterators' list
            overflow = expected_overflow_buckets(n, buckets)
            return struct + 64 * buckets + cython.cast(cython.ulonglong, 64 * overflow)
        struct = 96 if self.layout == L_REDIS6 else 56
        return struct + 8 * next_power(n) + n * DICT_ENTRY

    def chained_set_entries(self, n):
        """Entries a set's dict allocates for n members, rounded: the expected number of members
        that land in a bucket already taken.

        A member alone in its bucket is the bucket's pointer itself (an sds pointer is odd);
        each further one gets an entry of a key and a next pointer (src/dict.c
        dictInsertAtPosition, setDictType keys_are_odd). The hash seed is drawn by every
        server process, so the taken buckets of n members in m are m(1 - (1 - 1/m)^n).
        """
        buckets = next_power(n)
        taken = buckets * (1.0 - (1.0 - 1.0 / buckets) ** cython.cast(cython.double, n))
        return cython.cast(cython.ulonglong, n - taken + 0.5)

    def rehashing_buckets(self, n):
        """Buckets of a dict grown one insert at a time and still rehashing after n inserts.

        Each insert moves one non-empty bucket (about 63% of them at load factor 1)
        of the old table; until all have moved, both tables count (src/dict.c).
        """
        size = next_power(n)
        old = size >> 1
        if old < 4 or n <= old:
            return 0
        if (n - old - 1) * 1000 < old * 632:
            return old
        return 0

    def hashtable_size(self, klen, has_expire, rtype, n, elements):
        """A set, hash or sorted set in a hashtable; ``elements`` sums the element allocations."""
        size = self.object_size(klen, has_expire) + self.table_size(n) + elements
        if rtype == T_SET and self.layout == L_VALKEY80:
            size = size - n * DICT_ENTRY + 16 * self.chained_set_entries(n)
        if rtype == T_HASH and (self.layout == L_VALKEY90 or self.layout == L_VALKEY9):
            size += 8  # the table's metadata: the pointer to the volatile-field set (src/server.c)
        if rtype == T_ZSET:
            # The zset struct, the skiplist struct and its 32-level header node.
            size += 16
            if self.layout == L_REDIS84:
                size += 40 + self.alloc(24 + 32 * 16)
            elif self.layout == L_REDIS8:
                # The dict's entries hold the node and no value: 16 bytes, not 24
                # (measured on Redis 8.2: zsets of one member of 1 to 69 bytes, reloaded).
                size += 32 + self.alloc(16 + 32 * 16)
                size -= 8 * n
            elif self.embedded:
                # 8.4 added the allocation size to the skiplist struct.
                size += (40 if self.tracked else 32) + self.alloc(16 + 32 * 16)
            elif self.layout == L_VALKEY9:
                size += 32 + 16 * 31  # zslGetAllocSize(): the header lives in the skiplist struct
            else:
                size += 32 + self.alloc(24 + 32 * 16)
        return size

    def quicklist_size(self, klen, has_expire, nodes, node_bytes):
        """A quicklist: its struct, one node struct per node, and the nodes' listpacks."""
        node = 32 if self.layout == L_REDIS6 else 40
        struct = 48 if self.tracked else 40  # 8.4 added the allocation size it keeps
        return self.object_size(klen, has_expire) + struct + nodes * node + node_bytes
    def list_node_bytes(self, i, nodes, blob_bytes, lzf_bytes):
        """The listpack of quicklist node i of ``nodes``; middle nodes may be LZF-compressed.

        Nodes beyond ``list-compress-depth`` from either end are kept compressed
        when that saves at least 8 bytes on a node of 48 bytes or more
        (src/quicklist.c __quicklistCompressNode); the dump's own LZF form of
        the node is the same compression of the same bytes.
        """
        depth = self.list_compress_depth
        if (depth > 0 and i >= depth and i + depth < nodes and blob_bytes >= 48
                and lzf_bytes > 0 and lzf_bytes + 8 < blob_bytes):
            if self.layout == L_REDIS6:
                return lzf_bytes  # ziplistBlobLen() of the LZF struct: its compressed size
            return self.counted(8 + lzf_bytes)  # struct quicklistLZF: size_t sz, then the data
        return self.counted(blob_bytes)

    def estimate(self, klen, has_expire, rtype, enc, rdbtype, n, blob_bytes, elements, nodes, ttl_fields):
        """MEMORY USAGE of one key; 0 when no model applies (module values).

        ``elements`` sums what the element hooks returned (hashtable encodings)
        or the node allocations (quicklists); ``blob_bytes`` is the size of a
        compact encoding.
        """
        if rtype == T_STRING:
            return self.string_size(klen, has_expire, enc, n)
        if rtype == T_LIST and enc == E_QUICKLIST:
            return self.quicklist_size(klen, has_expire, nodes, elements)
        if rtype == T_STREAM:
            return self.stream_size(klen, has_expire, blob_bytes, elements)
        if rtype == T_ARRAY:
            # src/object.c kvobjAllocSize: the header, and what the array tracks it allocated.
            return self.object_size(klen, has_expire) + elements
        if enc == E_HASHTABLE or enc == E_SKIPLIST:
            size = self.hashtable_size(klen, has_expire, rtype, n, elements)
            if rtype == T_HASH and (rdbtype == 22 or rdbtype == 24) and not self.valkey:
                # Hashes with field TTLs load one field at a time, without presizing.
                size += 8 * self.rehashing_buckets(n)
            if rtype == T_HASH and self.valkey and ttl_fields > 1:
                # The volatile-field set (src/vset.c): one entry stays inline; two make
                # a vector of 8 bytes plus a pointer each, which records its requested
                # size when created for two and its allocation as it grows; past 127
                # a radix tree of expiry windows (not modelled node by node).
                if ttl_fields == 2:
                    size += 24
                elif ttl_fields <= 127:
                    size += self.alloc(8 + 8 * ttl_fields)
                else:
                    size += 16 + 8 * ttl_fields
            return size
        if rtype == T_LIST or rtype == T_SET or rtype == T_ZSET or rtype == T_HASH:
            size = self.compact_size(klen, has_expire, blob_bytes)
            if enc == E_LISTPACKEX:
                size += self.alloc(24)  # struct listpackEx: expiry metadata, key, listpack
            return size
        return 0
