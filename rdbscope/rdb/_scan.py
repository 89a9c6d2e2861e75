"""The RDB scanner: a dump in, columns of the keys table out.

One source, two builds. Run as plain Python this module is the readable
reference implementation; compiled by Cython with the declarations in
``_scan.pxd`` ("pure Python mode") the same code runs at C speed. Keep every
per-key and per-element path free of Python objects so that the compiled build
stays in C: values are measured and skipped, never decoded.

The layout facts cited below come from Redis's and Valkey's ``src/rdb.c``,
``listpack.c``, ``ziplist.c``, ``zipmap.c``, ``intset.c`` and ``t_stream.c``.
"""

try:
    import cython
except ImportError:  # running as Python without Cython installed
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython
import sys

from ..errors import RdbFormatError, RdbTruncatedError, RdbUnsupportedError
from ._columns import DENSE_WIDTHS, MAX_COLUMN
from ._crc64 import CrcWorker, WholeCrc
from ._pages import background_pool, empty_bytes, lazy_zeros, release_pages, warm_pages, warmed_columns
from .format import writer_version
from .keytext import key_text

if not cython.compiled:  # compiled, _scan.pxd cimports these as C functions and constants
    from ..compiled import python_module

    Columns = python_module("rdb._columns").Columns
    crc64_update = python_module("rdb._crc64").crc64_update
    RELEASE_EVERY = python_module("rdb._pages").RELEASE_EVERY
    _lzf = python_module("rdb._lzf")
    LZF_TOO_LONG, LZF_CUT, LZF_BEFORE_START, LZF_LITERAL_PAST_END = (
        _lzf.LZF_TOO_LONG, _lzf.LZF_CUT, _lzf.LZF_BEFORE_START, _lzf.LZF_LITERAL_PAST_END)
    LZF_SLACK, LZF_MAX_RATIO, lzf_expand, lzf_measure = (
        _lzf.LZF_SLACK, _lzf.LZF_MAX_RATIO, _lzf.lzf_expand, _lzf.lzf_measure)
    del _lzf

# Opcodes and types are repeated here as C constants for the compiled build;
# format.py documents them.
OP_KEY_META = cython.declare(cython.int, 243)
OP_SLOT_INFO = cython.declare(cython.int, 244)
OP_FUNCTION2 = cython.declare(cython.int, 245)
OP_FUNCTION_PRE_GA = cython.declare(cython.int, 246)
OP_MODULE_AUX = cython.declare(cython.int, 247)
OP_IDLE = cython.declare(cython.int, 248)
OP_FREQ = cython.declare(cython.int, 249)
OP_AUX = cython.declare(cython.int, 250)
OP_RESIZEDB = cython.declare(cython.int, 251)
OP_EXPIRETIME_MS = cython.declare(cython.int, 252)
OP_EXPIRETIME = cython.declare(cython.int, 253)
OP_SELECTDB = cython.declare(cython.int, 254)
OP_EOF = cython.declare(cython.int, 255)

#: Room for key bytes :meth:`Scanner.scan_strings` needs to go on: more than the longest key it reads
#: (a 14-bit length), so that it never grows the key buffer, which needs the GIL.
FAST_KEY_ROOM = cython.declare(cython.Py_ssize_t, 1 << 14)
#: Keys in a row :meth:`Scanner.scan_strings` read last time, from which it is worth releasing the GIL for it:
#: taking it back can wait for the other thread, for as long as a short run takes.
FAST_RUN_NOGIL = cython.declare(cython.Py_ssize_t, 64)

# Indices into format.TYPE_NAMES and format.ENCODING_NAMES.
T_STRING = cython.declare(cython.int, 0)
T_LIST = cython.declare(cython.int, 1)
T_SET = cython.declare(cython.int, 2)
T_ZSET = cython.declare(cython.int, 3)
T_HASH = cython.declare(cython.int, 4)
T_STREAM = cython.declare(cython.int, 5)
T_MODULE = cython.declare(cython.int, 6)
T_ARRAY = cython.declare(cython.int, 7)
T_GCRA = cython.declare(cython.int, 8)
E_INT = cython.declare(cython.int, 0)
E_EMBSTR = cython.declare(cython.int, 1)
E_RAW = cython.declare(cython.int, 2)
E_LINKEDLIST = cython.declare(cython.int, 3)
E_ZIPLIST = cython.declare(cython.int, 4)
E_QUICKLIST = cython.declare(cython.int, 5)
E_LISTPACK = cython.declare(cython.int, 6)
E_HASHTABLE = cython.declare(cython.int, 7)
E_INTSET = cython.declare(cython.int, 8)
E_SKIPLIST = cython.declare(cython.int, 9)
E_ZIPMAP = cython.declare(cython.int, 10)
E_LISTPACKEX = cython.declare(cython.int, 11)
E_STREAM = cython.declare(cython.int, 12)
E_ARRAY = cython.declare(cython.int, 13)
ARRAY_INT_LIMIT = cython.declare(cython.longlong, 1 << 61)  # integers a tagged word holds (src/sparsearray.h)
E_GCRA = cython.declare(cython.int, 14)

# How a compact blob's entries group into elements.
W_SINGLE = cython.declare(cython.int, 1)  # list and set members
W_ZSET = cython.declare(cython.int, 2)  # member, score
W_HASH = cython.declare(cython.int, 3)  # field, value
W_HASH_TTL = cython.declare(cython.int, 4)  # field, value, ttl (listpackex)

# Compact blob kinds (walk_blob).
# Rows of one contiguous batch at most: a database announced by RESIZEDB comes as one
# chunk up to here (or until its keys pass key_limit), so the passes read its columns
# without joining chunks. The buffers are lazily mapped: only written rows cost memory.
CONTIGUOUS_MAX_ROWS = cython.declare(cython.Py_ssize_t, 1 << 27)

B_ZIPLIST = cython.declare(cython.int, 0)
B_LISTPACK = cython.declare(cython.int, 1)
B_INTSET = cython.declare(cython.int, 2)
B_ZIPMAP = cython.declare(cython.int, 3)

#: Values stored as one compact blob, indexed by RDB type:
#: (blob kind, grouping, type, encoding). Type 23 is Redis's
#: 7.4 RC listpackex hash; Valkey gave the byte another meaning (read_value checks).
COMPACT = (
    (None,) * 9
    + (
        (B_ZIPMAP, W_HASH, T_HASH, E_ZIPMAP),  # 9
        (B_ZIPLIST, W_SINGLE, T_LIST, E_ZIPLIST),  # 10
        (B_INTSET, W_SINGLE, T_SET, E_INTSET),  # 11
        (B_ZIPLIST, W_ZSET, T_ZSET, E_ZIPLIST),  # 12
        (B_ZIPLIST, W_HASH, T_HASH, E_ZIPLIST),  # 13
        None,  # 14 quicklist
        None,  # 15 stream
        (B_LISTPACK, W_HASH, T_HASH, E_LISTPACK),  # 16
        (B_LISTPACK, W_ZSET, T_ZSET, E_LISTPACK),  # 17
        None,  # 18 quicklist 2
        None,  # 19 stream 2
        (B_LISTPACK, W_SINGLE, T_SET, E_LISTPACK),  # 20
        None,  # 21 stream 3
        None,  # 22 hash with field TTLs
        (B_LISTPACK, W_HASH_TTL, T_HASH, E_LISTPACKEX),  # 23
        None,  # 24 hash with field TTLs
        (B_LISTPACK, W_HASH_TTL, T_HASH, E_LISTPACKEX),  # 25
    )
)

#: What a value of each RDB type is called in error messages.
VALUE_NAMES = {
    0: "string", 1: "list", 2: "set", 3: "zset", 4: "hash", 5: "zset", 6: "module value", 7: "module value",
    9: "hash (zipmap)", 10: "list (ziplist)", 11: "set (intset)", 12: "zset (ziplist)", 13: "hash (ziplist)",
    14: "list (quicklist)", 15: "stream", 16: "hash (listpack)", 17: "zset (listpack)", 18: "list (quicklist)",
    19: "stream", 20: "set (listpack)", 21: "stream", 22: "hash", 23: "hash (listpackex)", 24: "hash",
    25: "hash (listpackex)", 26: "stream", 27: "stream", 28: "array", 29: "gcra",
}


INT64_MIN = cython.declare(cython.longlong, -9223372036854775807 - 1)
MAX_BLOB = cython.declare(cython.longlong, 4294967296)  # listpacks and ziplists are at most 4 GiB
MAX_KEY = cython.declare(cython.ulonglong, 4294967296)
MAX_COUNT = cython.declare(cython.ulonglong, 281474976710656)  # 2**48: more than any real dump holds
U64_MAX = cython.declare(cython.ulonglong, 18446744073709551615)
#: 10**18: the largest power of ten whose next one an unsigned 64-bit integer holds.
POWER_18 = cython.declare(cython.ulonglong, 1000000000000000000)
I64_MAX = cython.declare(cython.ulonglong, 9223372036854775807)
I64_MAX_DIV10 = cython.declare(cython.ulonglong, 922337203685477580)
CHUNK = cython.declare(cython.Py_ssize_t, 1 << 20)


def le_at(data, p, nbytes):
    """The little-endian unsigned integer of ``nbytes`` (1 to 8) bytes at data[p:p+nbytes]."""
    if cython.compiled and nbytes == 8:  # one load (_words.pxd): expiry times
        return load_le64(cython.address(data[p]))
    v = 0
    i = nbytes - 1
    while i >= 0:
        v = (v << 8) | data[p + i]
        i -= 1
    return v


def u32_le(data, p):
    """The little-endian unsigned 32-bit integer at data[p:p+4]."""
    v = data[p + 3]
    v = (v << 8) | data[p + 2]
    v = (v << 8) | data[p + 1]
    return (v << 8) | data[p]


def u32_be(data, p):
    """The big-endian unsigned 32-bit integer at data[p:p+4]."""
    v = data[p]
    v = (v << 8) | data[p + 1]
    v = (v << 8) | data[p + 2]
    return (v << 8) | data[p + 3]


#: major*100+minor of the oldest Redis that writes each RDB version (0-13).
FIRST_WRITER = (200, 200, 200, 200, 200, 200, 206, 302, 400, 500, 700, 702, 704, 806)


def writer_for_rdb_version(version):
    """major*100+minor of the oldest Redis that writes this RDB version."""
    last = len(FIRST_WRITER) - 1  # no negative index: the compiled build turns wraparound off
    return FIRST_WRITER[min(version, last)]


#: major*100+minor of the newest Redis release that writes each RDB version (0-14);
#: an unstable build writing RDB 14 stands for 8.8.
LAST_WRITER = (200, 200, 200, 200, 200, 200, 208, 302, 400, 602, 700, 702, 804, 806, 808)
#: the newest Valkey release (major*100+minor), which stands in for an unstable Valkey build.
NEWEST_VALKEY = cython.declare(cython.int, 901)
NEWEST_VALKEY_REDIS_MAGIC = cython.declare(cython.int, 801)


def newest_writer_for_rdb_version(version):
    """major*100+minor of the newest Redis that writes this RDB version."""
    last = len(LAST_WRITER) - 1
    return LAST_WRITER[min(version, last)]


def embstr_limit_for(redis_ver):
    """Longest embstr string of a Redis version (src/object.c OBJ_ENCODING_EMBSTR_SIZE_LIMIT)."""
    if redis_ver >= 302:
        return 44
    if redis_ver >= 300:
        return 39
    return -1  # Redis 2.x had no embstr


ID_BYTES = cython.declare(cython.int, 16)  # a stream ID as a radix-tree key: ms and seq, big-endian
NO_NODE = cython.declare(cython.int, 0)
BRANCHING = cython.declare(cython.int, 1)
COMPRESSED = cython.declare(cython.int, 2)


def rax_node_bytes(size, children):
    """Bytes of a radix-tree node of ``size`` bytes of key with ``children`` child pointers
    (src/rax.c raxNodeCurrentLength): a 4-byte header, the bytes padded to a pointer, the
    pointers. A leaf (size 0, no child) holds the key's value pointer instead."""
    if size == 0 and children == 0:
        return 16
    return 4 + size + ((8 - (size + 4) % 8) & 7) + 8 * children


class RaxNodes:
    """The node count of a Redis radix tree of stream IDs inserted in order (src/rax.c),
    and, given a memory model, what its nodes allocate.

    Only the path of the last key matters: for each depth on it, whether a node
    starts there, and where a compressed node's run of bytes ends. A new key
    leaves that path at its common prefix with the last key, splitting a
    compressed node there if needed, and adds a leaf, preceded by a compressed
    node when it has more than one byte to go. The nodes the new key leaves
    behind never change again: their allocations are summed then.
    """

    def __init__(self, mm=None):
        self.kind = [NO_NODE] * (ID_BYTES + 1)
        self.run_end = [0] * (ID_BYTES + 1)
        self.children = [0] * (ID_BYTES + 1)
        self.last = bytearray(ID_BYTES)
        self.nodes = 1  # the head
        self.keys = 0
        self.mm = mm
        self.done = 0  # allocations of the nodes off the last key's path

    def path_bytes(self, start):
        """Allocations of the nodes of the last key's path from depth ``start`` on."""
        total = 0
        j = start
        while j <= ID_BYTES:
            if j == ID_BYTES:
                total += self.mm.alloc(rax_node_bytes(0, 0))
            elif self.kind[j] == COMPRESSED:
                total += self.mm.alloc(rax_node_bytes(self.run_end[j] - j, 1))
            elif self.kind[j] == BRANCHING:
                total += self.mm.alloc(rax_node_bytes(self.children[j], self.children[j]))
            j += 1
        return total

    def alloc_bytes(self):
        """What the tree's nodes allocate (the rax struct aside)."""
        if self.keys == 0:
            return self.mm.alloc(8)  # an empty head: its 4-byte header, padded
        return self.done + self.path_bytes(0)

    def add(self, data, p):
        """Insert the 16-byte key at ``data[p:p+16]``, greater than the last one."""
        if self.keys == 0:
            common = 0
            self.kind[0] = COMPRESSED  # the head runs over the whole key to its leaf
            self.run_end[0] = ID_BYTES
            self.nodes = 2
        else:
            common = 0
            while common < ID_BYTES and data[p + common] == self.last[common]:
                common += 1
            if common == ID_BYTES:
                return  # the same key again
            d = common
            while self.kind[d] == NO_NODE:
                d -= 1
            if self.kind[d] == COMPRESSED:  # the new key leaves inside its run: split it
                end = self.run_end[d]
                if self.mm is not None:  # the old key's branch from the split on is final
                    self.done += self.path_bytes(end)
                    if end > common + 1:
                        self.done += self.mm.alloc(rax_node_bytes(end - common - 1, 1))
                if d < common:
                    self.run_end[d] = common
                    self.nodes += 1  # a branching node where the keys part
                self.kind[common] = BRANCHING
                self.children[common] = 2
                if end > common + 1:
                    self.nodes += 1  # the rest of the old run, a compressed node of its own
            else:  # a branching node at the common prefix gains a child
                if self.mm is not None:
                    self.done += self.path_bytes(common + 1)
                self.children[common] += 1
            self.nodes += 1 if common + 1 == ID_BYTES else 2  # the new leaf, and the run to it
            j = common + 1
            while j < ID_BYTES:
                self.kind[j] = NO_NODE
                j += 1
            if common + 1 < ID_BYTES:
                self.kind[common + 1] = COMPRESSED
                self.run_end[common + 1] = ID_BYTES
        self.kind[ID_BYTES] = BRANCHING  # the leaf: nothing to split
        j = 0
        while j < ID_BYTES:
            self.last[j] = data[p + j]
            j += 1
        self.keys += 1


def to_signed(v, nbytes):
    """The two's-complement value of an unsigned integer of ``nbytes`` bytes."""
    if v >> (8 * nbytes - 1):
        inverted = (~v) & (U64_MAX >> (64 - 8 * nbytes))  # a signed local in the compiled build
        return -inverted - 1
    return v


def int_text_len(v):
    """Length of the decimal text of a signed 64-bit integer."""
    n = 1
    if v < 0:
        if v == INT64_MIN:
            return 20
        n = 2
        v = -v
    u = v
    t = 10  # compared, not divided: a division per digit cost more than the rest of a string key's read
    while u >= t and t <= POWER_18:
        t *= 10
        n += 1
    return n


def is_int_text(data, start, n):
    """True when ``data[start:start+n]`` is what Redis's string2ll accepts.

    A canonical signed 64-bit decimal: no sign but '-', no leading zeros, no
    "-0", no spaces (src/util.c string2ll). Such strings load as encoding int.
    """
    if n == 0 or n > 20:
        return False
    i = start
    stop = start + n
    negative = False
    if data[i] == 45:  # '-'
        negative = True
        i += 1
        if i == stop:
            return False
    c = data[i]
    if c == 48:  # '0'
        return n == 1
    if c < 49 or c > 57:
        return False
    v = 0
    while i < stop:
        c = data[i]
        if c < 48 or c > 57:
            return False
        if v > I64_MAX_DIV10:
            return False
        v = v * 10 + (c - 48)
        i += 1
    if negative:
        return v - 1 <= I64_MAX
    return v <= I64_MAX


class Scanner(Columns):
    """Reads one dump from a binary stream and fills key-table columns.

    The caller (``rdbscope.rdb.scan``) drives it: ``read_header()`` once, then
    ``scan_batch()`` until it returns 0 rows, taking the columns after each call.
    Everything here works on a sliding buffer over the stream, so memory stays
    bounded by the buffer and the largest single compact blob; or, for a plain
    dump file, on the file mapped whole (``whole``), which is never copied.
    """

    def __init__(self, stream, batch_rows, verify_crc, relaxed_version, memory_model_for=None, whole=None,
                 contiguous=False):
        Columns.__init__(self, contiguous)  # scan_batch still returns every batch_rows rows, for progress
        self.src = stream
        self.pos = 0
        self.base = 0
        self.released = 0
        self.verify_crc = verify_crc
        self.whole = whole is not None
        if self.whole:  # the dump mapped in memory: no reads, no copies
            self.buf = whole
            self.end = len(whole)
            self.eof = True
        else:
            self.buf = bytearray(CHUNK)
            self.end = 0
            self.eof = False
        self.view = self.buf
        # The compiled build checksums and warms pages on helper threads; as Python
        # that would only add work.
        self.pool = None
        self.crc_worker = None
        if verify_crc and cython.compiled:
            self.crc_worker = WholeCrc(whole) if self.whole else CrcWorker()
        self.warm_columns = None
        self.crc = 0
        self.crc_pos = 0
        self.relaxed_version = relaxed_version
        self.module_ids = {}
        self.sc_klen = -1  # the last string shape and its estimate (string_cost)
        self.sc_n = 0
        self.sc_enc = -1
        self.sc_expire = False
        self.sc_est = 0
        self.module_names = []
        self.blob = None  # the compact encoding being walked: a view of buf or of scratch
        self.scratch = bytearray(256)
        self.sview = self.scratch
        self.batch_rows = batch_rows
        self.db_keys = 0
        self.next_cap = 1 << 20
        self.key_limit = (1 << 30) if contiguous else (256 << 20)
        self.warm_linux = cython.compiled and sys.platform.startswith("linux")
        self.version = 0
        self.valkey = False
        self.done = False
        self.db = 0
        self.context = "header"
        self.cur_kstart = -1
        self.cur_klen = 0
        self.value_type = -1
        # Writer facts that decide in-memory encodings; set from AUX fields.
        self.writer_valkey_ver = 0  # major*100 + minor
        self.writer_unstable = False  # an unstable build: redis-ver or valkey-ver 255.255.255
        # The release an unstable build corresponds to, as the caller named it (major*100 + minor,
        # 0: not named); writer_named: it was used in place of the unstable build's guess.
        self.named_version = 0
        self.writer_named = False
        self.writer_redis_ver = 0  # major*100 + minor
        self.embstr_limit = 44
        # Per-entry state.
        self.expire_ms = 0
        self.has_expire = False  # any int64 is an expiry time, -2**63 included
        self.lfu = -1
        self.idle = -1
        self.prefix_start = -1
        # Results of value parsing.
        self.r_n = 0
        self.r_max = 0
        self.r_enc = 0
        self.r_type = 0
        self.r_ttl_fields = 0
        self.r_module_id = 0
        self.r_no_counts = False
        # Metadata for the KeyTable.
        self.aux = []
        self.resizedb = []
        self.slot_info = []
        self.functions = []
        self.module_aux = []
        self.slot_imports = []
        self.key_meta_entries = 0
        self.checksum = None
        self.checksum_verified = False
        # Filters pushed into the scan.
        self.want_db = None
        self.want_types = None
        self.key_filter = None
        # The memory model is chosen from the AUX fields, so at the first key.
        self.memory_model_for = memory_model_for
        self.mm = None
        self.m_elems = 0
        self.m_blob = 0
        self.m_nodes = 0
        self.m_lzf = 0

    # ------------------------------------------------------------------ columns

    def _alloc_columns(self):
        """Give the next batch fresh buffers; Arrow takes the filled ones without a copy."""
        if self.contiguous:
            self.cap = self._contiguous_capacity()
            lazy = self.cap > 65536  # small batches: mappings cost more than they save
            columns = self._new_columns(lazy_zeros if lazy else empty_bytes, min(self.cap * 64, self.key_limit))
            self._use_columns(columns, lazy)
            return
        if self.reading_past and self.reusable:
            self._reuse_columns()
            return
        self.cap = self.batch_rows
        if self._helper() is None:
            self._use_columns(self._new_columns(empty_bytes, self.kcap), False)
            return
        if self.warm_columns is None:
            self.warm_columns = self.pool.submit(warmed_columns, self._new_columns(empty_bytes, self.kcap))
        columns = self.warm_columns.result()
        self.warm_columns = self.pool.submit(warmed_columns, self._new_columns(empty_bytes, self.kcap))
        self._use_columns(columns, False)

    def _helper(self):
        """The helper thread's pool, started once the dump proves big enough to need it; None
        where warming pages cannot work (Python build, no Linux)."""
        if self.pool is None and self.warm_linux and self.base + self.pos > (4 << 20):
            self.pool = background_pool()
        return self.pool

    def _contiguous_capacity(self):
        """Rows for the next contiguous batch: what is left of the current database's RESIZEDB
        count, else twice the last guess; at most what the rest of a mapped dump can hold."""
        cap = 0
        if self.resizedb and self.resizedb[len(self.resizedb) - 1][0] == self.db:
            announced = self.resizedb[len(self.resizedb) - 1][1]
            if announced > self.db_keys:
                cap = announced - self.db_keys
        if cap == 0:
            cap = self.next_cap
            self.next_cap = min(self.next_cap * 2, CONTIGUOUS_MAX_ROWS)
        if self.whole:
            cap = min(cap, (self.end - self.pos) // 3 + 1)  # a key takes 3 bytes at least
        else:  # the rest of a stream is unknown: trust the count as far as the bytes read so far go
            cap = min(cap, max(1 << 20, (self.base + self.pos) // 3))
        cap = min(max(cap, 1024), CONTIGUOUS_MAX_ROWS)
        return (cap + 7) // 8 * 8

    def _warm_ahead(self):
        """Fault in the pages the next window of rows will write, on the helper thread."""
        if not self.contiguous or self.cap == 0 or self._helper() is None:
            return
        w = self.batch_rows
        first = self.rows + w
        last = min(self.rows + 2 * w, self.cap)
        if first >= last:
            return
        regions = [(self.dense[i], first * DENSE_WIDTHS[i], last * DENSE_WIDTHS[i] + 4)
                   for i in range(len(DENSE_WIDTHS)) if i != MAX_COLUMN or not self.max_is_n]
        per_key = self.klen // self.rows + 1 if self.rows else 16
        regions.append((self.keydata, self.klen + per_key * w, self.klen + per_key * 2 * w))
        self.pool.submit(warm_pages, regions)

    def _release_behind(self):
        """Drop from the mapping the pages of the dump that the scan and the checksum have both
        read (they stay in the page cache), so a big dump does not count in resident memory."""
        behind = self.pos
        if self.crc_worker is not None:
            self.crc_worker.follow(self.base + self.pos)
            behind = min(behind, self.crc_worker.progress[0])
        while behind - self.released > RELEASE_EVERY + CHUNK:
            release_pages(self.buf, self.released, RELEASE_EVERY)
            self.released += RELEASE_EVERY

    def _key_reserve(self, n):
        """Make room for n more key bytes; return where they go."""
        if self.klen + n > self.kcap:
            with cython.gil:  # only in the GIL's holder: the scan without it leaves room first (scan_strings)
                self._grow_keys(self.klen + n)
        return self.klen

    # ------------------------------------------------------------------ errors

    def fail(self, cls, message):
        """Raise ``cls`` at the current offset with what was being read."""
        context = self.context
        if context is None:
            context = VALUE_NAMES.get(self.value_type, f"value of type {self.value_type}")
        if self.cur_kstart >= 0:
            key = self.keydata[self.cur_kstart:self.klen].tobytes()
            shown = key_text(key[:40])
            more = "…" if len(key) > 40 else ""
            context += f" (db {self.db}, key '{shown}{more}')"
        raise cls(message, offset=self.base + self.pos, context=context)

    # ------------------------------------------------------------------ input

    def _fill(self, need):
        """Make ``need`` bytes available at ``pos``, reading more of the stream.

        The buffer only grows as data actually arrives, so an absurd length in a
        corrupt dump ends as a truncation error, never a huge allocation.
        """
        if self.whole:
            self.fail(RdbTruncatedError, f"dump ends early: {need} bytes expected, {self.end - self.pos} left")
        if self.verify_crc and self.crc_worker is None:
            self.crc = crc64_update(self.crc, self.view, self.crc_pos, self.pos)
        keep = self.end - self.pos
        if self.pos > 0:
            self.buf[0:keep] = self.buf[self.pos:self.end]
            self.base += self.pos
            self.pos = 0
            self.end = keep
        self.crc_pos = 0
        while self.end < need:
            if self.eof:
                self.fail(RdbTruncatedError, f"dump ends early: {need} bytes expected, {self.end} left")
            cap = len(self.buf)
            if self.end == cap:
                grow = cap
                if need - cap < grow:
                    grow = need - cap if need - cap > CHUNK else CHUNK
                self.view = None
                self.blob = None
                self.buf.extend(bytes(grow))
                self.view = self.buf
                cap = len(self.buf)
            got = self.src.readinto(memoryview(self.buf)[self.end:cap])
            if not got:
                self.eof = True
            else:
                if self.crc_worker is not None:
                    self.crc_worker.feed(self.base + self.end, bytes(self.buf[self.end:self.end + got]), self.base)
                self.end += got

    def ensure(self, n):
        if self.end - self.pos < n:
            self._fill(n)

    def u8(self):
        if self.pos >= self.end:
            self._fill(1)
        b = self.view[self.pos]
        self.pos += 1
        return b

    def le(self, nbytes):
        """Read an unsigned little-endian integer of 1-8 bytes."""
        self.ensure(nbytes)
        v = le_at(self.view, self.pos, nbytes)
        self.pos += nbytes
        return v

    def le_signed(self, nbytes):
        return to_signed(self.le(nbytes), nbytes)

    def skip(self, n):
        """Skip n bytes; long runs stream through the buffer without growing it."""
        while n > 0:
            avail = self.end - self.pos
            if avail == 0:
                self._fill(1)
                avail = self.end - self.pos
            if n <= avail:
                self.pos += n
                return 0
            self.pos += avail
            n -= avail

    def read_len(self):
        """Read an RDB length; return 1 when it is a special string encoding.

        The value is left in ``self.lv`` (src/rdb.c rdbLoadLenByRef).
        """
        b = self.u8()
        kind = b >> 6
        if kind == 0:
            self.lv = b & 0x3F
            return 0
        if kind == 1:
            self.lv = ((b & 0x3F) << 8) | self.u8()
            return 0
        if kind == 2:
            if b == 0x80:
                self.ensure(4)
                v = 0
                for i in range(4):
                    v = (v << 8) | self.view[self.pos + i]
                self.pos += 4
                self.lv = v
                return 0
            if b == 0x81:
                self.ensure(8)
                v = 0
                for i in range(8):
                    v = (v << 8) | self.view[self.pos + i]
                self.pos += 8
                self.lv = v
                return 0
            self.pos -= 1
            self.fail(RdbFormatError, f"bad length encoding 0x{b:02X}")
        self.lv = b & 0x3F
        return 1

    def read_plain_len(self):
        if self.read_len():
            self.pos -= 1
            self.fail(RdbFormatError, "a string encoding where a length was expected")
        return self.lv

    def read_count(self):
        """A length that counts items: refuse values no real dump can hold."""
        n = self.read_plain_len()
        if n >= MAX_COUNT:
            self.fail(RdbFormatError, f"absurd length {n}")
        return n

    # ------------------------------------------------------------------ strings

    def skip_string(self, check_int):
        """Skip an RDB string; leave its text length in ``slen``.

        With ``check_int`` set, ``sint`` says whether a string of at most 20
        bytes loads as an int.
        """
        if self.read_len():
            enc = self.lv
            if enc == 0:
                self.slen = int_text_len(self.le_signed(1))
            elif enc == 1:
                self.slen = int_text_len(self.le_signed(2))
            elif enc == 2:
                self.slen = int_text_len(self.le_signed(4))
            elif enc == 3:
                clen = self.read_count()
                ulen = self.read_count()
                if check_int and ulen <= 20:
                    self.decompress_lzf(clen, ulen)
                    self.sint = is_int_text(self.sview, 0, ulen)
                else:
                    self.sint = False
                    self.check_lzf(clen, ulen)
                self.slen = ulen
                self.m_lzf = clen
                return 0
            else:
                self.pos -= 1
                self.fail(RdbFormatError, f"unknown string encoding {enc}")
            self.sint = True
            self.m_lzf = 0
            return 0
        n = self.lv
        if n >= MAX_COUNT:
            self.fail(RdbFormatError, f"absurd string length {n}")
        self.slen = n
        self.m_lzf = 0
        if check_int and n <= 20:
            self.ensure(n)
            self.sint = is_int_text(self.view, self.pos, n)
            self.pos += n
        else:
            self.sint = False
            self.skip(n)
        return 0

    def read_key(self):
        """Read the key string into the key column buffer; return its length."""
        start = self.klen
        if self.read_len():
            self.read_key_encoded(self.lv)
            return self.klen - start
        n = self.lv
        if n >= MAX_KEY:
            self.fail(RdbFormatError, f"absurd key length {n}")
        self.ensure(n)
        at = self._key_reserve(n)
        if cython.compiled:
            memcpy(cython.address(self.kview[at]), cython.address(self.view[self.pos]), n)
        else:
            self.kview[at:at + n] = self.view[self.pos:self.pos + n]
        self.pos += n
        self.klen = at + n
        return n

    def skip_string_record(self):
        """Step over the commonest record (see read_string_record) in a batch read past: only where it
        ends matters. Returns False, having consumed nothing, for anything else."""
        p = self.string_end(self.pos)
        if p >= 0:
            p = self.string_end(p)
        if p < 0 or p > self.end:
            return False
        self.pos = p
        return True

    def string_end(self, p):
        """Where the string at ``p`` ends when it is plain (6 or 14-bit length) or an integer of 8, 16
        or 32 bits; -1 for any other, or when too few bytes are left to tell."""
        if self.end - p < 2:
            return -1
        b = self.view[p]
        if b < 64:
            return p + 1 + b
        if b < 128:
            return p + 2 + (((b & 0x3F) << 8) | self.view[p + 1])
        if b == 0xC0:
            return p + 2
        if b == 0xC1:
            return p + 3
        if b == 0xC2:
            return p + 5
        return -1

    def read_string_record(self):
        """Read the commonest record, a plain key and a plain or integer string value, in one go.

        Returns False, having consumed nothing, for anything else or for a record
        not wholly in the buffer; the general path then reads it. On success it
        leaves what read_key and read_value would.
        """
        p = self.pos
        end = self.end
        if end - p < 3:
            return False
        b = self.view[p]
        if b < 64:
            n = b
            p += 1
        elif b < 128:
            n = ((b & 0x3F) << 8) | self.view[p + 1]
            p += 2
        else:
            return False
        kat = p
        p += n
        if end - p < 2:
            return False
        b = self.view[p]
        sint = False
        if b < 64:
            vlen = b
            p += 1
        elif b < 128:
            vlen = ((b & 0x3F) << 8) | self.view[p + 1]
            p += 2
        elif b == 0xC0:
            vlen = int_text_len(to_signed(self.view[p + 1], 1))
            sint = True
            p += 2
        elif b == 0xC1 or b == 0xC2:  # integers of 16 and 32 bits: counters, ids, seconds
            width = 2 if b == 0xC1 else 4
            if end - p < width + 1:
                return False
            vlen = int_text_len(to_signed(le_at(self.view, p + 1, width), width))
            sint = True
            p += width + 1
        else:  # a 64-bit integer, LZF or a long length: the general path
            return False
        if not sint:
            if end - p < vlen:
                return False
            if vlen <= 20:
                sint = is_int_text(self.view, p, vlen)
            p += vlen
        at = self._key_reserve(n)
        if cython.compiled:
            memcpy(cython.address(self.kview[at]), cython.address(self.view[kat]), n)
        else:
            self.kview[at:at + n] = self.view[kat:kat + n]
        self.klen = at + n
        self.cur_klen = n
        self.pos = p
        self.value_type = 0
        self.r_ttl_fields = 0
        self.r_no_counts = False
        self.m_elems = 0
        self.m_blob = 0
        self.m_nodes = 0
        self.m_lzf = 0
        self.r_type = T_STRING
        self.r_n = vlen
        self.r_max = vlen
        self.r_enc = E_INT if sint else self.string_encoding(vlen)
        return True

    def read_key_encoded(self, enc):
        """A key stored as an integer or LZF-compressed (rare: kept off read_key's path)."""
        if enc <= 2:
            text = str(self.le_signed(1 << enc)).encode()
            n = len(text)
            at = self._key_reserve(n)
            for i in range(n):
                self.kview[at + i] = text[i]
            self.klen = at + n
        elif enc == 3:
            clen = self.read_count()
            ulen = self.read_count()
            self.decompress_lzf(clen, ulen)
            at = self._key_reserve(ulen)
            self.kview[at:at + ulen] = self.sview[0:ulen]
            self.klen = at + ulen
        else:
            self.pos -= 1
            self.fail(RdbFormatError, f"unknown string encoding {enc}")

    def read_bytes_object(self):
        """Read a whole RDB string as Python bytes (metadata only, never values)."""
        if self.read_len():
            enc = self.lv
            if enc <= 2:
                return str(self.le_signed(1 << enc)).encode()
            if enc == 3:
                clen = self.read_count()
                ulen = self.read_count()
                self.decompress_lzf(clen, ulen)
                return bytes(self.scratch[0:ulen])
            self.pos -= 1
            self.fail(RdbFormatError, f"unknown string encoding {enc}")
        n = self.lv
        if n >= MAX_KEY:
            self.fail(RdbFormatError, f"absurd string length {n}")
        self.ensure(n)
        out = bytes(self.buf[self.pos:self.pos + n])
        self.pos += n
        return out

    def check_lzf_claim(self, clen, ulen):
        """Refuse LZF lengths that no data can have, before anything is read or allocated."""
        if ulen > MAX_BLOB or clen > MAX_BLOB:
            self.fail(RdbFormatError, f"absurd LZF lengths {clen}/{ulen}")
        if ulen > clen * LZF_MAX_RATIO:
            self.fail(RdbFormatError, f"LZF data of {clen} bytes cannot expand to the announced {ulen} bytes")

    def check_lzf(self, clen, ulen):
        """Walk LZF data without decompressing it: it must expand to exactly ``ulen`` bytes.

        Literal runs are skipped through the stream, so a huge value never has to
        fit in the buffer (src/lzf_d.c gives the token layout).
        """
        self.check_lzf_claim(clen, ulen)
        if clen <= self.end - self.pos:  # all in the buffer: walk it in one loop
            if cython.compiled:
                got = lzf_measure(cython.address(self.view[self.pos]), clen, ulen, cython.address(at))
            else:  # the same loop, over a view instead of a pointer
                where = [0]
                got = lzf_measure(memoryview(self.view)[self.pos:self.pos + clen], clen, ulen, where)
                at = where[0]
            if got < 0:
                self.pos += at
                self.lzf_fail(got, ulen)
            self.pos += clen
            if got != ulen:
                self.fail(RdbFormatError, f"LZF data decompresses to {got} bytes, {ulen} announced")
            return 0
        stop = self.base + self.pos + clen
        out = 0
        while self.base + self.pos < stop:
            ctrl = self.u8()
            if ctrl < 32:
                run = ctrl + 1
                if self.base + self.pos + run > stop:
                    self.fail(RdbFormatError, "LZF literal run past the end of the compressed data")
                self.skip(run)
                out += run
            else:
                run = ctrl >> 5
                if self.base + self.pos >= stop:
                    self.fail(RdbFormatError, "LZF data cut inside a back reference")
                if run == 7:
                    run += self.u8()
                    if self.base + self.pos >= stop:
                        self.fail(RdbFormatError, "LZF data cut inside a back reference")
                distance = ((ctrl & 0x1F) << 8) + self.u8() + 1
                if distance > out:
                    self.fail(RdbFormatError, "LZF back reference before the start of the data")
                out += run + 2
            if out > ulen:
                self.fail(RdbFormatError, f"LZF data longer than the announced {ulen} bytes")
        if out != ulen:
            self.fail(RdbFormatError, f"LZF data decompresses to {out} bytes, {ulen} announced")

    def lzf_fail(self, code, ulen):
        """Raise the error an LZF_* code stands for."""
        if code == LZF_LITERAL_PAST_END:
            self.fail(RdbFormatError, "LZF literal run past the end of the compressed data")
        if code == LZF_CUT:
            self.fail(RdbFormatError, "LZF data cut inside a back reference")
        if code == LZF_BEFORE_START:
            self.fail(RdbFormatError, "LZF back reference before the start of the data")
        self.fail(RdbFormatError, f"LZF data longer than the announced {ulen} bytes")

    def decompress_lzf(self, clen, ulen):
        """Decompress LZF data at ``pos`` into ``scratch[0:ulen]`` (src/lzf_d.c).

        The output is allocated only once the compressed bytes are there and
        could expand to ``ulen``: a few bytes claiming gigabytes fail first.
        """
        self.check_lzf_claim(clen, ulen)
        self.ensure(clen)
        if ulen + LZF_SLACK > len(self.scratch):
            self.sview = None
            self.scratch = bytearray(ulen + LZF_SLACK)
            self.sview = self.scratch
        got = 0
        if clen > 0:
            if cython.compiled:
                got = lzf_expand(cython.address(self.view[self.pos]), clen, cython.address(self.sview[0]), ulen)
            else:  # the same loop, over views instead of pointers
                got = lzf_expand(memoryview(self.view)[self.pos:self.pos + clen], clen, memoryview(self.sview), ulen)
        if got < 0:
            self.lzf_fail(got, ulen)
        if got != ulen:
            self.fail(RdbFormatError, f"LZF data decompresses to {got} bytes, {ulen} announced")
        self.pos += clen
        return 0

    # ------------------------------------------------------------------ compact blobs

    def walk_blob(self, kind, group):
        """Read an RDB string holding a compact encoding and walk its entries.

        ``kind`` is B_ZIPLIST, B_LISTPACK, B_INTSET or B_ZIPMAP. Sets ``w_n``
        (elements after grouping), ``w_max`` and ``w_ttl``.
        """
        if self.read_len():
            if self.lv != 3:
                self.pos -= 1
                self.fail(RdbFormatError, "an integer where a compact encoding was expected")
            clen = self.read_count()
            ulen = self.read_count()
            self.decompress_blob(kind, clen, ulen)
            self.blob = self.sview
            self.m_lzf = clen
            self._walk(0, ulen, kind, group)
            return 0
        n = self.lv
        if n > MAX_BLOB:
            self.fail(RdbFormatError, f"absurd blob length {n}")
        self.ensure(n)
        self.m_lzf = 0
        self.blob = self.view
        self._walk(self.pos, n, kind, group)
        self.blob = None
        self.pos += n

    def decompress_blob(self, kind, clen, ulen):
        """decompress_lzf for a compact blob, whose own header is checked against ``ulen`` first.

        A listpack or ziplist starts with its total size, an intset with its
        integer width and count; when the LZF data opens with a literal run that
        holds them (the compressor's first token is a literal), a blob that
        cannot be ``ulen`` bytes long fails before its output is allocated.
        """
        self.check_lzf_claim(clen, ulen)
        self.ensure(clen)
        p = self.pos
        run = 0  # header bytes readable as they are
        if clen > 0 and self.view[p] < 32:
            run = self.view[p] + 1
            if run + 1 > clen:
                run = clen - 1
        if (kind == B_LISTPACK or kind == B_ZIPLIST) and run >= 4:
            total = u32_le(self.view, p + 1)
            if total != ulen:
                name = "listpack" if kind == B_LISTPACK else "ziplist"
                self.fail(RdbFormatError, f"{name} header says {total} bytes, the string holds {ulen}")
        elif kind == B_INTSET and run >= 8:
            self.check_intset_header(u32_le(self.view, p + 1), u32_le(self.view, p + 5), ulen)
        self.decompress_lzf(clen, ulen)

    def _walk(self, start, length, kind, group):
        self.m_blob = length
        if kind == B_ZIPLIST or kind == B_LISTPACK:
            self.walk_packed(start, length, group, kind == B_LISTPACK)
        elif kind == B_INTSET:
            self.walk_intset(start, length)
        else:
            self.walk_zipmap(start, length)

    def _group_entry(self, i, group):
        """Fold entry i (its text length in e_len) into the element figures."""
        if group == W_SINGLE:
            if self.e_len > self.w_max:
                self.w_max = self.e_len
        elif group == W_ZSET:
            if i % 2 == 0 and self.e_len > self.w_max:
                self.w_max = self.e_len
        elif group == W_HASH:
            if i % 2 == 0:
                self.w_acc = self.e_len
            elif self.w_acc + self.e_len > self.w_max:
                self.w_max = self.w_acc + self.e_len
        else:
            r = i % 3
            if r == 0:
                self.w_acc = self.e_len
            elif r == 1:
                if self.w_acc + self.e_len > self.w_max:
                    self.w_max = self.w_acc + self.e_len
            elif not (self.e_isint and self.e_int == 0):
                self.w_ttl += 1

    def _finish_group(self, entries, group):
        per = 1
        if group == W_ZSET or group == W_HASH:
            per = 2
        elif group == W_HASH_TTL:
            per = 3
        if entries % per != 0:
            self.fail(RdbFormatError, f"{entries} entries do not form whole elements of {per}")
        self.w_n = entries // per

    def lp_entry(self, p, stop):
        """Decode the listpack entry at p; return the next entry's position.

        Sets e_len (text length), e_isint and e_int (src/listpack.c encodings).
        """
        b = self.blob[p]
        self.e_isint = True
        if b < 0x80:  # 7-bit unsigned int
            self.e_int = b
            size = 1
        elif b < 0xC0:  # 6-bit string length
            self.e_isint = False
            self.e_len = b & 0x3F
            size = 1 + self.e_len
        elif b < 0xE0:  # 13-bit signed int
            if p + 1 >= stop:
                self.fail(RdbFormatError, "listpack entry runs past the end")
            v = ((b & 0x1F) << 8) | self.blob[p + 1]
            self.e_int = v
            if v >= 4096:
                self.e_int = v - 8192
            size = 2
        elif b < 0xF0:  # 12-bit string length
            if p + 1 >= stop:
                self.fail(RdbFormatError, "listpack entry runs past the end")
            self.e_isint = False
            self.e_len = ((b & 0x0F) << 8) | self.blob[p + 1]
            size = 2 + self.e_len
        elif b == 0xF0:  # 32-bit string length
            if p + 5 > stop:
                self.fail(RdbFormatError, "listpack entry runs past the end")
            self.e_isint = False
            self.e_len = u32_le(self.blob, p + 1)
            size = 5 + self.e_len
        elif b >= 0xF1 and b <= 0xF4:
            nbytes = 2
            if b == 0xF2:
                nbytes = 3
            elif b == 0xF3:
                nbytes = 4
            elif b == 0xF4:
                nbytes = 8
            if p + 1 + nbytes > stop:
                self.fail(RdbFormatError, "listpack entry runs past the end")
            v = 0
            i = nbytes
            while i > 0:
                v = (v << 8) | self.blob[p + i]
                i -= 1
            self.e_int = to_signed(v, nbytes)
            size = 1 + nbytes
        else:
            self.fail(RdbFormatError, f"bad listpack entry encoding 0x{b:02X}")
        if self.e_isint:
            self.e_len = int_text_len(self.e_int)
        if size < 128:
            size += 1
        elif size < 16384:
            size += 2
        elif size < 2097152:
            size += 3
        elif size < 268435456:
            size += 4
        else:
            size += 5
        if p + size > stop:
            self.fail(RdbFormatError, "listpack entry runs past the end")
        return p + size

    def zl_entry(self, p, stop):
        """Decode the ziplist entry at p; return the next position (src/ziplist.c)."""
        if self.blob[p] == 0xFE:
            p += 5
        else:
            p += 1
        if p >= stop:
            self.fail(RdbFormatError, "ziplist entry runs past the end")
        b = self.blob[p]
        kind = b >> 6
        self.e_isint = False
        if kind == 0:
            self.e_len = b & 0x3F
            p += 1 + self.e_len
        elif kind == 1:
            if p + 2 > stop:
                self.fail(RdbFormatError, "ziplist entry runs past the end")
            self.e_len = ((b & 0x3F) << 8) | self.blob[p + 1]
            p += 2 + self.e_len
        elif kind == 2:
            if p + 5 > stop:
                self.fail(RdbFormatError, "ziplist entry runs past the end")
            self.e_len = u32_be(self.blob, p + 1)
            p += 5 + self.e_len
        else:
            self.e_isint = True
            nbytes = 0
            if b == 0xC0:
                nbytes = 2
            elif b == 0xD0:
                nbytes = 4
            elif b == 0xE0:
                nbytes = 8
            elif b == 0xF0:
                nbytes = 3
            elif b == 0xFE:
                nbytes = 1
            elif b >= 0xF1 and b <= 0xFD:
                self.e_int = (b & 0x0F) - 1
            else:
                self.fail(RdbFormatError, f"bad ziplist entry encoding 0x{b:02X}")
            if nbytes:
                if p + 1 + nbytes > stop:
                    self.fail(RdbFormatError, "ziplist entry runs past the end")
                v = 0
                i = nbytes
                while i > 0:
                    v = (v << 8) | self.blob[p + i]
                    i -= 1
                self.e_int = to_signed(v, nbytes)
            self.e_len = int_text_len(self.e_int)
            p += 1 + nbytes
        if p > stop:
            self.fail(RdbFormatError, "ziplist entry runs past the end")
        return p

    def packed_header(self, start, length, listpack):
        """Check a listpack's or ziplist's header against its bytes; return the entry count it gives.

        Both start with their total size (uint32) and end with 0xFF; the count
        (uint16, 65535 when unknown) follows at byte 4 of a listpack and byte 8
        of a ziplist (src/listpack.c, src/ziplist.c).
        """
        name = "listpack" if listpack else "ziplist"
        header = 6 if listpack else 10
        if length < header + 1:
            self.fail(RdbFormatError, f"{name} of {length} bytes is shorter than its header")
        total = u32_le(self.blob, start)
        if total != length:
            self.fail(RdbFormatError, f"{name} header says {total} bytes, the string holds {length}")
        if self.blob[start + length - 1] != 0xFF:
            self.fail(RdbFormatError, f"{name} does not end with its terminator")
        return self.blob[start + header - 2] | (self.blob[start + header - 1] << 8)

    def walk_packed(self, start, length, group, listpack):
        """Walk every entry of a listpack or ziplist, folding them into elements of ``group``."""
        count = self.packed_header(start, length, listpack)
        stop = start + length - 1
        p = start + (6 if listpack else 10)
        i = 0
        self.w_max = 0
        self.w_ttl = 0
        self.w_acc = 0
        while p < stop:
            if listpack:
                p = self.lp_entry(p, stop)
            else:
                p = self.zl_entry(p, stop)
            self._group_entry(i, group)
            i += 1
        if count != 65535 and count != i:
            name = "listpack" if listpack else "ziplist"
            self.fail(RdbFormatError, f"{name} header counts {count} entries, it holds {i}")
        self._finish_group(i, group)

    def walk_intset(self, start, length):
        if length < 8:
            self.fail(RdbFormatError, f"intset of {length} bytes is shorter than its header")
        width = u32_le(self.blob, start)
        count = u32_le(self.blob, start + 4)
        self.check_intset_header(width, count, length)
        self.w_n = count
        self.w_max = 0
        self.w_ttl = 0
        if count:
            # Sorted ascending (src/intset.c), so the longest text is the first or the last.
            for k in range(2):
                p = start + 8 + k * (count - 1) * width
                v = 0
                i = width - 1
                while i >= 0:
                    v = (v << 8) | self.blob[p + i]
                    i -= 1
                n = int_text_len(to_signed(v, width))
                if n > self.w_max:
                    self.w_max = n

    def check_intset_header(self, width, count, length):
        """An intset's header: its integer width and count must make ``length`` bytes (src/intset.c)."""
        if width != 2 and width != 4 and width != 8:
            self.fail(RdbFormatError, f"intset with bad integer width {width}")
        if count > length or 8 + count * width != length:
            self.fail(RdbFormatError, f"intset header counts {count} integers of {width} bytes, "
                                      f"the string holds {length} bytes")

    def walk_zipmap(self, start, length):
        """Walk a zipmap (Redis < 2.6 hashes, src/zipmap.c)."""
        stop = start + length
        if length < 2:
            self.fail(RdbFormatError, "zipmap shorter than its header")
        p = start + 1
        n = 0
        self.w_max = 0
        self.w_ttl = 0
        while True:
            if p >= stop:
                self.fail(RdbFormatError, "zipmap runs past its end")
            if self.blob[p] == 0xFF:
                break
            pair = 0
            for side in range(2):
                if p >= stop:
                    self.fail(RdbFormatError, "zipmap runs past its end")
                b = self.blob[p]
                if b < 254:
                    ln = b
                    p += 1
                elif b == 254:
                    if p + 5 > stop:
                        self.fail(RdbFormatError, "zipmap runs past its end")
                    ln = u32_le(self.blob, p + 1)
                    p += 5
                else:
                    self.fail(RdbFormatError, "zipmap ends inside an entry")
                if side == 1:
                    if p >= stop:
                        self.fail(RdbFormatError, "zipmap runs past its end")
                    ln_free = self.blob[p]
                    p += 1
                    p += ln + ln_free
                else:
                    p += ln
                pair += ln
            if p > stop:
                self.fail(RdbFormatError, "zipmap runs past its end")
            if pair > self.w_max:
                self.w_max = pair
            n += 1
        if p != stop - 1:
            self.fail(RdbFormatError, "zipmap has bytes after its terminator")
        count = self.blob[start]
        if count < 254 and count != n:
            self.fail(RdbFormatError, f"zipmap header counts {count} pairs, it holds {n}")
        self.w_n = n

    # ------------------------------------------------------------------ values

    def read_value(self, rdbtype):
        """Measure one value of RDB type ``rdbtype``; leave results in r_*.

        The context of an error here is named from the type (VALUE_NAMES), so
        nothing is spent on it per key.
        """
        self.context = None
        self.value_type = rdbtype
        self.r_ttl_fields = 0
        self.r_no_counts = False
        self.m_elems = 0
        self.m_blob = 0
        self.m_nodes = 0
        if rdbtype == 0:
            self.skip_string(True)
            self.r_type = T_STRING
            self.r_n = self.slen
            self.r_max = self.slen
            if self.sint:
                self.r_enc = E_INT
            else:
                self.r_enc = self.string_encoding(self.slen)
        elif rdbtype == 1 or rdbtype == 2:
            self.r_type = T_LIST if rdbtype == 1 else T_SET
            self.r_enc = E_LINKEDLIST if rdbtype == 1 else E_HASHTABLE
            n = self.read_count()
            mx = 0
            i = 0
            while i < n:
                self.skip_string(False)
                if self.slen > mx:
                    mx = self.slen
                self.m_elems += self.mm.set_member(self.slen)
                i += 1
            self.r_n = n
            self.r_max = mx
        elif rdbtype == 3 or rdbtype == 5:
            self.r_type = T_ZSET
            self.r_enc = E_SKIPLIST
            n = self.read_count()
            mx = 0
            i = 0
            while i < n:
                self.skip_string(False)
                if self.slen > mx:
                    mx = self.slen
                self.m_elems += self.mm.zset_member(self.slen)
                if rdbtype == 5:
                    self.skip(8)
                else:
                    b = self.u8()
                    if b < 253:
                        self.skip(b)
                i += 1
            self.r_n = n
            self.r_max = mx
        elif rdbtype == 4:
            self.read_hash_pairs(0)
        elif rdbtype == 22:
            if self.valkey:
                self.read_hash_pairs(3)  # Valkey 9 hash with per-field expiry
            else:
                self.read_hash_pairs(1)  # Redis 7.4 RC: absolute field TTLs
        elif rdbtype == 24:
            self.skip(8)  # minimum field expiry
            self.read_hash_pairs(2)
        elif rdbtype < 26 and COMPACT[rdbtype] is not None and not (rdbtype == 23 and self.valkey):
            kind, group, rtype, renc = COMPACT[rdbtype]
            if rdbtype == 25:
                self.skip(8)  # minimum field expiry
            self.walk_blob(kind, group)
            self.set_walked(rtype, renc)
        elif rdbtype == 14 or rdbtype == 18:
            self.read_quicklist(rdbtype == 18)
        elif rdbtype == 15 or rdbtype == 19 or rdbtype == 21 or rdbtype == 26 or rdbtype == 27:
            self.read_stream(rdbtype)
        elif rdbtype == 7:
            self.r_module_id = self.read_plain_len()
            self.skip_module_value()
            self.r_type = T_MODULE
            self.r_enc = E_RAW  # OBJECT ENCODING of a module value
            self.r_no_counts = True
            self.r_n = 0
            self.r_max = 0
        elif rdbtype == 6:
            self.fail(RdbUnsupportedError,
                      "module value in the 4.0 release-candidate format (type 6), which cannot be "
                      "skipped without the module that wrote it")
        elif rdbtype == 28:
            self.read_array()
        elif rdbtype == 29:
            self.read_plain_len()
            self.r_type = T_GCRA
            self.r_enc = E_GCRA
            self.r_no_counts = True
            self.r_n = 0
            self.r_max = 0
        else:
            self.fail(RdbUnsupportedError, f"unknown object type {rdbtype}")

    def set_walked(self, rtype, renc):
        self.r_type = rtype
        self.r_enc = renc
        self.r_n = self.w_n
        self.r_max = self.w_max
        self.r_ttl_fields = self.w_ttl

    def string_encoding(self, n):
        """embstr or raw for a non-integer string of n bytes on the writing server."""
        if self.writer_valkey_ver >= 901 or (self.writer_unstable and self.valkey):
            # Valkey 9.1 embeds key, expiry and value in one allocation of at
            # most 128 bytes (src/object.c shouldEmbedStringObject).
            k = self.cur_klen
            if k < 32:
                khdr = 1
            elif k <= 252:
                khdr = 3
            elif k <= 65530:
                khdr = 5
            else:
                khdr = 9
            size = 8 + khdr + k + 1 + 1 + (n + 4)
            if self.has_expire:
                size += 8
            return E_EMBSTR if size <= 128 else E_RAW
        if (self.writer_redis_ver >= 800 or self.writer_valkey_ver >= 801) and n <= 44:
            # Redis 8 and Valkey 8.1-9.0 embed the key too and keep the object within
            # one 64-byte cache line (src/object.c kvobjSet); Valkey 8.0 keeps the key
            # in the dict entry and the 44-byte limit of Redis 7. Redis 8.2 and Valkey
            # 9.0 count the expiry field in it; Redis 8.6 places it before the
            # object and does not, and Valkey 8.1 sets it after the object is made.
            size = 16 + (self.cur_klen + 3) + (n + 4)
            if self.has_expire and (self.writer_valkey_ver >= 900 or
                                                (self.writer_valkey_ver == 0 and self.writer_redis_ver < 806)):
                size += 8
            return E_EMBSTR if size <= 64 else E_RAW
        # embstr_limit is -1 for Redis 2.x: test the sign first, n is unsigned in C.
        return E_EMBSTR if self.embstr_limit >= 0 and n <= self.embstr_limit else E_RAW

    def read_hash_pairs(self, ttl_mode):
        """A hash stored as pairs: 0 plain, 1 Redis RC absolute TTL before each
        pair, 2 Redis 7.4 relative TTL before each pair, 3 Valkey 9 expiry after."""
        n = self.read_count()
        mx = 0
        ttl = 0
        i = 0
        while i < n:
            field_ttl = False
            if ttl_mode == 1 or ttl_mode == 2:
                if self.read_plain_len() != 0:
                    field_ttl = True
            self.skip_string(False)
            field = self.slen
            self.skip_string(False)
            pair = field + self.slen
            if ttl_mode == 3:
                if self.le_signed(8) != -1:
                    field_ttl = True
            if field_ttl:
                ttl += 1
            self.m_elems += self.mm.hash_pair(field, self.slen, field_ttl)
            if pair > mx:
                mx = pair
            i += 1
        self.r_type = T_HASH
        self.r_enc = E_HASHTABLE
        self.r_n = n
        self.r_max = mx
        self.r_ttl_fields = ttl

    def read_quicklist(self, v2):
        nodes = self.read_count()
        total = 0
        mx = 0
        packed = 0
        i = 0
        while i < nodes:
            container = 2
            if v2:
                container = self.read_plain_len()
            if container == 1:  # a plain node holds one big element
                self.skip_string(False)
                total += 1
                if self.slen > mx:
                    mx = self.slen
                self.m_elems += self.mm.list_node_bytes(i, nodes, self.slen, self.m_lzf)
            elif container == 2:
                packed += 1
                self.walk_blob(B_LISTPACK if v2 else B_ZIPLIST, W_SINGLE)
                self.m_elems += self.mm.list_node_bytes(i, nodes, self.m_blob, self.m_lzf)
                total += self.w_n
                if self.w_max > mx:
                    mx = self.w_max
            else:
                self.fail(RdbFormatError, f"unknown quicklist node container {container}")
            i += 1
        self.r_type = T_LIST
        self.r_enc = E_QUICKLIST
        self.m_nodes = nodes
        # Redis 7.2+ keeps small lists as one listpack and saves them as a
        # one-node quicklist (src/rdb.c rdbSaveObject).
        if v2 and nodes == 1 and packed == 1 and self.writer_redis_ver >= 702:
            self.r_enc = E_LISTPACK
        self.r_n = total
        self.r_max = mx

    def read_stream(self, rdbtype):
        nodes = self.read_count()
        # Redis up to 8.2 counts its radix trees by their nodes: count them.
        counting = self.mm is not None
        index = RaxNodes(self.mm) if counting else None
        mx = 0
        i = 0
        while i < nodes:
            if index is not None:
                self.ensure(1 + ID_BYTES)
                if self.view[self.pos] == ID_BYTES:  # a plain 16-byte string: the node's first ID
                    index.add(self.view, self.pos + 1)
            self.skip_string(False)
            if self.slen != 16:
                self.fail(RdbFormatError, f"stream node key of {self.slen} bytes, 16 expected")
            if self.read_len():
                if self.lv != 3:
                    self.fail(RdbFormatError, "an integer where a stream listpack was expected")
                clen = self.read_count()
                ulen = self.read_count()
                self.decompress_blob(B_LISTPACK, clen, ulen)
                self.blob = self.sview
                self.walk_stream_listpack(0, ulen)
                self.m_blob += self.mm.stream_listpack(ulen)
            else:
                n = self.lv
                if n > MAX_BLOB:
                    self.fail(RdbFormatError, f"absurd blob length {n}")
                self.ensure(n)
                self.blob = self.view
                self.walk_stream_listpack(self.pos, n)
                self.blob = None
                self.pos += n
                self.m_blob += self.mm.stream_listpack(n)
            if self.w_max > mx:
                mx = self.w_max
            i += 1
        if self.mm is not None:
            self.m_elems += self.mm.rax_size(nodes, index.nodes, index.alloc_bytes())
        length = self.read_count()
        self.read_plain_len()  # last id ms
        self.read_plain_len()  # last id seq
        if rdbtype >= 19:
            for _ in range(5):  # first id, max deleted id, entries added
                self.read_plain_len()
        groups = self.read_count()
        # Redis 8.4+ index pending ids once for all groups: count the ids an
        # earlier group already holds (only when there are several groups).
        indexed = set() if groups > 1 and self.mm is not None and self.mm.tracked else None
        g = 0
        while g < groups:
            self.skip_string(False)  # group name
            self.read_plain_len()
            self.read_plain_len()
            if rdbtype >= 19:
                self.read_plain_len()  # entries read
            pel = self.read_count()
            shared = 0
            group_tree = RaxNodes(self.mm) if counting else None
            j = 0
            while j < pel:
                if group_tree is not None:
                    self.ensure(ID_BYTES)
                    group_tree.add(self.view, self.pos)
                if indexed is not None:
                    self.ensure(16)
                    pending_id = bytes(self.view[self.pos:self.pos + 16])
                    if pending_id in indexed:
                        shared += 1
                    else:
                        indexed.add(pending_id)
                self.skip(16 + 8)  # raw id, delivery time
                self.read_plain_len()  # delivery count
                j += 1
            consumers = self.read_count()
            c = 0
            while c < consumers:
                self.skip_string(False)
                name = self.slen
                self.skip(16 if rdbtype >= 21 else 8)  # seen time (+ active time)
                cpel = self.read_count()
                if counting:
                    pel_tree = RaxNodes(self.mm)
                    j = 0
                    while j < cpel:
                        self.ensure(ID_BYTES)
                        pel_tree.add(self.view, self.pos)
                        self.pos += ID_BYTES
                        j += 1
                    self.m_elems += self.mm.stream_consumer(name, cpel, pel_tree.nodes, pel_tree.alloc_bytes())
                else:
                    self.skip(16 * cpel)
                c += 1
            nacked = 0
            if rdbtype >= 27:
                nacked = self.read_count()
                self.skip(16 * nacked)  # NACKed ids
            if group_tree is not None:
                self.m_elems += self.mm.stream_group(pel, shared, nacked, group_tree.nodes, group_tree.alloc_bytes())
            g += 1
        if rdbtype >= 26:
            self.read_plain_len()  # idmp duration
            self.read_plain_len()  # idmp max entries
            producers = self.read_count()
            pids = [] if counting else None
            p = 0
            while p < producers:
                if pids is not None:
                    pids.append(self.read_bytes_object())
                else:
                    self.skip_string(False)
                iids = self.read_count()
                j = 0
                while j < iids:
                    self.skip_string(False)
                    if counting:
                        self.m_elems += self.mm.idmp_entry(self.slen)
                    self.read_plain_len()
                    self.read_plain_len()
                    j += 1
                p += 1
            if pids:
                self.m_elems += self.mm.idmp_producers(pids)
            self.read_plain_len()  # iids added
            self.read_plain_len()  # iids duplicates
        self.r_type = T_STREAM
        self.r_enc = E_STREAM
        self.m_nodes = nodes
        self.r_n = length
        self.r_max = mx

    def lp_int(self, p, stop):
        """Decode a listpack entry that must be an integer; return the next position."""
        p = self.lp_entry(p, stop)
        if not self.e_isint:
            self.fail(RdbFormatError, "stream listpack has a string where an integer belongs")
        return p

    def walk_stream_listpack(self, start, length):
        """Count live entries and the largest one in a stream node (src/t_stream.c)."""
        self.packed_header(start, length, True)
        stop = start + length - 1
        p = start + 6
        p = self.lp_int(p, stop)
        count = self.e_int
        p = self.lp_int(p, stop)
        deleted = self.e_int
        p = self.lp_int(p, stop)
        nmf = self.e_int
        if nmf < 0:
            self.fail(RdbFormatError, "stream node with a negative field count")
        master = 0
        i = 0
        while i < nmf:
            if p >= stop:
                self.fail(RdbFormatError, "stream master entry runs past the listpack")
            p = self.lp_entry(p, stop)
            master += self.e_len
            i += 1
        if p >= stop:
            self.fail(RdbFormatError, "stream master entry runs past the listpack")
        p = self.lp_entry(p, stop)  # master terminator
        live = 0
        dead = 0
        mx = 0
        while p < stop:
            p = self.lp_int(p, stop)
            flags = self.e_int
            if p >= stop:
                break
            p = self.lp_int(p, stop)  # ms delta
            if p >= stop:
                break
            p = self.lp_int(p, stop)  # seq delta
            size = 0
            if flags & 2:  # same fields as the master entry
                size = master
                i = 0
                while i < nmf and p < stop:
                    p = self.lp_entry(p, stop)
                    size += self.e_len
                    i += 1
            else:
                if p >= stop:
                    break
                p = self.lp_int(p, stop)
                nf = self.e_int
                i = 0
                while i < 2 * nf and p < stop:
                    p = self.lp_entry(p, stop)
                    size += self.e_len
                    i += 1
            if p >= stop:
                break
            p = self.lp_entry(p, stop)  # lp-count
            if flags & 1:
                dead += 1
            else:
                live += 1
                if size > mx:
                    mx = size
        if p != stop or live != count or dead != deleted:
            self.fail(RdbFormatError, f"stream listpack header counts {count} live and {deleted} deleted "
                                      f"entries, it holds {live} and {dead}")
        self.w_n = live
        self.w_max = mx

    def skip_module_value(self):
        """Walk the self-describing opcodes of a module value up to its EOF."""
        while True:
            op = self.read_plain_len()
            if op == 0:
                return 0
            if op == 1 or op == 2:
                self.read_len()
            elif op == 3:
                self.skip(4)
            elif op == 4:
                self.skip(8)
            elif op == 5:
                self.skip_string(False)
            else:
                self.fail(RdbFormatError, f"unknown module value opcode {op}")

    def read_array(self):
        """Redis 8.8 ARRAY: count, insert cursor, then (index, tag, value) triples in index order.

        Loading sets them one by one into slices of 4096 indexes (src/rdb.c rdbLoadObject): what
        each slice allocates follows from its count and its first, tenth and last offsets.
        """
        n = self.read_count()
        mx = 0
        elems = 0
        if n:
            if self.read_plain_len():
                self.read_plain_len()
            cur = 0
            in_slice = 0
            first = 0
            tenth = 0
            last = 0
            blocks = 0
            i = 0
            while i < n:
                index = self.read_plain_len()
                tag = self.read_plain_len()
                if tag == 1:
                    v = self.le_signed(8)
                    ln = int_text_len(v)
                    if v < -ARRAY_INT_LIMIT or v >= ARRAY_INT_LIMIT:  # past the tagged word: a string
                        elems += self.mm.array_string(ln)
                elif tag == 2:
                    self.ensure(8)
                    ln = len(_double_text(bytes(self.buf[self.pos:self.pos + 8])))
                    self.pos += 8
                elif tag == 0 or tag == 3:
                    self.skip_string(False)
                    ln = self.slen
                    elems += self.mm.array_string(ln)
                else:
                    self.fail(RdbFormatError, f"unknown array element tag {tag}")
                if ln > mx:
                    mx = ln
                slice_id = index >> 12
                offset = index & 4095
                if i == 0 or slice_id != cur:
                    if i:
                        elems += self.mm.array_slice(in_slice, first, tenth, last)
                    if i == 0 or (slice_id >> 11) != (cur >> 11):
                        blocks += 1
                    cur = slice_id
                    in_slice = 0
                    first = offset
                in_slice += 1
                if in_slice == 10:
                    tenth = offset
                last = offset
                i += 1
            elems += self.mm.array_slice(in_slice, first, tenth, last) + self.mm.array_directory(cur, blocks)
        self.r_type = T_ARRAY
        self.r_enc = E_ARRAY
        self.r_n = n
        self.r_max = mx
        self.m_elems = elems

    # ------------------------------------------------------------------ file structure

    def read_header(self):
        """Read the magic and version; raise for files that are not RDB."""
        self.context = "magic"
        self.ensure(5)
        head = bytes(self.buf[self.pos:self.pos + 5])
        if head == b"REDIS":
            self.ensure(9)
            digits = bytes(self.buf[self.pos + 5:self.pos + 9])
            self.valkey = False
        elif head == b"VALKE":
            self.ensure(9)
            if self.buf[self.pos + 5] != 89:  # 'Y'
                self.fail(RdbFormatError, "not an RDB file: the magic is neither REDIS nor VALKEY")
            digits = bytes(self.buf[self.pos + 6:self.pos + 9])
            self.valkey = True
        else:
            self.fail(RdbFormatError, f"not an RDB file: magic {head!r}, expected b'REDIS' or b'VALKEY'")
        if not digits.isdigit():
            self.fail(RdbFormatError, f"bad RDB version {digits!r}")
        self.version = int(digits)
        known = (self.version in range(1, 15)) if not self.valkey else (self.version == 80)
        if not known and not self.relaxed_version:
            name = "VALKEY" if self.valkey else "REDIS"
            self.fail(RdbUnsupportedError,
                      f"unsupported RDB version {self.version} ({name} magic); rdbscope reads REDIS 1-14 "
                      f"and VALKEY 80 (relaxed_version=True reads a newer file with the newest rules)")
        if self.valkey and self.version >= 81 and not self.relaxed_version:
            self.fail(RdbUnsupportedError, f"unsupported RDB version {self.version}")
        self.pos += 9
        # Until an AUX field names the writer, the oldest Redis that wrote this
        # RDB version stands in for it (RDB < 7 has no AUX fields at all).
        self.writer_redis_ver = writer_for_rdb_version(self.version)
        self.embstr_limit = embstr_limit_for(self.writer_redis_ver)
        self.context = "file"

    def set_writer(self, key, value):
        """Adopt what an AUX field says about the server that wrote the dump."""
        parts = writer_version(value)
        if parts is None:
            return
        ver = parts[0] * 100 + parts[1]
        if parts[0] == 255 and self.named_version:
            # An unstable build whose release the caller named: that release, of the
            # server the AUX field names.
            self.writer_named = True
            ver = self.named_version
        elif parts[0] == 255:
            # An unstable build (255.255.255) is newer than every release: the
            # newest server that writes this RDB version stands in for it.
            self.writer_unstable = True
            if key == b"valkey-ver":
                # Valkey 8.1 is the newest to write the REDIS magic.
                self.writer_valkey_ver = NEWEST_VALKEY if self.valkey else NEWEST_VALKEY_REDIS_MAGIC
                if self.writer_redis_ver < 702:
                    self.writer_redis_ver = 702
            elif self.writer_valkey_ver == 0:
                self.writer_redis_ver = newest_writer_for_rdb_version(self.version)
            return
        if key == b"redis-ver":
            self.writer_redis_ver = ver
            self.embstr_limit = embstr_limit_for(ver)
        elif key == b"valkey-ver":
            self.writer_valkey_ver = ver
            if self.writer_redis_ver < 702:
                self.writer_redis_ver = 702

    def read_aux_like(self, op):
        """Read a metadata opcode. Returns True at EOF."""
        if op == OP_AUX:
            self.context = "AUX field"
            k = self.read_bytes_object()
            v = self.read_bytes_object()
            self.aux.append((k, v))
            if k == b"redis-ver" or k == b"valkey-ver":
                self.set_writer(k, v)
        elif op == OP_RESIZEDB:
            self.context = "RESIZEDB"
            a = self.read_plain_len()
            b = self.read_plain_len()
            self.resizedb.append((self.db, a, b))
        elif op == OP_SLOT_INFO:
            self.context = "SLOT_INFO"
            a = self.read_plain_len()
            b = self.read_plain_len()
            c = self.read_plain_len()
            self.slot_info.append((self.db, a, b, c))
        elif op == OP_MODULE_AUX:
            self.context = "MODULE_AUX"
            mid = self.read_plain_len()
            when_op = self.read_plain_len()
            when = self.read_plain_len()
            if when_op != 2:
                self.fail(RdbFormatError, f"module aux 'when' opcode {when_op}, 2 expected")
            self.skip_module_value()
            self.module_aux.append((mid, when))
        elif op == OP_FUNCTION_PRE_GA:
            self.context = "FUNCTION (7.0 RC format)"
            name = self.read_bytes_object()
            engine = self.read_bytes_object()
            if self.read_plain_len():
                self.read_bytes_object()
            code = self.read_bytes_object()
            self.functions.append((name, engine, code))
        elif op == OP_FUNCTION2:
            self.context = "FUNCTION2"
            code = self.read_bytes_object()
            self.functions.append((None, None, code))
        elif op == OP_KEY_META and self.valkey:
            self.context = "SLOT_IMPORT"
            name = self.read_bytes_object()
            ranges = []
            nr = self.read_count()
            for _ in range(nr):
                a = self.read_plain_len()
                b = self.read_plain_len()
                ranges.append((a, b))
            self.slot_imports.append((name, ranges))
        else:
            return False
        return True

    def skip_key_meta(self):
        """Redis 8.6 KEY_META: module metadata classes before a key's type byte."""
        self.context = "KEY_META"
        classes = self.read_count()
        i = 0
        while i < classes:
            self.skip(4)  # class spec: 4-char name, version, flags
            self.skip_module_value()
            i += 1
        self.key_meta_entries += 1

    def key_of_entry(self, at):
        """The key of the entry that starts at byte ``at`` (its ``offset``), after ``read_header()`` on a
        seekable stream: past the entry's expiry, LRU/LFU and key-metadata opcodes and its type byte."""
        self.src.seek(at)
        self.base = at
        self.pos = 0
        self.end = 0
        self.eof = False
        self.context = "entry"
        op = self.u8()
        while True:
            if op == OP_EXPIRETIME_MS:
                self.skip(8)
            elif op == OP_EXPIRETIME:
                self.skip(4)
            elif op == OP_FREQ:
                self.skip(1)
            elif op == OP_IDLE:
                self.read_plain_len()
            elif op == OP_KEY_META and not self.valkey:
                self.skip_key_meta()
            else:
                break
            self.context = "entry"
            op = self.u8()
        if not self.known_type(op):
            self.pos -= 1
            self.fail(RdbFormatError, f"no entry starts here: {op} is not an object type")
        self.context = "key"
        return self.read_bytes_object()

    def finish(self):
        """Read the checksum after the EOF opcode (RDB 5+) and verify it."""
        self.context = "checksum"
        if self.version >= 5:
            if self.verify_crc:
                if self.crc_worker is not None:
                    self.crc = self.crc_worker.crc_until(self.base + self.pos)
                else:
                    self.crc = crc64_update(self.crc, self.view, self.crc_pos, self.pos)
                self.crc_pos = self.pos
            stored = self.le(8)
            self.checksum = stored
            if self.verify_crc and stored != 0:
                if stored != self.crc:
                    self.pos -= 8
                    self.fail(RdbFormatError,
                              f"CRC64 mismatch: the file says {stored:016x}, the data gives {self.crc:016x}")
                self.checksum_verified = True
        self.done = True

    def module_index(self, module_id):
        """Index of a module id in ``module_names`` (module keys are rare: Python is fine)."""
        index = self.module_ids.get(module_id)
        if index is None:
            from .format import module_type_name

            index = len(self.module_names)
            self.module_ids[module_id] = index
            self.module_names.append(module_type_name(module_id))
        return index

    def scan_batch(self):
        """Scan up to batch_rows more keys into the current batch; return how many were kept.

        ``full`` then says whether the batch can take no more (hand it over and
        call new_batch()), ``done`` whether the dump has ended.
        """
        if self.whole:
            self._release_behind()
        self._warm_ahead()
        with cython.nogil:
            pass  # let the helper threads take the GIL they need to start their work
        first = self.rows
        stop = self.rows + self.batch_rows
        # A batch read past keeps no row, only where each ends (keep_rows_before reads that).
        unfiltered = self.want_db is None and self.want_types is None and self.key_filter is None
        past = self.reading_past and unfiltered
        plain = not self.reading_past and unfiltered  # plain string records may take the path without the GIL
        run = FAST_RUN_NOGIL
        while self.rows < stop and not self.full and not self.done:
            if self.klen > self.key_limit:
                self.full = True
                break
            if plain and self.prefix_start < 0 and self.mm is not None and self.cap > 0:
                if run >= FAST_RUN_NOGIL:
                    with cython.nogil:
                        run = self.scan_strings(stop)
                else:
                    run = self.scan_strings(stop)
                if self.rows >= stop or self.full:
                    break
            start = self.base + self.pos
            self.context = "opcode"
            op = self.u8()
            if op >= 243 and not (op == OP_KEY_META and not self.valkey):
                if op == OP_EXPIRETIME_MS:
                    if self.prefix_start < 0:
                        self.prefix_start = start
                    self.context = "expire time"
                    self.expire_ms = self.le_signed(8)
                    self.has_expire = True
                elif op == OP_EXPIRETIME:
                    if self.prefix_start < 0:
                        self.prefix_start = start
                    self.context = "expire time"
                    self.expire_ms = self.le_signed(4) * 1000
                    self.has_expire = True
                elif op == OP_FREQ:
                    if self.prefix_start < 0:
                        self.prefix_start = start
                    self.lfu = self.u8()
                elif op == OP_IDLE:
                    if self.prefix_start < 0:
                        self.prefix_start = start
                    self.context = "idle time"
                    self.idle = self.read_plain_len()
                elif op == OP_SELECTDB:
                    self.context = "SELECTDB"
                    db = self.read_plain_len()
                    if db > 2147483647:
                        self.fail(RdbFormatError, f"absurd db number {db}")
                    self.db = db
                    self.db_keys = 0
                elif op == OP_EOF:
                    self.finish()
                elif not self.read_aux_like(op):
                    self.pos -= 1
                    self.fail(RdbUnsupportedError, f"unknown opcode {op}")
                continue
            if op == OP_KEY_META:
                if self.prefix_start < 0:
                    self.prefix_start = start
                self.skip_key_meta()
                start = self.base + self.pos
                op = self.u8()
            if self.prefix_start >= 0:
                start = self.prefix_start
            if not self.known_type(op):
                self.pos -= 1
                self.fail(RdbUnsupportedError, f"unknown object type or opcode {op}")
            if self.mm is None:
                self.mm = self.memory_model_for(self)
            if self.cap == 0:
                self._alloc_columns()
            self.db_keys += 1
            kstart = self.klen
            self.r_module_id = 0
            simple = op == 0 and (self.skip_string_record() if past else self.read_string_record())
            if not simple:
                self.context = "key"
                self.cur_klen = self.read_key()
                self.cur_kstart = kstart
                self.read_value(op)
                self.cur_kstart = -1
                self.context = "file"
            if past:
                r = self.rows
                self.klen = kstart
                self.c_koff[r + 1] = kstart
                self.c_offset[r] = start
                self.c_rdb_bytes[r] = self.base + self.pos - start
                self.rows = r + 1
                if self.rows == self.cap:
                    self.full = True
            elif self.keep_row(kstart):
                est = 0
                if self.estimating and self.r_type != T_STRING:
                    est = self.mm.estimate(self.cur_klen, self.has_expire, self.r_type, self.r_enc,
                                           self.value_type, self.r_n, self.m_blob, self.m_elems,
                                           self.m_nodes, self.r_ttl_fields)
                self.store_row(start, est, self.module_index(self.r_module_id) if self.r_module_id else -1)
            else:
                self.klen = kstart
            self.has_expire = False
            self.lfu = -1
            self.idle = -1
            self.prefix_start = -1
        return self.rows - first

    def string_cost(self):
        """The model's estimate of the current string key, remembered by its inputs.

        String keys come in few shapes (key length, value length, encoding,
        expiry), and neighbours often share one: the last shape is kept.
        """
        has_expire = self.has_expire
        if (self.cur_klen == self.sc_klen and self.r_n == self.sc_n and self.r_enc == self.sc_enc
                and has_expire == self.sc_expire):
            return self.sc_est
        est = self.mm.string_size(self.cur_klen, has_expire, self.r_enc, self.r_n)
        self.sc_klen = self.cur_klen
        self.sc_n = self.r_n
        self.sc_enc = self.r_enc
        self.sc_expire = has_expire
        self.sc_est = est
        return est

    def store_row(self, start, est, module):
        """Store the key just read as the next row: it starts at ``start``; ``est``: the model's estimate of a
        key that is not a string (a string's is :meth:`string_cost`); ``module``: its module's index, or -1."""
        r = self.rows
        byte = r >> 3
        bit = 1 << (r & 7)
        self.c_db[r] = self.db
        self.c_koff[r + 1] = self.klen
        self.c_type[r] = self.r_type
        self.c_enc[r] = self.r_enc
        if self.has_expire:
            self.c_expire[r] = self.expire_ms
            self.c_v_expire[byte] |= bit
        else:
            self.nulls_expire += 1
        self.c_rdb_bytes[r] = self.base + self.pos - start
        self.c_n[r] = self.r_n
        if self.r_max != self.r_n or not self.max_is_n:
            if self.max_is_n:
                self.max_is_n = False
                i = 0
                while i < r:
                    self.c_max[i] = self.c_n[i]
                    i += 1
            self.c_max[r] = self.r_max
        if self.r_no_counts:
            self.nulls_counts += 1
        else:
            self.c_v_counts[byte] |= bit
        if self.lfu >= 0:
            self.c_lfu[r] = self.lfu
            self.c_v_lfu[byte] |= bit
        else:
            self.nulls_lfu += 1
        if self.idle >= 0:
            self.c_idle[r] = self.idle
            self.c_v_idle[byte] |= bit
        else:
            self.nulls_idle += 1
        if module >= 0:
            self.c_module[r] = module
            self.c_v_module[byte] |= bit
        else:
            self.nulls_module += 1
        self.c_offset[r] = start
        if self.estimating:
            if self.r_type == T_STRING:
                est = self.string_cost()
            if est == 0:  # no model: a module value costs what it serializes to, at least
                est = self.base + self.pos - start
                self.c_est_fallback[byte] |= bit
            self.c_est[r] = est
        else:
            self.nulls_est += 1
        if self.r_type == T_HASH:
            self.c_ttl_fields[r] = self.r_ttl_fields
            self.c_v_ttl_fields[byte] |= bit
        else:
            self.nulls_ttl_fields += 1
        self.rows = r + 1
        if self.rows == self.cap:
            self.full = True

    def scan_strings(self, stop):
        """Read the plain string keys that come next (each perhaps after its expiry time), up to row ``stop``,
        into rows; return how many. It stops, having consumed nothing of it, at anything else: another
        opcode or type, a record not wholly in the buffer, or less room for keys than a key of the fast
        path can take. Needs no GIL: :meth:`scan_batch` lets the thread measuring the last chunk run."""
        first = self.rows
        while (self.rows < stop and not self.full and self.kcap - self.klen >= FAST_KEY_ROOM
               and self.klen <= self.key_limit):
            p = self.pos
            if self.end - p < 12:
                break
            op = self.view[p]
            self.has_expire = op == OP_EXPIRETIME_MS
            if self.has_expire:
                self.expire_ms = to_signed(le_at(self.view, p + 1, 8), 8)
                op = self.view[p + 9]
                self.pos = p + 10
            else:
                self.pos = p + 1
            if op != 0 or not self.read_string_record():
                self.pos = p
                self.has_expire = False
                break
            self.db_keys += 1
            self.store_row(self.base + p, 0, -1)
        self.has_expire = False
        return self.rows - first

    def known_type(self, t):
        """Object types this file's magic allows (src/rdb.h rdbIsObjectType)."""
        if t <= 21:
            return t != 8
        if self.valkey:
            return t == 22  # 23 (RDB 81) is written only by unstable builds: no release yet
        return t <= 29

    def keep_row(self, kstart):
        if self.want_db is not None and self.db not in self.want_db:
            return False
        if self.want_types is not None and self.r_type not in self.want_types:
            return False
        if self.key_filter is not None:
            return self.key_filter(self.keydata[kstart:self.klen].tobytes())
        return True

    def close(self):
        """Stop the helper threads and let go of the input buffer."""
        if self.crc_worker is not None:
            self.crc_worker.close()
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
        self.view = None
        self.blob = None
        self.buf = None

    def bytes_read(self):
        return self.base + self.pos


def _double_text(raw):
    """The text Redis gives for a binary double (shortest round-trip form)."""
    import struct

    value = struct.unpack("<d", raw)[0]
    text = repr(value)
    if text.endswith(".0"):
        text = text[: len(text) - 2]
    return text
