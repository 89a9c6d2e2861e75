"""What ``rdbscope info`` shows: counts of a KeyTable by db, type and encoding."""

from dataclasses import dataclass

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
    table = keys.to_arrow()
    table = table.append_column("has_ttl", pc.is_valid(table["expire_at"]).cast("int64"))
    table = table.append_column(
        "type_encoding",
        pc.binary_join_element_wise(table["type"].cast("string"), table["encoding"].cast("string"), "/"),
    )
    return DumpSummary(
        n_keys=table.num_rows,
        rdb_bytes=int(pc.sum(table["rdb_bytes"]).as_py() or 0),
        by_db=_count(table, "db"),
        by_type=_count(table, "type"),
        by_encoding=_count(table, "type_encoding"),
        memory=estimate_memory(keys),
    )


def estimate_memory(keys):
    """Per-db and whole-dump memory estimates of a :class:`~rdbscope.KeyTable`."""
    table = keys.to_arrow()
    model = keys.info.memory_model
    by_db = []
    if table.num_rows:
        counted = table.append_column("has_ttl", pc.is_valid(table["expire_at"]).cast("int64"))
        grouped = counted.group_by("db").aggregate(
            [("key", "count"), ("has_ttl", "sum"), ("est_memory_bytes", "sum")])
        for r in sorted(grouped.to_pylist(), key=lambda r: r["db"]):
            overhead = db_overhead_bytes(model.layout, r["key_count"], r["has_ttl_sum"]) if model else 0
            by_db.append(DbMemory(r["db"], r["key_count"], r["has_ttl_sum"], r["est_memory_bytes_sum"] or 0,
                                  overhead))
    keys_bytes = sum(d.keys_bytes for d in by_db)
    overhead = sum(d.overhead_bytes for d in by_db)
    used_mem = keys.info.aux.get("used-mem")
    return MemoryEstimate(
        by_db=by_db,
        keys_bytes=keys_bytes,
        overhead_bytes=overhead,
        total_bytes=keys_bytes + overhead,
        used_mem_bytes=int(used_mem) if used_mem and used_mem.isdigit() else None,
        model=model.describe() if model else None,
    )


def _count(table, column):
    if table.num_rows == 0:
        return []
    if column == "type":
        table = table.set_column(table.schema.get_field_index("type"), "type", table["type"].cast("string"))
    grouped = table.group_by(column).aggregate(
        [("key", "count"), ("has_ttl", "sum"), ("rdb_bytes", "sum"), ("est_memory_bytes", "sum")])
    rows = [
        GroupCount(str(r[column]), r["key_count"], r["has_ttl_sum"], r["rdb_bytes_sum"],
                   r["est_memory_bytes_sum"] or 0)
        for r in grouped.to_pylist()
    ]
    if column == "db":
        return sorted(rows, key=lambda g: int(g.name))
    return sorted(rows, key=lambda g: (-g.n_keys, g.name))
