"""Keys and memory by key size and by TTL left, per type: what the key-size and TTL figures draw.

The pass holds its whole chunk contract: :meth:`DistributionsPass.measure` a chunk's keys,
:meth:`~DistributionsPass.merge` the measures of chunks, :meth:`~DistributionsPass.finish` the
merged measure into tables: every run draws the same figures, whatever its chunks.
"""

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..keyspace.weighted_counts import WeightedCounts
from ..rdb.format import TYPE_NAMES
from .base import PassOutput


def _schema(value, value_doc):
    docs = {
        "type": "the keys' type",
        value: value_doc,
        "n_keys": "keys of the type with this value",
        "memory_bytes_sum": "their memory (est_memory_bytes, else rdb_bytes)",
    }
    types = {"type": pa.string(), value: pa.uint64(), "n_keys": pa.int64(), "memory_bytes_sum": pa.uint64()}
    return pa.schema([pa.field(name, types[name], metadata={"doc": doc}) for name, doc in docs.items()])


KEY_SIZES_SCHEMA = _schema("memory_bytes", "a key's memory (est_memory_bytes, else rdb_bytes), rounded down to "
                                           "fewer significant bits past 65,536 distinct values")
TTL_LEFT_SCHEMA = _schema("ttl_left_ms", "time left before expiry at the dump's ctime, in ms (0: expired already "
                                         "when the dump was saved), rounded down likewise")


@dataclass(frozen=True)
class Distributions:
    """What a chunk (or several, merged) contributes.

    Attributes:
        sizes: per type (its index in ``TYPE_NAMES``), keys and memory of each memory size.
        ttl_left: per type, keys and memory of each time left at the dump's ctime, in ms (0: expired
            at save); None when the dump has no ctime to measure from.
    """

    sizes: WeightedCounts
    ttl_left: WeightedCounts | None


class DistributionsPass:
    """The key-size and TTL distributions of every key, per type (tables ``key_sizes`` and ``ttl_left``);
    values are exact up to 65,536 distinct ones, then rounded down to fewer significant bits."""

    id = "distributions"
    requires = ()
    Options = None
    checks = ()

    @staticmethod
    def measure(columns, _options=None) -> Distributions:
        """The measure of one chunk's :class:`~rdbscope.keyspace.columns.KeyColumns`."""
        codes, names = columns.types
        # counted by the chunk's own type codes (small ints, not copied), then numbered as in TYPE_NAMES
        global_type = np.array([TYPE_NAMES.index(name) for name in names] or [0], np.int64)
        memory = columns.memory
        sizes = WeightedCounts.of(codes, memory).renumbered(global_type)
        ttl_left = None
        if columns.ctime_ms is not None:
            rows = columns.ttl_rows
            expire = columns.ttl_expire_ms
            # int64 arithmetic wraps for expiries near its ends; those before ctime are 0 whatever it gives
            left = np.where(expire <= columns.ctime_ms, 0, expire - columns.ctime_ms).astype(np.uint64)
            ttl_left = WeightedCounts.of(codes[rows], left, columns.ttl_memory).renumbered(global_type)
        return Distributions(sizes, ttl_left)

    @staticmethod
    def merge(measures) -> Distributions:
        measures = list(measures)
        with_ttl = [m.ttl_left for m in measures]
        return Distributions(WeightedCounts.merge(m.sizes for m in measures),
                             None if any(t is None for t in with_ttl) else WeightedCounts.merge(with_ttl))

    def finish(self, measure, ctx) -> PassOutput:
        tables = {"key_sizes": _table(measure.sizes, "memory_bytes", KEY_SIZES_SCHEMA),
                  "ttl_left": _table(measure.ttl_left, "ttl_left_ms", TTL_LEFT_SCHEMA)}
        return PassOutput(tables=tables)


def _table(counts, value_name, schema):
    if counts is None:
        return schema.empty_table()
    return pa.table({
        "type": pa.array([TYPE_NAMES[g] for g in counts.group.tolist()], pa.string()),
        value_name: pa.array(counts.value, pa.uint64()),
        "n_keys": pa.array(counts.count, pa.int64()),
        "memory_bytes_sum": pa.array(counts.weight, pa.uint64()),
    }, schema=schema)
