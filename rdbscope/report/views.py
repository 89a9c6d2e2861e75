"""What each front end shows of a :class:`~rdbscope.Result`: ready-made tables, no rendering.

The terminal, JSON, CSV and HTML renderers all read these, so every output
agrees. Column names carry their units (``*_bytes``, ``*_share``, ``ttl_s_*``)
and renderers format by them.
"""

import datetime
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..findings import Finding, Severity
from ..keyspace.grouping import largest_rows
from ..rdb.instants import ctime_seconds, expiry_values
from ..rdb.keytext import key_text
from ..summary import estimate_from_counts, estimate_memory
from ..values import VALUE_COLUMNS

__all__ = [
    "Overview", "overview", "pattern_rows", "big_key_rows", "ttl_overview_rows", "ttl_pattern_rows",
    "expiry_burst_rows", "expiry_timeline_rows", "finding_rows", "findings_at_or_above", "node_rows",
    "NODE_COLUMNS",
]

PATTERN_SORTS = {"memory": "memory_bytes_sum", "keys": "n_keys", "rdb": "rdb_bytes_sum"}


@dataclass(frozen=True)
class Overview:
    """Headline figures of one analysed dump.

    Attributes:
        source: the file name of the dump (or keys Parquet) read, or a running server's URL without its password.
        magic, rdb_version, writer: the dump's format and the server that wrote it.
        ctime: when the dump was written (AUX ``ctime``), UTC, or None.
        n_keys, n_with_ttl, n_expired: keys; keys with a TTL; keys already
            expired at ``ctime``.
        n_dbs, n_patterns: databases and inferred patterns.
        rdb_bytes: bytes of the key entries in the dump.
        memory_bytes: memory of the keys (``memory_basis`` says what it measures).
        memory_basis: ``est_memory_bytes`` or ``rdb_bytes``.
        est_total_memory_bytes: estimated memory of keys plus the key tables'
            own overhead; None without a memory model.
        used_mem_bytes: the writer's ``used-mem`` AUX field, or None.
        n_findings: findings by severity name (``error``, ``warning``, ``info``).
        n_sources: dumps read (several: a cluster's nodes; then ``magic``,
            ``rdb_version``, ``writer`` and ``ctime`` are the first dump's,
            and the memory totals sum every dump's).
        memory_model: which server layout and allocator the estimates assume,
            why, and how to change them (``MemoryModelInfo.describe()``), or None.
    """

    source: str | None
    magic: str | None
    rdb_version: int | None
    writer: str | None
    ctime: datetime.datetime | None
    n_keys: int
    n_with_ttl: int
    n_expired: int | None
    n_dbs: int
    n_patterns: int
    rdb_bytes: int
    memory_bytes: int
    memory_basis: str
    est_total_memory_bytes: int | None
    used_mem_bytes: int | None
    n_findings: dict
    n_sources: int = 1
    memory_model: str | None = None

    def as_dict(self) -> dict:
        """Plain values (``ctime`` as ISO text), for JSON."""
        data = dict(self.__dict__)
        data["ctime"] = _iso(self.ctime)
        data["n_findings"] = dict(self.n_findings)
        return data


def overview(res, source=None) -> Overview:
    """The :class:`Overview` of a result."""
    if res.bounded:
        return _bounded_overview(res, source)
    table = res.keys.to_arrow()
    info = res.info
    ttl = _whole_dump_ttl(res)
    memory = estimate_memory(res.keys)
    est_total, used_mem = memory.total_bytes if memory.model else None, memory.used_mem_bytes
    if res.keys.n_sources > 1:
        est_total, used_mem = (_sum_or_none(getattr(s, name) for s in res.keys.sources)
                               for name in ("est_total_memory_bytes", "used_mem_bytes"))
    ctime = dump_ctime(info)
    return Overview(
        source=source if source is not None else (_file_name(info.path) if info.path else None),
        magic=info.magic,
        rdb_version=info.rdb_version,
        writer=info.writer,
        ctime=ctime,
        n_keys=table.num_rows,
        n_with_ttl=ttl["n_with_ttl"],
        n_expired=ttl["n_expired"],
        n_dbs=len(pc.unique(table["db"])) if table.num_rows else 0,
        n_patterns=res.tables["patterns"].num_rows if "patterns" in res.tables else 0,
        rdb_bytes=int(pc.sum(table["rdb_bytes"]).as_py() or 0),
        memory_bytes=int(pc.sum(key_memory(res)).as_py() or 0),
        memory_basis=res.memory_basis,
        est_total_memory_bytes=est_total,
        used_mem_bytes=used_mem,
        n_findings={str(s): sum(1 for f in res.finding_list if f.severity == s) for s in reversed(Severity)},
        n_sources=res.keys.n_sources,
        memory_model=memory.model,
    )


def _bounded_overview(res, source):
    """The overview of a bounded run, from its per-db TTL overview (its keys are only those it named)."""
    info = res.info
    rows = res.tables["ttl_overview"].to_pylist()
    per_db = [r for r in rows if r["db"] is not None]
    whole = next(r for r in rows if r["db"] is None)
    estimated = res.memory_basis == "est_memory_bytes"
    memory = estimate_from_counts(info, [(r["db"], r["n_keys"], r["n_with_ttl"], r["memory_bytes"] if estimated else 0)
                                         for r in per_db])
    est_total, used_mem = memory.total_bytes if memory.model and estimated else None, memory.used_mem_bytes
    if res.keys.n_sources > 1:
        est_total = None
        used_mem = _sum_or_none(s.used_mem_bytes for s in res.keys.sources)
    return Overview(
        source=source if source is not None else (_file_name(info.path) if info.path else None),
        magic=info.magic, rdb_version=info.rdb_version, writer=info.writer, ctime=dump_ctime(info),
        n_keys=res.n_keys, n_with_ttl=whole["n_with_ttl"], n_expired=whole["n_expired"], n_dbs=len(per_db),
        n_patterns=res.tables["patterns"].num_rows,
        rdb_bytes=int(pc.sum(res.tables["patterns"]["rdb_bytes_sum"]).as_py() or 0),
        memory_bytes=whole["memory_bytes"], memory_basis=res.memory_basis,
        est_total_memory_bytes=est_total, used_mem_bytes=used_mem,
        n_findings={str(s): sum(1 for f in res.finding_list if f.severity == s) for s in reversed(Severity)},
        n_sources=res.keys.n_sources,
        memory_model=memory.model,
    )


def _sum_or_none(values):
    values = list(values)
    return None if any(v is None for v in values) else sum(values)


def dump_ctime(info) -> datetime.datetime | None:
    """When the dump was written (AUX ``ctime``) as an aware UTC datetime, or None."""
    seconds = ctime_seconds(info.aux)
    return None if seconds is None else datetime.datetime.fromtimestamp(seconds, tz=datetime.timezone.utc)


def key_memory(res) -> pa.ChunkedArray:
    """Each key's memory in the result's basis (estimate, or size in the dump)."""
    table = res.keys.to_arrow()
    if res.memory_basis == "rdb_bytes":
        return table["rdb_bytes"]
    return pc.coalesce(table["est_memory_bytes"], table["rdb_bytes"])


def pattern_rows(res, top=None, sort="memory") -> pd.DataFrame:
    """The pattern table: largest first by ``sort`` (memory, keys or rdb), at most ``top`` rows.

    Columns: db, pattern, library, key_kind, n_keys, share, memory_bytes_sum, memory_share,
    memory_bytes_p50, memory_bytes_max, rdb_bytes_sum, n_with_ttl, ttl_share,
    ttl_s_p50, ttl_s_max, types, encodings, value_format, element_format, value_bytes_typical,
    value_zstd_ratio, values_sampled, examples.
    """
    frame = res.tables["patterns"].to_pandas()
    frame["ttl_share"] = np.where(frame["n_keys"] > 0, frame["n_with_ttl"] / frame["n_keys"].clip(lower=1), 0.0)
    frame = frame.sort_values([PATTERN_SORTS[sort], "n_keys", "db", "pattern"],
                              ascending=[False, False, True, True], kind="stable")
    columns = ["db", "pattern", "library", "key_kind", "n_keys", "share", "memory_bytes_sum", "memory_share",
               "memory_bytes_p50", "memory_bytes_max", "rdb_bytes_sum", "n_with_ttl", "ttl_share", "ttl_s_p50",
               "ttl_s_max", "types", "encodings", *VALUE_COLUMNS, "examples"]
    return _top(frame[columns], top)


#: The per-dump table of several dumps read as one keyspace.
NODE_COLUMNS = ["source", "writer", "n_keys", "keys_share", "memory_bytes", "memory_share", "n_with_ttl",
                "ttl_share", "slots", "n_slots"]


def node_rows(res):
    """One row per dump read (a cluster's nodes): its path, writer, keys, memory and TTL share,
    and the hash slots its keys fall in (``slots``: the node's ranges when its keys are
    one node's share (CLU004), else the ranges they hash to; ``n_slots``: slots with keys).

    Made from each dump's :class:`~rdbscope.sources.SourceSummary`, not from the keys.
    """
    from ..rules.cluster import node_ranges_text, node_slots

    sources = res.keys.sources
    total_keys = sum(s.n_keys for s in sources) or 1
    total_memory = sum(s.memory_bytes(res.memory_basis) for s in sources) or 1
    rows = []
    for s in sources:
        memory = s.memory_bytes(res.memory_basis)
        rows.append({
            "source": s.path, "writer": s.info.writer, "n_keys": s.n_keys, "keys_share": s.n_keys / total_keys,
            "memory_bytes": memory, "memory_share": memory / total_memory, "n_with_ttl": s.n_with_ttl,
            "ttl_share": s.n_with_ttl / s.n_keys if s.n_keys else 0.0,
            "slots": node_ranges_text(s, node_slots(s.info, s.slot_keys, s.dbs)),
            "n_slots": int(np.count_nonzero(s.slot_keys)),
        })
    return pd.DataFrame(rows, columns=NODE_COLUMNS)


def big_key_rows(res, top=10, by="memory") -> pd.DataFrame:
    """The largest keys by ``memory`` or by ``length`` (string bytes or element count).

    Columns: db, key, pattern, type, encoding, memory_bytes, rdb_bytes,
    n_elements, expire_at, codes (the BIG codes whose threshold the key is over);
    for several dumps, source (the dump the key is in) after key.
    """
    table = res.keys.to_arrow()
    memory = key_memory(res)
    if table.num_rows == 0:
        return _empty(["db", "key", "pattern", "type", "encoding", "memory_bytes", "rdb_bytes",
                       "n_elements", "expire_at", "codes"])
    measure = (memory if by == "memory" else pc.fill_null(table["n_elements"], 0)).to_numpy()
    if top and top < table.num_rows:
        order = largest_rows(measure, top)
    else:
        order = np.lexsort((np.arange(table.num_rows), -np.asarray(measure, dtype=np.float64)))
    chosen = pa.array(order[:top] if top else order)
    taken = table.take(chosen)
    frame = pd.DataFrame({
        "db": taken["db"].to_numpy(),
        "key": [key_text(k) for k in taken["key"].to_pylist()],
        "pattern": taken["pattern"].to_pylist() if "pattern" in taken.column_names else None,
        "type": taken["type"].cast(pa.string()).to_pylist(),
        "encoding": taken["encoding"].cast(pa.string()).to_pylist(),
        "memory_bytes": memory.take(chosen).to_numpy(),
        "rdb_bytes": taken["rdb_bytes"].to_numpy(),
        "n_elements": taken["n_elements"].to_pylist(),
        "expire_at": expiry_values(taken["expire_at"]),
    })
    codes = {}
    if "big_keys" in res.tables:
        for row in res.tables["big_keys"].select(["db", "key", "codes"]).to_pylist():
            codes[(row["db"], row["key"])] = row["codes"]
    frame["codes"] = [codes.get((db, key), []) for db, key in zip(frame["db"], frame["key"], strict=True)]
    if "source" in taken.column_names:
        frame.insert(2, "source", taken["source"].cast(pa.string()).to_pylist())
    return frame


def ttl_overview_rows(res) -> pd.DataFrame:
    """TTL coverage per db and for the whole dump (``db`` empty), as the ttl pass measured it."""
    frame = res.tables["ttl_overview"].to_pandas()
    frame["db"] = frame["db"].astype("Int64")
    return frame[["db", "n_keys", "n_with_ttl", "n_persistent", "persistent_share", "memory_bytes",
                  "memory_bytes_persistent", "persistent_memory_share", "n_expired"]]


def ttl_pattern_rows(res, top=None) -> pd.DataFrame:
    """Per pattern: keys without TTL and the memory they hold, worst first; TTL percentiles beside."""
    coverage = res.tables["ttl_coverage"].to_pandas()
    patterns = res.tables["patterns"].to_pandas()[["db", "pattern", "ttl_s_p50", "ttl_s_p90", "ttl_s_max"]]
    frame = coverage.merge(patterns, on=["db", "pattern"], how="left")
    frame = frame.sort_values(["memory_bytes_without_ttl", "n_without_ttl", "db", "pattern"],
                              ascending=[False, False, True, True], kind="stable")
    columns = ["db", "pattern", "n_keys", "n_with_ttl", "n_without_ttl", "share_without_ttl",
               "memory_bytes_without_ttl", "memory_share_without_ttl", "n_expired", "volatile_name",
               "ttl_s_p50", "ttl_s_p90", "ttl_s_max"]
    return _top(frame[columns], top)


def expiry_burst_rows(res, top=None) -> pd.DataFrame:
    """Expiry incidents: where far more keys of a pattern (or of the dump) expire together than its spread
    predicts, adjacent windows merged; most keys first (none when the expiry pass did not run).
    How far over the spread each went is in the findings' details and the table's ``peak_ratio``."""
    columns = ["scope", "db", "pattern", "start", "end", "n_keys", "memory_bytes", "share_of_ttl_keys",
               "keys_in_batches"]
    if "expiry_bursts" not in res.tables:
        return _empty(columns)
    frame = res.tables["expiry_bursts"].to_pandas()
    frame["db"] = frame["db"].astype("Int64")
    frame = frame.sort_values(["n_keys", "start", "scope"], ascending=[False, True, False], kind="stable")
    return _top(frame[columns], top)


def expiry_timeline_rows(res, top=None) -> pd.DataFrame:
    """Keys expiring per bucket from the bucket holding the dump's ctime on, buckets where none
    expire left out; with ``top``, the ``top`` busiest buckets (the earlier of a tie), still in time
    order. ``n_keys_cumulative`` counts every bucket up to the row's end, shown or not."""
    frame = res.tables["expiry_timeline"].to_pandas()
    frame = frame[frame["n_keys"] > 0]
    if top:
        busiest = frame.sort_values("n_keys", ascending=False, kind="stable").head(top)
        frame = frame.loc[sorted(busiest.index)]
    return frame.reset_index(drop=True)


def finding_rows(res, top=None, families=None) -> pd.DataFrame:
    """Findings, most severe first; only the code ``families`` given (e.g. ``("BIG",)``) when set."""
    frame = res.findings
    if families:
        frame = frame[frame["code"].str[:3].isin(list(families))]
    frame = frame.copy()
    frame["db"] = frame["db"].astype("Int64")
    return _top(frame[["severity", "code", "name", "db", "pattern", "n_keys", "est_memory_bytes", "message",
                       "examples", "details"]], top)


def findings_at_or_above(findings, severity, families=None) -> list[Finding]:
    """The findings (:class:`~rdbscope.Finding`) at or above ``severity``, of these families if given."""
    level = Severity.parse(severity)
    return [f for f in findings if f.severity >= level and (not families or f.code[:3] in families)]


def _whole_dump_ttl(res):
    overview_table = res.tables.get("ttl_overview")
    if overview_table is not None:
        for row in overview_table.to_pylist():
            if row["db"] is None:
                return {"n_with_ttl": row["n_with_ttl"], "n_expired": row["n_expired"]}
    table = res.keys.to_arrow()
    return {"n_with_ttl": table.num_rows - table["expire_at"].null_count, "n_expired": None}


def _top(frame, top):
    frame = frame.reset_index(drop=True)
    return frame.head(top) if top else frame


def _empty(columns):
    return pd.DataFrame({name: [] for name in columns})


def _iso(value):
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


def _file_name(path):
    return str(path).replace("\\", "/").rsplit("/", 1)[-1]
