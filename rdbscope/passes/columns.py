"""Numpy views of the keys table, computed once per analysis and shared by the passes."""

import functools

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

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

    @functools.cached_property
    def db(self):
        return _numpy(self.table["db"], np.int32)

    @functools.cached_property
    def rdb_bytes(self):
        return _numpy(self.table["rdb_bytes"], np.uint64)

    @functools.cached_property
    def n_elements(self):
        return _numpy(self.table["n_elements"], np.uint64)

    @functools.cached_property
    def n_fields_with_ttl(self):
        return _numpy(self.table["n_fields_with_ttl"], np.uint64)

    @functools.cached_property
    def memory_basis(self):
        """``"est_memory_bytes"`` when the dump has memory estimates, else ``"rdb_bytes"``."""
        return memory_basis(self.table)

    @functools.cached_property
    def memory(self):
        if self.memory_basis == MEMORY_IN_DUMP:
            return self.rdb_bytes
        column = self.table["est_memory_bytes"]
        if column.null_count == 0:
            return _numpy(column, np.uint64)
        return _numpy(pc.coalesce(column, self.table["rdb_bytes"]), np.uint64)

    @functools.cached_property
    def has_ttl(self):
        return _numpy(pc.is_valid(self.table["expire_at"]), np.bool_)

    @functools.cached_property
    def expire_ms(self):
        """Absolute expiry in ms since the epoch; 0 where ``has_ttl`` is False."""
        column = self.table["expire_at"].cast(pa.int64())
        return _numpy(column, np.int64)

    @functools.cached_property
    def ctime_ms(self):
        """When the dump was written (AUX ``ctime``) in ms, or None when it does not say."""
        try:
            return int(self.info.aux["ctime"]) * 1000
        except (KeyError, TypeError, ValueError):
            return None

    @functools.cached_property
    def types(self):
        """``(codes, names)``: a code per key into the tuple of type names."""
        return dictionary_codes(self.table["type"])

    @functools.cached_property
    def encodings(self):
        """``(codes, names)``: a code per key into the tuple of encoding names."""
        return dictionary_codes(self.table["encoding"])

    @functools.cached_property
    def keys(self):
        """The key column as one ``pyarrow.BinaryArray``."""
        column = self.table["key"]
        return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column

    def key_text(self, positions):
        """Keys at ``positions`` as text, non-UTF-8 bytes escaped ``\\xNN``."""
        if len(positions) == 0:
            return []
        taken = self.keys.take(pa.array(np.asarray(positions, dtype=np.int64)))
        return [k.decode("utf-8", "backslashreplace") for k in taken.to_pylist()]


def memory_basis(table):
    """``"est_memory_bytes"`` when a keys table has memory estimates, else ``"rdb_bytes"``."""
    column = table["est_memory_bytes"]
    return MEMORY_ESTIMATE if table.num_rows and column.null_count < table.num_rows else MEMORY_IN_DUMP


def _numpy(column, dtype):
    """A (chunked) Arrow column as a numpy array of ``dtype``, nulls as 0."""
    if column.null_count:
        column = pc.fill_null(column, pa.scalar(0 if dtype != np.bool_ else False, column.type))
    if isinstance(column, pa.ChunkedArray):
        if column.num_chunks == 0:
            return np.zeros(0, dtype)
        column = column.combine_chunks() if column.num_chunks > 1 else column.chunk(0)
    return np.asarray(column.to_numpy(zero_copy_only=False), dtype=dtype)


def dictionary_codes(column):
    """``(codes, names)`` of a dictionary column (chunks may carry different dictionaries).

    ``codes`` is an int32 numpy array, one per row, indexing ``names`` (a tuple
    of distinct strings); a null reads as the name ``""``.
    """
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    names = {}
    parts = []
    for chunk in chunks:
        if not pa.types.is_dictionary(chunk.type):
            chunk = chunk.dictionary_encode()
        dictionary = chunk.dictionary.to_pylist()
        remap = np.array([names.setdefault("" if d is None else d, len(names)) for d in dictionary]
                         or [0], dtype=np.int32)
        indices = chunk.indices
        if indices.null_count:
            null_code = names.setdefault("", len(names))
            indices = pc.fill_null(indices, 0)
            part = remap[indices.to_numpy()]
            part[np.asarray(chunk.is_null())] = null_code
        else:
            part = remap[indices.to_numpy()]
        parts.append(part)
    codes = np.concatenate(parts) if parts else np.zeros(0, np.int32)
    return codes.astype(np.int32, copy=False), tuple(names)
