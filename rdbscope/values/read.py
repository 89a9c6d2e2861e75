"""Read the first bytes of a few keys' values again, at their entries' offsets in a dump.

The scan validated the dump; what is read here is only the start of each value (a string's first
``HEAD_BYTES``, a collection's first ``HEAD_ELEMENTS`` elements), a bounded number of bytes per key
(``ENTRY_READ_BYTES``). A plain file is read where each entry starts; a compressed one is decompressed
again in one pass, forward to each offset in turn. A URL's object is read the same way through a file
object that fetches a block ahead of each read (see :func:`ranged_block_size`), never the whole
object at once. An entry that cannot be read as expected gives no sample, quietly; a key that is not
the one the scan found at its offset means the dump changed since the scan (:class:`ChangedSinceScan`).
"""

import contextlib
import io
import logging
import os
from dataclasses import dataclass

import numpy as np

from .. import kernels
from ..compiled import chosen_module
from ..errors import RdbError
from ..rdb import format as rdb
from ..rdb.replication import is_server_url
from ..rdb.source import Source
from .entries import intset_entries, listpack_entries, ziplist_entries, zipmap_entries
from .sample import HEAD_BYTES, HEAD_ELEMENTS, ValueSample

log = logging.getLogger(__name__)

#: Bytes of one entry read at most: a value's elements past them are not sampled (and an element cut by
#: them is sampled as far as they reach).
ENTRY_READ_BYTES = 64 << 10
#: Share of the memory budget the samples may hold, together: they are read once the chunks have merged and
#: their memory is free again. Budgets of a gigabyte or less all give the samples SAMPLES_MIN_BYTES.
SAMPLES_BUDGET_SHARE = 4
SAMPLES_MIN_BYTES = 256 << 20
#: Bytes of one sample kept at least: a string's head, or a collection's first field and element.
SAMPLE_MIN_BYTES = 2 * HEAD_BYTES
#: What each bytes object of a sample costs beside its bytes (the object, its slot in a tuple).
OBJECT_BYTES = 48
#: Compressed bytes of a string read at most: enough for its first HEAD_BYTES (an LZF literal run
#: takes one byte more per 32).
LZF_HEAD_BYTES = HEAD_BYTES + HEAD_BYTES // 32 + 2
#: The most an LZF byte expands to (a 3-byte back reference copies up to 264 bytes).
LZF_MAX_RATIO = 88
lzf_decompress = chosen_module("rdb._lzf").lzf_decompress

#: Block sizes a plain dump read through a URL may be fetched in: each read past the block fetched last
#: fetches the next from where it starts. Small blocks for a few keys far apart, larger ones for many.
RANGED_BLOCK_BYTES = (64 << 10, 256 << 10, 1 << 20, 4 << 20)
#: What a request costs beside its bytes, in bytes: a round trip to a store nearby (some 5 ms) takes about as
#: long as 256 KiB of transfer (and where transfer is billed, bytes cost more than requests).
REQUEST_COST_BYTES = 256 << 10
#: Block size a compressed dump read through a URL is fetched in, decompressed forward.
FORWARD_BLOCK_BYTES = 4 << 20

# How a compact blob's entries form elements: one each (list, set), member and score (zset), field and
# value (hash), field, value and TTL (hash with field TTLs).
SINGLE, ZSET, HASH, HASH_TTL = 1, 2, 3, 4

#: The values stored as one compact blob, by RDB type: (entries reader, elements, type, encoding).
COMPACT = {
    rdb.TYPE_HASH_ZIPMAP: (zipmap_entries, HASH, "hash", "zipmap"),
    rdb.TYPE_LIST_ZIPLIST: (ziplist_entries, SINGLE, "list", "ziplist"),
    rdb.TYPE_SET_INTSET: (intset_entries, SINGLE, "set", "intset"),
    rdb.TYPE_ZSET_ZIPLIST: (ziplist_entries, ZSET, "zset", "ziplist"),
    rdb.TYPE_HASH_ZIPLIST: (ziplist_entries, HASH, "hash", "ziplist"),
    rdb.TYPE_HASH_LISTPACK: (listpack_entries, HASH, "hash", "listpack"),
    rdb.TYPE_ZSET_LISTPACK: (listpack_entries, ZSET, "zset", "listpack"),
    rdb.TYPE_SET_LISTPACK: (listpack_entries, SINGLE, "set", "listpack"),
    rdb.TYPE_HASH_LISTPACK_EX: (listpack_entries, HASH_TTL, "hash", "listpackex"),
}


@dataclass(frozen=True)
class Wanted:
    """One key whose value is to be read: where its entry starts, and its type, encoding and length as
    the keys table gives them (the sample repeats them)."""

    offset: int
    type: str
    encoding: str
    length: int
    key_hash: int | None = None  # the hash of its key's bytes (see kernels/_key_hashes.py), checked when given


class Unreadable(Exception):
    """The bytes at an offset are not what the entry there should be: no sample of it."""


class ChangedSinceScan(ValueError):
    """An entry is not the one the scan read at its offset: the dump changed since, and no sample of it holds."""


def reread_reason(path):
    """Why the dump at ``path`` (an input as given) cannot be read again for its values, or None when it can
    (a local file or a URL's object, plain or compressed)."""
    if path is None:
        return "the input cannot be read again"
    if path in ("-", "<stdin>"):
        return "standard input cannot be read again"
    path = os.fspath(path)
    if is_server_url(path):
        return "a running server's snapshot cannot be read again"
    if "://" in path:  # a URL's object: whether it is still there shows when it is read
        return None
    if not os.path.isfile(path):
        return f"{path} is not a file that can be read again"
    return None


def samples_bytes(budget):
    """Bytes the samples of a run within ``budget`` (None: none given) may hold together."""
    return max(SAMPLES_MIN_BYTES, (budget or 0) // SAMPLES_BUDGET_SHARE)


def sample_bytes(budget, n_keys):
    """Bytes one of ``n_keys`` samples keeps at most in a run within ``budget``: ENTRY_READ_BYTES while they
    fit :func:`samples_bytes`, less when they do not, SAMPLE_MIN_BYTES at least (see :func:`keys_read`)."""
    return int(min(ENTRY_READ_BYTES, max(SAMPLE_MIN_BYTES, samples_bytes(budget) // max(n_keys, 1))))


def keys_read(budget):
    """Keys whose samples fit :func:`samples_bytes` at SAMPLE_MIN_BYTES each: those of the largest patterns
    are read first."""
    return samples_bytes(budget) // SAMPLE_MIN_BYTES


def read_samples(path, wanted, open_url=None, keep_bytes=ENTRY_READ_BYTES):
    """``{offset: ValueSample}`` of the ``wanted`` keys (:class:`Wanted`) of the dump at ``path``; keys
    whose value is not sampled (a stream, a module value, an entry that cannot be read) are left out.
    ``open_url(block_size)``: for a URL, opens its object as a binary file object that fetches
    ``block_size`` bytes ahead of each read. Each sample keeps at most ``keep_bytes`` (its first elements
    that fit, each bytes object counted with OBJECT_BYTES).

    Raises:
        OSError, RdbError: the dump cannot be opened as a dump, or reading it failed.
        ChangedSinceScan: a wanted key with a ``key_hash`` is not at its offset.
    """
    wanted = sorted(wanted, key=lambda w: w.offset)
    samples = {}
    with _opened(path, [w.offset for w in wanted], open_url) as source:
        stream = _Stream(source.stream, seekable=source.compression is None)
        magic = stream.read(len(rdb.MAGIC_VALKEY))
        if not magic.startswith((rdb.MAGIC_REDIS, rdb.MAGIC_VALKEY)):
            raise ChangedSinceScan("it is no longer a dump (it does not start with REDIS or VALKEY)")
        valkey = magic == rdb.MAGIC_VALKEY
        for want in wanted:
            try:
                stream.go_to(want.offset)
                sample = _Entry(stream, valkey).sample(want, keep_bytes)
            # not OSError nor a bare ValueError: a failing store or file fails the whole dump, not each entry
            except (Unreadable, RdbError, EOFError, KeyError, IndexError, OverflowError) as exc:
                log.debug("no value sample at offset %d: %s", want.offset, exc)
                continue
            if sample is not None:
                samples[want.offset] = sample
    return samples


def ranged_block_size(offsets):
    """The size of :data:`RANGED_BLOCK_BYTES` that reads a plain dump at the sorted ``offsets`` at least cost,
    counting a block fetched at each offset past the last block fetched: requests times (their own cost
    plus the block)."""

    def cost(block):
        requests, end = 0, -1
        for offset in offsets:
            if offset >= end:
                requests, end = requests + 1, offset + block
        return requests * (REQUEST_COST_BYTES + block)

    return min(RANGED_BLOCK_BYTES, key=cost)


@contextlib.contextmanager
def _opened(path, offsets, open_url):
    """The :class:`Source` of the dump at ``path``: the local file, or through ``open_url`` the URL's object
    fetched in blocks sized for the ``offsets`` when plain, in blocks of FORWARD_BLOCK_BYTES when
    compressed (it is decompressed from its start)."""
    if open_url is None:
        with Source(os.fspath(path)) as source:
            yield source
        return
    raw = open_url(ranged_block_size(offsets))
    try:
        source = Source(raw)
        if source.compression is not None:
            source.close()
            raw.close()
            raw = open_url(FORWARD_BLOCK_BYTES)
            source = Source(raw)
        with source:
            yield source
        fetched = getattr(getattr(raw, "cache", None), "total_requested_bytes", None)
        log.info("%s read again for %d values: %s bytes fetched of %s", path, len(offsets), fetched,
                 getattr(raw, "size", None))
    finally:
        raw.close()


def _key_hash(key):
    """The hash of ``key``'s bytes, as the values pass computes it for the keys it chooses."""
    out = np.empty(1, np.uint64)
    data = np.frombuffer(key, np.uint8) if key else np.zeros(1, np.uint8)
    kernels.key_hashes.fill_key_hashes(np.array([0, len(key)], np.int32), data, out)
    return int(out[0])


class _Stream:
    """A dump read forward from offset to offset: by seeking in a plain file, by reading past in a
    decompressed one."""

    def __init__(self, raw, seekable):
        self.raw = raw
        self.seekable = seekable
        self.position = 0

    def go_to(self, offset):
        if offset < self.position and not self.seekable:
            raise Unreadable("offsets out of order")
        if self.seekable:
            self.raw.seek(offset)
            self.position = offset
        else:
            self.skip(offset - self.position)

    def read(self, n):
        data = self.raw.read(n) if n else b""
        if len(data) != n:
            raise EOFError(f"{n} bytes expected at {self.position}, {len(data)} left")
        self.position += n
        return data

    def skip(self, n):
        if self.seekable:
            self.raw.seek(n, io.SEEK_CUR)
            self.position += n
            return
        while n > 0:
            got = self.raw.read(min(n, 1 << 20))
            if not got:
                raise EOFError(f"the dump ends at {self.position}")
            n -= len(got)
            self.position += len(got)


class _Entry:
    """One entry read from its start: its opcodes, type, key, then the start of its value."""

    def __init__(self, stream, valkey):
        self.stream = stream
        self.valkey = valkey
        self.budget = ENTRY_READ_BYTES

    def read(self, n):
        if n > self.budget:
            raise Unreadable("past the bytes read per entry")
        self.budget -= n
        return self.stream.read(n)

    def u8(self):
        return self.read(1)[0]

    def length(self):
        """An RDB length, or ``(None, encoding)`` for a special string encoding (src/rdb.c rdbLoadLen)."""
        b = self.u8()
        kind = b >> 6
        if kind == 0:
            return b & 0x3F, None
        if kind == 1:
            return ((b & 0x3F) << 8) | self.u8(), None
        if b == 0x80:
            return int.from_bytes(self.read(4), "big"), None
        if b == 0x81:
            return int.from_bytes(self.read(8), "big"), None
        if kind == 3:
            return None, b & 0x3F
        raise Unreadable(f"bad length encoding 0x{b:02X}")

    def count(self):
        n, special = self.length()
        if n is None:
            raise Unreadable(f"a string encoding {special} where a length was expected")
        return n

    def string(self, limit=HEAD_BYTES):
        """``(head, length)`` of an RDB string: its first ``limit`` bytes (an integer as its digits, LZF data
        decompressed) and its whole length; the rest is skipped."""
        n, special = self.length()
        if special is None:
            head = self.read(min(n, limit))
            self.stream.skip(n - len(head))
            return head, n
        return self.string_of(special, limit)

    def string_of(self, special, limit):
        """``(head, length)`` of a string of a special encoding (an integer, LZF data)."""
        if special <= 2:
            text = str(int.from_bytes(self.read(1 << special), "little", signed=True)).encode()
            return text[:limit], len(text)
        if special == 3:
            clen, ulen = self.count(), self.count()
            head = self.lzf(clen, ulen, LZF_HEAD_BYTES)
            return head[:limit], ulen
        raise Unreadable(f"unknown string encoding {special}")

    def lzf(self, clen, ulen, read_at_most):
        """The first bytes that ``clen`` LZF bytes expand to, from the first ``read_at_most`` of them (cut where
        a token ends); the rest of them skipped."""
        taken = self.read(min(clen, read_at_most))
        self.stream.skip(clen - len(taken))
        whole = taken if len(taken) == clen else taken[:_whole_tokens(taken)]
        out = lzf_decompress(whole, min(ulen, len(whole) * LZF_MAX_RATIO))
        if out is None:
            raise Unreadable("damaged LZF data")
        return out

    def blob(self):
        """The first bytes of an RDB string holding a compact encoding (decompressed), the rest skipped."""
        n, special = self.length()
        if special is None:
            head = self.read(min(n, self.budget))
            self.stream.skip(n - len(head))
            return head
        if special != 3:
            raise Unreadable("an integer where a compact encoding was expected")
        clen, ulen = self.count(), self.count()
        return self.lzf(clen, ulen, self.budget)

    def sample(self, want, keep_bytes=ENTRY_READ_BYTES):
        """The :class:`ValueSample` of this entry, or None for a value that is not sampled; it keeps the first
        elements that fit in ``keep_bytes``.

        Raises:
            ChangedSinceScan: ``want`` has a ``key_hash`` and the entry's key is not that key (nor an entry).
        """
        try:
            op = self.opcodes()
            if op is None:
                return None
            key = self.key()
        except (Unreadable, RdbError, EOFError, IndexError, OverflowError) as exc:
            if want.key_hash is None:
                raise
            raise ChangedSinceScan(f"no entry at offset {want.offset:,} any more ({exc})") from None
        if want.key_hash is not None and key is not None and _key_hash(key) != want.key_hash:
            raise ChangedSinceScan(f"another key at offset {want.offset:,}")
        values = self.value(op)
        if values is None:
            return None
        head, fields, elements = values
        fields, elements = _first_within(fields, elements, keep_bytes - len(head) - OBJECT_BYTES)
        return ValueSample(type=want.type, encoding=want.encoding, length=want.length, head=head,
                           fields=tuple(f for f, _n in fields),
                           elements=tuple(e for e, _n in elements),
                           element_lengths=tuple(n for _e, n in elements))

    def opcodes(self):
        """The entry's type, past the opcodes before it; None for one not sampled."""
        op = self.u8()
        while True:
            if op == rdb.OPCODE_EXPIRETIME_MS:
                self.read(8)
            elif op == rdb.OPCODE_EXPIRETIME:
                self.read(4)
            elif op == rdb.OPCODE_FREQ:
                self.read(1)
            elif op == rdb.OPCODE_IDLE:
                self.count()
            elif op == rdb.OPCODE_AUX:  # an AUX field inside an entry (Redis test dumps have them)
                self.string(0)
                self.string(0)
            elif op == rdb.OPCODE_KEY_META and not self.valkey:
                return None  # module metadata before the type: not worth skipping here
            else:
                return op
            op = self.u8()

    def key(self):
        """The key's bytes (as the keys table has them), or None for a key longer than the bytes read per
        entry (skipped)."""
        n, special = self.length()
        if special == 3:
            clen, ulen = self.count(), self.count()
            if clen > self.budget or ulen > ENTRY_READ_BYTES:
                self.stream.skip(clen)
                return None
            return self.lzf(clen, ulen, clen)
        if special is not None:
            return self.string_of(special, HEAD_BYTES)[0]
        if n > self.budget:
            self.stream.skip(n)
            return None
        return self.read(n)

    def value(self, rdbtype):
        """``(head, fields, elements)`` of a value of RDB type ``rdbtype``, each field and element as
        ``(head, length)``; None for the types not sampled (streams, modules, arrays)."""
        if rdbtype == rdb.TYPE_STRING:
            head, _length = self.string()
            return head, (), ()
        if rdbtype in (rdb.TYPE_LIST, rdb.TYPE_SET):
            n = self.count()
            return b"", (), [self.string() for _ in range(min(n, HEAD_ELEMENTS))]
        if rdbtype in (rdb.TYPE_ZSET, rdb.TYPE_ZSET_2):
            return b"", (), self.zset_members(rdbtype)
        if rdbtype == rdb.TYPE_HASH:
            return self.hash_pairs(before=False, after=False)
        if rdbtype == rdb.TYPE_HASH_METADATA:
            self.read(8)  # the least field expiry
            return self.hash_pairs(before=True, after=False)
        if rdbtype == rdb.TYPE_VALKEY_HASH_2 and self.valkey:  # Valkey 9: each field's expiry after it
            return self.hash_pairs(before=False, after=True)
        if rdbtype == rdb.TYPE_HASH_METADATA_PRE_GA:  # Redis 7.4 release candidates: absolute TTLs before
            return self.hash_pairs(before=True, after=False)
        if rdbtype in (rdb.TYPE_LIST_QUICKLIST, rdb.TYPE_LIST_QUICKLIST_2):
            return b"", (), self.quicklist(rdbtype == rdb.TYPE_LIST_QUICKLIST_2)
        compact = COMPACT.get(rdbtype)
        if rdbtype == rdb.TYPE_HASH_LISTPACK_EX_PRE_GA and not self.valkey:
            compact = COMPACT[rdb.TYPE_HASH_LISTPACK_EX]
        if compact is None:
            return None
        entries, grouping, _type, _encoding = compact
        if rdbtype == rdb.TYPE_HASH_LISTPACK_EX:  # the release candidates' type 23 has none
            self.read(8)  # the least field expiry
        return (b"", *_grouped(entries(self.blob(), HEAD_BYTES), grouping))

    def zset_members(self, rdbtype):
        members = []
        for _ in range(min(self.count(), HEAD_ELEMENTS)):
            members.append(self.string())
            if rdbtype == rdb.TYPE_ZSET_2:
                self.read(8)  # a binary double
            else:
                score_bytes = self.u8()
                if score_bytes < 253:  # 253-255: nan, +inf, -inf
                    self.read(score_bytes)
        return members

    def hash_pairs(self, before, after):
        """A hash stored as pairs; ``before``/``after``: each pair has its TTL before / after it."""
        fields, values = [], []
        for _ in range(min(self.count(), HEAD_ELEMENTS)):
            if before:
                self.count()
            fields.append(self.string())
            values.append(self.string())
            if after:
                self.read(8)
        return b"", fields, values

    def quicklist(self, v2):
        items = []
        for _ in range(self.count()):
            container = self.count() if v2 else rdb.QUICKLIST_NODE_PACKED
            if container == rdb.QUICKLIST_NODE_PLAIN:
                items.append(self.string())
            elif container == rdb.QUICKLIST_NODE_PACKED:
                blob = self.blob()
                entries = listpack_entries if v2 else ziplist_entries
                items.extend(_first(entries(blob, HEAD_BYTES), HEAD_ELEMENTS - len(items)))
            else:
                raise Unreadable(f"unknown quicklist node container {container}")
            if len(items) >= HEAD_ELEMENTS:
                break
        return items


def _whole_tokens(data):
    """How many bytes of the LZF bytes ``data`` (the start of a compressed string) hold whole tokens: a
    literal run is its control byte and 1 to 32 bytes, a back reference 2 bytes, or 3 for a long one
    (src/lzf_d.c)."""
    i, n = 0, len(data)
    while i < n:
        ctrl = data[i]
        size = ctrl + 2 if ctrl < 32 else 3 if ctrl >> 5 == 7 else 2
        if i + size > n:
            break
        i += size
    return i


def _first_within(fields, elements, room):
    """The first ``fields`` and ``elements`` (each a list of ``(head, length)``; no fields, or one per element)
    whose heads fit in ``room`` bytes, each counted with OBJECT_BYTES."""
    kept = 0
    for i, (element, _n) in enumerate(elements):
        room -= len(element) + OBJECT_BYTES + (len(fields[i][0]) + OBJECT_BYTES if fields else 0)
        if room < 0:
            break
        kept = i + 1
    return fields[:kept], elements[:kept]


def _first(entries, n):
    out = []
    for entry in entries:
        if len(out) >= n:
            break
        out.append(entry)
    return out


def _grouped(entries, grouping):
    """``(fields, elements)`` of a compact blob's first entries, as ``grouping`` forms elements of them."""
    per = {SINGLE: 1, ZSET: 2, HASH: 2, HASH_TTL: 3}[grouping]
    taken = _first(entries, HEAD_ELEMENTS * per)
    whole = len(taken) - len(taken) % per
    if grouping == SINGLE:
        return (), taken
    if grouping == ZSET:
        return (), taken[0:whole:per]
    return taken[0:whole:per], taken[1:whole:per]
