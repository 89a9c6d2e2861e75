"""The measures of a group of keys, shared by the pattern table and the namespace tree."""

import numpy as np
import pyarrow as pa

from .grouping import (
    PERCENTILES,
    SortedGroups,
    counts,
    example_positions,
    masked,
    present_names,
    text_lists,
)

#: Columns of :func:`measure_groups`, with one line of documentation each.
MEASURE_DOCS = {
    "n_keys": "keys in the group",
    "memory_bytes_sum": "memory of the group's keys: est_memory_bytes, or rdb_bytes when the "
                        "dump has no estimates (column memory_basis says which)",
    **{f"memory_bytes_{name}": f"{name} of the keys' memory (nearest rank)" for name, _q in PERCENTILES},
    "rdb_bytes_sum": "bytes the group's keys occupy in the dump",
    **{f"rdb_bytes_{name}": f"{name} of the keys' rdb_bytes (nearest rank)" for name, _q in PERCENTILES},
    "types": "types present, most frequent first",
    "encodings": "encodings present, most frequent first",
    "n_with_ttl": "keys with a TTL",
    "n_expired": "keys whose expiry had already passed when the dump was written",
    **{f"ttl_s_{name}": f"{name} of the remaining TTL in seconds at the dump's ctime "
                        "(keys with a TTL; expired ones count 0); null without ctime"
       for name, _q in PERCENTILES},
    "examples": "a few keys of the group, as text (non-UTF-8 bytes escaped \\xNN)",
}


def ttl_seconds(columns, rows=None):
    """Remaining TTL in whole seconds at ctime, rounded as Redis's TTL does; 0 when expired."""
    expire = columns.expire_ms if rows is None else columns.expire_ms[rows]
    remaining = np.maximum(expire - columns.ctime_ms, 0)
    return ((remaining + 500) // 1000).astype(np.uint64)


def measure_groups(groups, n_groups, columns, n_examples, rows=None, memory=None):
    """Every measure of :data:`MEASURE_DOCS` for each group, as ``{name: pyarrow.Array}``.

    Args:
        groups: a group id (0..n_groups-1) per key, or per row of ``rows``.
        n_groups: how many groups.
        columns: the :class:`~rdbscope.passes.columns.KeyColumns`.
        n_examples: examples per group.
        rows: ascending row numbers of the keys measured (default: all keys).
        memory: the groups' memory as :class:`SortedGroups`, when already sorted.
    """
    def take(array):
        return array if rows is None else array[rows]

    groups = np.asarray(groups, dtype=np.int64)
    out = {"n_keys": pa.array(counts(groups, n_groups), pa.int64())}

    if memory is None:
        memory = SortedGroups.build(groups, take(columns.memory), n_groups)
    in_dump = memory if columns.memory_basis == "rdb_bytes" else \
        SortedGroups.build(groups, take(columns.rdb_bytes), n_groups)
    for prefix, sorted_groups in (("memory_bytes", memory), ("rdb_bytes", in_dump)):
        out[f"{prefix}_sum"] = pa.array(sorted_groups.sums(), pa.uint64())
        for name, q in PERCENTILES:
            values, valid = sorted_groups.quantile(q)
            out[f"{prefix}_{name}"] = masked(values, valid, pa.uint64())

    type_codes, type_names = columns.types
    encoding_codes, encoding_names = columns.encodings
    out["types"] = present_names(groups, n_groups, take(type_codes), type_names)
    out["encodings"] = present_names(groups, n_groups, take(encoding_codes), encoding_names)

    has_ttl = take(columns.has_ttl)
    ttl_groups = groups[has_ttl]
    out["n_with_ttl"] = pa.array(counts(ttl_groups, n_groups), pa.int64())
    ttl_rows = np.flatnonzero(has_ttl) if rows is None else rows[has_ttl]
    if columns.ctime_ms is None:
        out["n_expired"] = pa.nulls(n_groups, pa.int64())
        for name, _q in PERCENTILES:
            out[f"ttl_s_{name}"] = pa.nulls(n_groups, pa.int64())
    else:
        expired = columns.expire_ms[ttl_rows] < columns.ctime_ms
        out["n_expired"] = pa.array(counts(ttl_groups[expired], n_groups), pa.int64())
        ttl = SortedGroups.build(ttl_groups, ttl_seconds(columns, ttl_rows), n_groups)
        for name, q in PERCENTILES:
            values, valid = ttl.quantile(q)
            out[f"ttl_s_{name}"] = masked(values.astype(np.int64), valid, pa.int64())

    offsets, positions = example_positions(groups, n_groups, n_examples,
                                           positions=None if rows is None else rows)
    out["examples"] = text_lists(offsets, columns.key_text(positions))
    return out
