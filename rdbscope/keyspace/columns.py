"""Numpy views of the keys table, computed once per analysis and shared by the passes."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import kernels
from ..cached import cached_property
from ..rdb.cluster import N_SLOTS, count_key_slots
from ..rdb.instants import ctime_seconds, ms_after
from ..rdb.keytext import key_text
from .grouping import SlotCounter

MEMORY_ESTIMATE = "est_memory_bytes"
MEMORY_IN_DUMP = "rdb_bytes"


class KeyColumns:
    """Columns of a keys table as numpy arrays, each built on first use.

    Null-free by construction: missing counts read as 0, and ``has_ttl`` says
    which ``expire_ms`` are real. ``memory`` is ``est_memory_bytes`` when the
    dump has estimates (keys without one fall back to ``rdb_bytes``), else
    ``rdb_bytes``; ``memory_basis`` names which.
    """

    def __init__(self, table, info):
        self.table = table
        self.info = info
        self.n = table.num_rows
        self._background = {}

    def prefetch(self, names):
        """Start computing the columns ``names`` (``"slots"``) in a background thread.

        The slots are computed a slice at a time, holding the GIL, so the
        thread mostly runs while the passes wait in numpy or pyarrow kernels.
        """
        for name in names:
            if name != "slots":
                raise ValueError(f"no background computation of {name!r}")
            if "_slot_columns" in self.__dict__ or name in self._background:
                continue
            pool = ThreadPoolExecutor(1, thread_name_prefix=f"rdbscope-{name}")
            self._background[name] = pool.submit(_slots, self.keys, self.memory)
            pool.shutdown(wait=False)

    @cached_property
    def _slot_columns(self):
        future = self._background.pop("slots", None)
        return future.result() if future is not None else _slots(self.keys, self.memory)

    @property
    def slots(self):
        """The Redis Cluster hash slot of each key (uint16)."""
        return self._slot_columns[0]

    @property
    def slot_keys(self):
        """Keys per hash slot (16384 int64)."""
        return self._slot_columns[1]

    @property
    def n_keys(self):
        """Keys analysed: the rows, except in a bounded run, whose rows are a selection of them."""
        return self.n

    @property
    def slot_memory(self):
        """Memory per hash slot (16384 float64; exact below 2**53 bytes)."""
        return self._slot_columns[2]

    @cached_property
    def type_totals(self):
        """``{(type, encoding): (keys, memory)}`` of the pairs present."""
        codes, pairs = self.type_encodings
        if len(pairs) == 1 and self.n:  # keys of one type and encoding: the chunk's totals
            return {pairs[0]: (self.n, self.memory_total)}
        present, n, memory = SlotCounter().counted(codes, self.memory, len(pairs))  # both in one pass
        return {pairs[p]: (int(k), int(m)) for p, k, m in zip(present.tolist(), n.tolist(), memory.tolist(),
                                                               strict=True)}

    @cached_property
    def ttl_buckets(self):
        """``(keys, memory)`` (int64 arrays) per bucket of the TTL left when the dump was written: keys
        already expired, then the buckets :data:`TTL_BUCKET_EDGES_S` bound, then keys without a TTL.
        Without a ctime the first expiry stands for it; None then in a bounded run (see there)."""
        now_ms = self.ctime_ms
        expire_ms = self.ttl_expire_ms
        if now_ms is None:
            now_ms = int(expire_ms.min()) if len(expire_ms) else 0
        left_ms = ms_after(expire_ms, now_ms)
        # 0 when expired, else 1 + the edges at or below the time left: a comparison an edge, on small ints,
        # costs less than a binary search a key
        bucket = (left_ms > 0).astype(np.int8)
        for edge_s in TTL_BUCKET_EDGES_S:
            bucket += left_ms >= edge_s * 1000
        n_buckets = len(TTL_BUCKET_EDGES_S) + 3
        hit, keys, memory = SlotCounter().counted(bucket, self.ttl_memory, n_buckets)  # both in one pass
        n, total = np.zeros(n_buckets, np.int64), np.zeros(n_buckets, np.int64)
        n[hit], total[hit] = keys, memory.astype(np.int64)
        n[-1] = self.n - len(self.ttl_rows)
        total[-1] = self.memory_total - int(total.sum())
        return n, total

    @cached_property
    def slot_with_ttl(self):
        """Keys with a TTL per hash slot (16384 int64)."""
        return np.bincount(self.slots[self.ttl_rows], minlength=N_SLOTS).astype(np.int64)

    @cached_property
    def db(self):
        return _numpy(self.table["db"], np.int32)

    @cached_property
    def rdb_bytes(self):
        return _numpy(self.table["rdb_bytes"], np.uint64)

    @cached_property
    def offset(self):
        """Where each key's entry starts in its dump (uint64)."""
        return _numpy(self.table["offset"], np.uint64)

    @cached_property
    def n_elements(self):
        return _numpy(self.table["n_elements"], np.uint64)

    @cached_property
    def n_fields_with_ttl(self):
        return _numpy(self.table["n_fields_with_ttl"], np.uint64)

    @cached_property
    def memory_basis(self):
        """``"est_memory_bytes"`` when the dump has memory estimates, else ``"rdb_bytes"``."""
        return memory_basis(self.table)

    @cached_property
    def memory(self):
        if self.memory_basis == MEMORY_IN_DUMP:
            return self.rdb_bytes
        column = self.table["est_memory_bytes"]
        if column.null_count == 0:
            return _numpy(column, np.uint64)
        return _numpy(pc.coalesce(column, self.table["rdb_bytes"]), np.uint64)

    @cached_property
    def memory_total(self):
        return int(self.memory.sum(dtype=np.uint64))

    @cached_property
    def has_ttl(self):
        column = self.table["expire_at"]
        if column.null_count == self.n:
            return np.zeros(self.n, bool)
        return _numpy(pc.is_valid(column), np.bool_)

    @cached_property
    def ttl_rows(self):
        """Row numbers of the keys with a TTL (ascending)."""
        if self.table["expire_at"].null_count == self.n:
            return np.zeros(0, np.int64)
        return np.flatnonzero(self.has_ttl)

    @cached_property
    def ttl_memory(self):
        """``memory`` of the keys in ``ttl_rows`` (the TTL measures of several passes read it)."""
        return self.memory[self.ttl_rows] if len(self.ttl_rows) else np.zeros(0, np.uint64)

    @cached_property
    def expire_ms(self):
        """Absolute expiry in ms since the epoch; 0 where ``has_ttl`` is False."""
        return _numpy(self.table["expire_at"].cast(pa.int64()), np.int64)

    @cached_property
    def ttl_expire_ms(self):
        """``expire_ms`` of the keys in ``ttl_rows``: read where they are in a column of one chunk (no copy of
        the column with its nulls zeroed)."""
        if not len(self.ttl_rows):
            return np.zeros(0, np.int64)
        chunks = [c for c in self.table["expire_at"].chunks if len(c)]
        if len(chunks) != 1:
            return self.expire_ms[self.ttl_rows]
        chunk = chunks[0]
        values = np.frombuffer(chunk.buffers()[1], dtype=np.int64, count=len(chunk), offset=chunk.offset * 8)
        return values[self.ttl_rows]

    @cached_property
    def ctime_ms(self):
        """When the dump was written (AUX ``ctime``) in ms, or None when it does not say (or says a time
        no clock wrote: see ``ctime_seconds``)."""
        seconds = ctime_seconds(self.info.aux)
        return None if seconds is None else seconds * 1000

    @cached_property
    def types(self):
        """``(codes, names)``: a small-int code per key into the tuple of type names."""
        return dictionary_codes(self.table["type"])

    @cached_property
    def encodings(self):
        """``(codes, names)``: a small-int code per key into the tuple of encoding names."""
        return dictionary_codes(self.table["encoding"])

    @cached_property
    def type_encodings(self):
        """``(codes, pairs)``: a code per key into the (type, encoding) pairs that occur."""
        type_codes, type_names = self.types
        encoding_codes, encoding_names = self.encodings
        if self.n and type_codes.min() == type_codes.max() and encoding_codes.min() == encoding_codes.max():
            return np.zeros(self.n, np.int8), ((type_names[type_codes[0]], encoding_names[encoding_codes[0]]),)
        width = max(len(encoding_names), 1)
        first, second = _alike(kernels.as_codes(type_codes), kernels.as_codes(encoding_codes))
        per_pair = np.zeros(len(type_names) * width, np.int64)
        kernels.ids.count_pairs(first, second, width, per_pair)  # no array of combined codes
        present = np.flatnonzero(per_pair)
        lookup = np.zeros(len(type_names) * width, np.int16)
        lookup[present] = np.arange(len(present))
        pairs = tuple((type_names[c // width], encoding_names[c % width]) for c in present)
        if len(present) <= 1:
            return np.zeros(self.n, np.int8), pairs
        codes = np.empty(self.n, np.int16)
        kernels.ids.pair_codes(first, second, width, lookup, codes)
        return codes, pairs

    @cached_property
    def keys(self):
        """The key column as one ``pyarrow.BinaryArray``."""
        return single_array(self.table["key"])

    def key_text(self, positions):
        """Keys at ``positions`` as text (:func:`rdbscope.rdb.keytext.key_text`)."""
        if len(positions) == 0:
            return []
        taken = self.keys.take(pa.array(np.asarray(positions, dtype=np.int64)))
        return [key_text(k) for k in taken.to_pylist()]


#: Upper bounds, in seconds of TTL left, of the buckets of :attr:`KeyColumns.ttl_buckets` (the last is open).
TTL_BUCKET_EDGES_S = (3600, 4 * 3600, 12 * 3600, 86400, 7 * 86400)

#: Keys per call of the compiled slot function: short enough for the GIL to change hands between calls.
SLOT_SLICE_ROWS = 1 << 18


def _slots(keys, memory):
    """``(slot per key, keys per slot, memory per slot)``, counted a slice at a time while in cache."""
    slots = np.empty(len(keys), np.uint16)
    n_keys = np.zeros(N_SLOTS, np.int64)
    total = np.zeros(N_SLOTS, np.float64)
    for start in range(0, len(keys), SLOT_SLICE_ROWS):
        stop = start + SLOT_SLICE_ROWS
        count_key_slots(keys.slice(start, SLOT_SLICE_ROWS), memory[start:stop], n_keys, total, slots[start:stop])
    return slots, n_keys, total


def memory_basis(table):
    """``"est_memory_bytes"`` when a keys table has memory estimates, else ``"rdb_bytes"``."""
    column = table["est_memory_bytes"]
    return MEMORY_ESTIMATE if table.num_rows and column.null_count < table.num_rows else MEMORY_IN_DUMP


def single_array(column):
    """A (chunked) column as one ``pyarrow.Array``: its only chunk as it is, else the chunks joined."""
    if not isinstance(column, pa.ChunkedArray):
        return column
    if column.num_chunks == 1:
        return column.chunk(0)
    return column.combine_chunks() if column.num_chunks else pa.array([], column.type)


def _numpy(column, dtype):
    """A (chunked) fixed-width Arrow column as a numpy array of ``dtype``, nulls as 0.

    A column of one chunk without nulls whose type matches ``dtype`` comes back
    as a read-only view of its buffer, without a copy; otherwise the value
    buffers are read directly (one copy to join the chunks) and the values
    under nulls are zeroed afterwards.
    """
    n = len(column)
    if n == 0:
        return np.zeros(0, dtype)
    if column.null_count == n:
        return np.zeros(n, dtype)
    chunks = [c for c in (column.chunks if isinstance(column, pa.ChunkedArray) else [column]) if len(c)]
    if pa.types.is_boolean(column.type):
        parts = [c.to_numpy(zero_copy_only=False) for c in chunks]
        return np.concatenate(parts).astype(dtype, copy=False)
    item = column.type.bit_width // 8
    native = np.dtype(f"{'u' if pa.types.is_unsigned_integer(column.type) else 'i'}{item}")
    parts = [np.frombuffer(c.buffers()[1], dtype=native, count=len(c), offset=c.offset * item) for c in chunks]
    if len(parts) == 1 and not column.null_count:
        return parts[0].astype(dtype, copy=False)
    values = np.concatenate(parts) if len(parts) > 1 else parts[0].copy()
    if column.null_count:
        valid = np.concatenate([c.is_valid().to_numpy(zero_copy_only=False) for c in chunks])
        values[np.flatnonzero(~valid)] = 0
    return values.astype(dtype, copy=False)


def dictionary_codes(column):
    """``(codes, names)`` of a dictionary column (chunks may carry different dictionaries).

    ``codes`` is an integer numpy array, one per row, indexing ``names`` (a
    tuple of distinct strings); a null reads as the name ``""``.
    """
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    chunks = [c if pa.types.is_dictionary(c.type) else c.dictionary_encode() for c in chunks]
    if not chunks:
        return np.zeros(0, np.int8), ()
    dictionary = chunks[0].dictionary
    names = dictionary.to_pylist()
    same = all(c.dictionary.equals(dictionary) for c in chunks[1:])
    if same and column.null_count == 0 and None not in names and len(set(names)) == len(names):
        # The common case: one dictionary for every chunk, its indices used as they are
        # (a view of them for one chunk; a small-int copy otherwise).
        indices = pa.chunked_array([c.indices for c in chunks], chunks[0].indices.type)
        dtype = indices.type.to_pandas_dtype() if len(chunks) == 1 else _small_int(len(names))
        return _numpy(indices, dtype), tuple(names)
    seen = {}
    parts = []
    for chunk in chunks:
        remap = np.array([seen.setdefault("" if d is None else d, len(seen))
                          for d in chunk.dictionary.to_pylist()] or [0], dtype=np.int64)
        part = remap[_numpy(chunk.indices, np.int64)]
        if chunk.null_count:
            part[np.flatnonzero(~chunk.is_valid().to_numpy(zero_copy_only=False))] = seen.setdefault("", len(seen))
        parts.append(part)
    codes = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    return codes.astype(_small_int(len(seen)), copy=False), tuple(seen)


def _alike(first, second):
    """Two code arrays of one integer type (the wider of theirs), as a kernel taking both needs them."""
    if first.dtype == second.dtype:
        return first, second
    wider = np.promote_types(first.dtype, second.dtype)
    return kernels.as_codes(first.astype(wider)), kernels.as_codes(second.astype(wider))


def _small_int(n_names):
    return np.int8 if n_names <= 127 else np.int16 if n_names <= 32_767 else np.int32 if n_names < 2 ** 31 \
        else np.int64
