"""The measures of groups of keys: the pattern table's columns, and the namespace tree's.

Keys are read once, per pattern (:meth:`GroupStats.measure`); a namespace node
is a union of patterns, and its measures are derived from its patterns'
(:meth:`GroupStats.union_columns`) without reading the keys again.
"""

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..rdb.instants import ms_after
from .grouping import (
    PERCENTILES,
    SortedGroups,
    counts,
    example_positions,
    masked,
    name_matrix,
    present_names,
    text_lists,
)

#: Columns of the measures, with one line of documentation each.
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
    "memory_bytes_without_ttl": "memory of the keys without a TTL",
    "n_expired": "keys whose expiry had already passed when the dump was written (null without ctime)",
    **{f"ttl_s_{name}": f"{name} of the remaining TTL in seconds at the dump's ctime "
                        "(keys with a TTL; expired ones count 0); null without ctime"
       for name, _q in PERCENTILES},
    "examples": "a few keys of the group, as text (non-UTF-8 bytes escaped \\xNN, a backslash as \\\\)",
}

_QUANTILES = [q for _name, q in PERCENTILES]


def ttl_seconds(expire_ms, ctime_ms):
    """Remaining TTL in whole seconds at ctime, rounded down; 0 when expired.

    The ctime AUX field is the save's time cut to whole seconds, so ``expire_ms - ctime_ms`` is up to a
    second longer than the TTL left at the save. Rounding it down takes that second back on average (Redis's
    own TTL rounds to nearest, which here would show a 60 s TTL set just before the save as 61 s).
    """
    remaining = np.maximum(ms_after(expire_ms, ctime_ms), 0)
    return (remaining // 1000).astype(np.uint64)


@dataclass(frozen=True)
class GroupStats:
    """Everything measured per group, as numpy arrays indexed by group.

    Attributes:
        n_keys: keys per group.
        memory, rdb_bytes: the groups' values sorted (:class:`SortedGroups`), or counted (a
            :class:`~.value_counts.ValueCounts`, in bounded runs); the same object when memory is
            measured in rdb_bytes.
        kinds: keys per group and (type, encoding) pair, an (n_groups, n_pairs) matrix.
        n_with_ttl, n_expired: counts (``n_expired`` None without ctime).
        memory_with_ttl: memory of the keys with a TTL.
        memory_expired: memory of the expired keys (None without ctime).
        n_with_field_ttl: keys with at least one field TTL (hash field expiry).
        oldest_expire_ms: the earliest expiry among expired keys (None when none).
        ttl_s: remaining TTL in seconds of the keys with a TTL (as ``memory``), or None without ctime.
        example_offsets, example_rows: examples of group g are
            ``example_rows[example_offsets[g]:example_offsets[g + 1]]``.
    """

    n_keys: np.ndarray
    memory: SortedGroups
    rdb_bytes: SortedGroups
    kinds: np.ndarray
    n_with_ttl: np.ndarray
    n_expired: np.ndarray
    memory_with_ttl: np.ndarray
    ttl_s: SortedGroups
    example_offsets: np.ndarray
    example_rows: np.ndarray
    memory_expired: np.ndarray | None = None
    n_with_field_ttl: np.ndarray | None = None
    oldest_expire_ms: int | None = None

    @property
    def n_groups(self):
        return len(self.n_keys)

    @property
    def memory_without_ttl(self):
        return self.memory.sums - self.memory_with_ttl

    @classmethod
    def measure(cls, groups, n_groups, columns, n_examples, group_counts=None, values_of=SortedGroups.build):
        """Measure each group of keys; ``groups`` is an int64 group id per key.

        ``n_examples``: example keys per group, or None for none. ``values_of``: what holds the memory,
        RDB sizes and TTLs of each group (``SortedGroups.build``, or ``ValueCounts.of_keys``)."""
        n_keys = group_counts if group_counts is not None else counts(groups, n_groups)
        memory = values_of(groups, columns.memory, n_groups, counts=n_keys)
        rdb_bytes = memory if columns.memory_basis == "rdb_bytes" else \
            values_of(groups, columns.rdb_bytes, n_groups, counts=n_keys)
        kind_codes, pairs = columns.type_encodings
        kinds = name_matrix(groups, n_groups, kind_codes, len(pairs), group_counts=n_keys)

        ttl_rows = columns.ttl_rows
        ttl_groups = groups[ttl_rows]
        n_with_ttl = counts(ttl_groups, n_groups)
        memory_with_ttl = counts(ttl_groups, n_groups, columns.ttl_memory)
        n_expired = ttl_s = memory_expired = oldest = None
        if columns.ctime_ms is not None:
            expire = columns.ttl_expire_ms
            expired = np.flatnonzero(expire < columns.ctime_ms)
            n_expired = counts(ttl_groups[expired], n_groups)
            memory_expired = counts(ttl_groups[expired], n_groups, columns.ttl_memory[expired])
            oldest = int(expire[expired].min()) if len(expired) else None
            ttl_s = values_of(ttl_groups, ttl_seconds(expire, columns.ctime_ms), n_groups, counts=n_with_ttl)
        if columns.table["n_fields_with_ttl"].null_count == columns.n:
            n_with_field_ttl = np.zeros(n_groups, np.int64)
        else:
            n_with_field_ttl = counts(groups[np.flatnonzero(columns.n_fields_with_ttl > 0)], n_groups)
        offsets = rows = None
        if n_examples is not None:  # None: the caller picks examples itself (bounded runs)
            offsets, rows = example_positions(groups, n_groups, n_examples, group_counts=n_keys)
        return cls(n_keys, memory, rdb_bytes, kinds, n_with_ttl, n_expired, memory_with_ttl, ttl_s,
                   offsets, rows, memory_expired, n_with_field_ttl, oldest)

    def table_columns(self, columns):
        """The measures of every group, as ``{name: pyarrow.Array}`` in :data:`MEASURE_DOCS` order."""
        percentiles = {}
        for prefix, sorted_groups in (("memory_bytes", self.memory), ("rdb_bytes", self.rdb_bytes),
                                      ("ttl_s", self.ttl_s)):
            for name, q in PERCENTILES:
                if sorted_groups is None:
                    percentiles[f"{prefix}_{name}"] = pa.nulls(self.n_groups, pa.int64())
                    continue
                values, valid = sorted_groups.quantile(q)
                typ = pa.int64() if prefix == "ttl_s" else pa.uint64()
                percentiles[f"{prefix}_{name}"] = masked(values.astype(typ.to_pandas_dtype()), valid, typ)
        examples = text_lists(self.example_offsets, columns.key_text(self.example_rows))
        return self._assemble(columns, self.n_keys, self.memory.sums, self.rdb_bytes.sums, self.kinds,
                              self.n_with_ttl, self.memory_without_ttl, self.n_expired, percentiles, examples)

    def union_columns(self, members, columns, n_examples):
        """The measures of unions of groups (``members``: a non-empty int array of groups per union)."""
        def total(values):
            return np.array([values[m].sum() for m in members], dtype=values.dtype) if members else \
                np.zeros(0, values.dtype)

        n_keys = total(self.n_keys)
        n_with_ttl = total(self.n_with_ttl)
        percentiles = {}
        for prefix, sorted_groups, sizes in (("memory_bytes", self.memory, n_keys),
                                             ("rdb_bytes", self.rdb_bytes, n_keys),
                                             ("ttl_s", self.ttl_s, n_with_ttl)):
            typ = pa.int64() if prefix == "ttl_s" else pa.uint64()
            if sorted_groups is None:
                for name, _q in PERCENTILES:
                    percentiles[f"{prefix}_{name}"] = pa.nulls(len(members), pa.int64())
                continue
            values = sorted_groups.merged_quantiles(members, _QUANTILES)
            for i, (name, _q) in enumerate(PERCENTILES):
                percentiles[f"{prefix}_{name}"] = masked(values[:, i].astype(typ.to_pandas_dtype()), sizes > 0, typ)
        # Examples of a union: those of its largest groups first.
        texts, offsets = [], [0]
        for m in members:
            rows = []
            for g in m[np.argsort(-self.n_keys[m], kind="stable")]:
                rows.extend(self.example_rows[self.example_offsets[g]:self.example_offsets[g + 1]])
                if len(rows) >= n_examples:
                    break
            texts.extend(rows[:n_examples])
            offsets.append(offsets[-1] + len(rows[:n_examples]))
        examples = text_lists(np.array(offsets), columns.key_text(np.array(texts, dtype=np.int64)))
        kinds = np.array([self.kinds[m].sum(axis=0) for m in members]).reshape(len(members), self.kinds.shape[1])
        return self._assemble(columns, n_keys, total(self.memory.sums), total(self.rdb_bytes.sums), kinds,
                              n_with_ttl, total(self.memory_without_ttl),
                              None if self.n_expired is None else total(self.n_expired), percentiles, examples)

    @staticmethod
    def _assemble(columns, n_keys, memory_sums, rdb_sums, kinds, n_with_ttl, memory_without_ttl,
                  n_expired, percentiles, examples):
        _codes, pairs = columns.type_encodings
        n = len(n_keys)
        type_names = sorted({t for t, _e in pairs})
        encoding_names = sorted({e for _t, e in pairs})
        by_type = np.zeros((n, len(type_names)), np.int64)
        by_encoding = np.zeros((n, len(encoding_names)), np.int64)
        for j, (t, e) in enumerate(pairs):
            by_type[:, type_names.index(t)] += kinds[:, j]
            by_encoding[:, encoding_names.index(e)] += kinds[:, j]
        out = {
            "n_keys": pa.array(n_keys, pa.int64()),
            "memory_bytes_sum": pa.array(memory_sums, pa.uint64()),
            **{k: v for k, v in percentiles.items() if k.startswith("memory_bytes_")},
            "rdb_bytes_sum": pa.array(rdb_sums, pa.uint64()),
            **{k: v for k, v in percentiles.items() if k.startswith("rdb_bytes_")},
            "types": present_names(by_type, type_names),
            "encodings": present_names(by_encoding, encoding_names),
            "n_with_ttl": pa.array(n_with_ttl, pa.int64()),
            "memory_bytes_without_ttl": pa.array(memory_without_ttl, pa.uint64()),
            "n_expired": pa.nulls(n, pa.int64()) if n_expired is None else pa.array(n_expired, pa.int64()),
            **{k: v for k, v in percentiles.items() if k.startswith("ttl_s_")},
            "examples": examples,
        }
        return {name: out[name] for name in MEASURE_DOCS}
