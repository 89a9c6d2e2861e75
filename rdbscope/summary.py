"""What ``rdbscope info`` shows: counts of a KeyTable by db, type and encoding."""

from dataclasses import dataclass

import numpy as np
import pyarrow.compute as pc

from .rdb.memory import db_overhead_bytes


@dataclass(frozen=True)
class GroupCount:
    """Keys of one group (a db, a type, or a type and encoding), their dump bytes and estimated memory."""

    name: str
    n_keys: int
    n_with_ttl: int
    rdb_bytes: int
    est_memory_bytes: int


@dataclass(frozen=True)
class DbMemory:
    """Estimated memory of one database: its keys, and its key tables' own overhead."""

    db: int
    n_keys: int
    n_with_ttl: int
    keys_bytes: int
    overhead_bytes: int


@dataclass(frozen=True)
class MemoryEstimate:
    """The whole dump's estimated memory next to the ``used-mem`` the writer recorded.

    ``used_mem_bytes`` (AUX ``used-mem``) also holds what no dump shows: the
    server's start-up memory (about 1 MB), client buffers, scripts, fragmentation
    of the allocator's bookkeeping. ``model`` says which layout and allocator
    the estimate follows.
    """

    by_db: list
    keys_bytes: int
    overhead_bytes: int
    total_bytes: int
    used_mem_bytes: int
    model: str


@dataclass(frozen=True)
class DumpSummary:
    """Headline figures of a dump."""

    n_keys: int
    rdb_bytes: int
    by_db: list
    by_type: list
    by_encoding: list
    memory: MemoryEstimate


def summarize(keys):
    """Count a :class:`~rdbscope.KeyTable` by db, by type and by type/encoding."""
    counter = SummaryCounter()
    for batch in keys.to_arrow().to_batches():
        counter.add(batch)
    return counter.summary(keys.info)


class SummaryCounter:
    """Keys counted by (db, type, encoding) batch by batch, as a scan yields them: ``info``'s figures
    without a table of the whole dump."""

    def __init__(self):
        #: (db, type, encoding) -> [keys, keys with a TTL, rdb bytes, estimated memory bytes]
        self.groups = {}

    def add(self, batch):
        """Count one record batch of :data:`~rdbscope.rdb.KEYS_SCHEMA`."""
        if batch.num_rows == 0:
            return
        types, encodings = _dictionary(batch.column("type")), _dictionary(batch.column("encoding"))
        n_encodings = len(encodings[1])
        size = len(types[1]) * n_encodings
        code = types[0].astype(np.int32) * n_encodings + encodings[0]
        has_ttl = batch.column("expire_at").is_valid().to_numpy(zero_copy_only=False)
        rdb_bytes = _numbers(batch.column("rdb_bytes"))
        memory = _numbers(batch.column("est_memory_bytes"))
        db = batch.column("db").to_numpy(zero_copy_only=False)
        low, high = int(db.min()), int(db.max())
        for one_db in ([low] if low == high else np.unique(db).tolist()):
            rows = slice(None) if low == high else db == one_db
            c = code[rows]
            counts = np.bincount(c, minlength=size)
            present = np.flatnonzero(counts)
            if len(present) == 1:  # the common case: one type and encoding, sums without grouping
                sums = [(present[0], (int(np.count_nonzero(has_ttl[rows])), int(rdb_bytes[rows].sum()),
                                      int(memory[rows].sum())))]
            else:
                with_ttl = np.bincount(c[has_ttl[rows]], minlength=size)
                # float64 weights are exact while a batch's sums stay below 2**53 bytes (8 PB).
                grouped = [np.bincount(c, weights=w[rows], minlength=size) for w in (rdb_bytes, memory)]
                sums = [(k, (int(with_ttl[k]), int(grouped[0][k]), int(grouped[1][k]))) for k in present]
            for k, (ttl, rdb, mem) in sums:
                key = (int(one_db), types[1][k // n_encodings], encodings[1][k % n_encodings])
                totals = self.groups.setdefault(key, [0, 0, 0, 0])
                totals[0] += int(counts[k])
                totals[1] += ttl
                totals[2] += rdb
                totals[3] += mem

    def summary(self, info):
        """The :class:`DumpSummary` of what was counted, with ``info`` (the dump's
        :class:`~rdbscope.rdb.DumpInfo`) for the memory model and ``used-mem``."""
        def by(name_of):
            merged = {}
            for key, totals in self.groups.items():
                into = merged.setdefault(name_of(key), [0, 0, 0, 0])
                for i, value in enumerate(totals):
                    into[i] += value
            return [GroupCount(str(name), *totals) for name, totals in merged.items()]

        by_db = sorted(by(lambda k: k[0]), key=lambda g: int(g.name))
        return DumpSummary(
            n_keys=sum(g.n_keys for g in by_db),
            rdb_bytes=sum(g.rdb_bytes for g in by_db),
            by_db=by_db,
            by_type=sorted(by(lambda k: k[1]), key=lambda g: (-g.n_keys, g.name)),
            by_encoding=sorted(by(lambda k: f"{k[1]}/{k[2]}"), key=lambda g: (-g.n_keys, g.name)),
            memory=estimate_from_counts(info, [(int(g.name), g.n_keys, g.n_with_ttl, g.est_memory_bytes)
                                               for g in by_db]),
        )


def _dictionary(column):
    """(indices as numpy, names) of a dictionary column."""
    return column.indices.to_numpy(zero_copy_only=False), column.dictionary.to_pylist()


def _numbers(column):
    """A uint64 column as numpy, nulls as 0."""
    return (pc.fill_null(column, 0) if column.null_count else column).to_numpy(zero_copy_only=False)


def estimate_memory(keys):
    """Per-db and whole-dump memory estimates of a :class:`~rdbscope.KeyTable`."""
    table = keys.to_arrow()
    per_db = []
    if table.num_rows:
        counted = table.append_column("has_ttl", pc.is_valid(table["expire_at"]).cast("int64"))
        grouped = counted.group_by("db").aggregate(
            [("key", "count"), ("has_ttl", "sum"), ("est_memory_bytes", "sum")])
        per_db = [(r["db"], r["key_count"], r["has_ttl_sum"], r["est_memory_bytes_sum"] or 0)
                  for r in grouped.to_pylist()]
    return estimate_from_counts(keys.info, per_db)


def estimate_from_counts(info, per_db):
    """The :class:`MemoryEstimate` of ``[(db, keys, keys with a TTL, estimated memory of the keys)]``."""
    model = info.memory_model
    by_db = [DbMemory(db, n, ttl, memory, db_overhead_bytes(model.layout, n, ttl) if model else 0)
             for db, n, ttl, memory in sorted(per_db)]
    keys_bytes = sum(d.keys_bytes for d in by_db)
    overhead = sum(d.overhead_bytes for d in by_db)
    used_mem = info.aux.get("used-mem")
    return MemoryEstimate(
        by_db=by_db,
        keys_bytes=keys_bytes,
        overhead_bytes=overhead,
        total_bytes=keys_bytes + overhead,
        used_mem_bytes=int(used_mem) if used_mem and used_mem.isdigit() else None,
        model=model.describe() if model else None,
    )
