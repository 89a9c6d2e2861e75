"""What ``rdbscope info`` shows: counts of a KeyTable by db, type and encoding."""

from dataclasses import dataclass

import pyarrow.compute as pc


@dataclass(frozen=True)
class GroupCount:
    """Keys of one group (a db, a type, or a type and encoding) and their dump bytes."""

    name: str
    n_keys: int
    n_with_ttl: int
    rdb_bytes: int


@dataclass(frozen=True)
class DumpSummary:
    """Headline figures of a dump."""

    n_keys: int
    rdb_bytes: int
    by_db: list
    by_type: list
    by_encoding: list


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
    )


def _count(table, column):
    if table.num_rows == 0:
        return []
    if column == "type":
        table = table.set_column(table.schema.get_field_index("type"), "type", table["type"].cast("string"))
    grouped = table.group_by(column).aggregate([("key", "count"), ("has_ttl", "sum"), ("rdb_bytes", "sum")])
    rows = [
        GroupCount(str(r[column]), r["key_count"], r["has_ttl_sum"], r["rdb_bytes_sum"])
        for r in grouped.to_pylist()
    ]
    if column == "db":
        return sorted(rows, key=lambda g: int(g.name))
    return sorted(rows, key=lambda g: (-g.n_keys, g.name))
