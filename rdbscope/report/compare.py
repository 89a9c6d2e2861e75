"""Compare reports: two snapshots (``diff``) or every partition of a dataset (``trend``).

A :class:`Snapshot` is what a comparison needs of one report, taken from a
fresh :class:`~rdbscope.Result` or read back from a dataset partition, so a
dump can be compared with last week's Parquet report.
"""

import fnmatch
import os
import pathlib
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import InputError
from ..sizes import parse_size
from ..sources import is_url, open_url_fs, storage_errors
from .dataset import read_table
from .views import overview

__all__ = ["Snapshot", "snapshot_of_result", "snapshot_of_partition", "is_partition", "diff_patterns",
           "diff_findings", "trend_rows", "pivot_trend", "MemoryChange", "memory_change", "GrowthLimit",
           "parse_growth", "latest_memory_changes", "format_change"]

PATTERN_COLUMNS = ["db", "pattern", "n_keys", "memory_bytes_sum", "types"]
FINDING_COLUMNS = ["code", "name", "severity", "db", "pattern", "n_keys", "est_memory_bytes", "message"]
#: Relative change below which a pattern counts as unchanged.
STEADY = 0.01
#: Findings of a family of keys that only grows: diff and trend confirm them with a later dump.
GROWTH_CODES = ("GRO001", "LIB001")


@dataclass(frozen=True)
class Snapshot:
    """The parts of one report that comparisons read.

    Attributes:
        label: where it came from (a file name or a partition path).
        patterns: DataFrame of ``db, pattern, n_keys, memory_bytes_sum, types``.
        findings: DataFrame of ``code, name, severity, db, pattern, n_keys, est_memory_bytes, message``.
        n_keys, memory_bytes: the totals.
        memory_basis: what ``memory_bytes`` measures.
    """

    label: str
    patterns: pd.DataFrame
    findings: pd.DataFrame
    n_keys: int
    memory_bytes: int
    memory_basis: str


def snapshot_of_result(res, label) -> Snapshot:
    """A :class:`Snapshot` of a fresh analysis."""
    o = overview(res, label)
    return Snapshot(label, res.tables["patterns"].to_pandas()[PATTERN_COLUMNS], res.findings[FINDING_COLUMNS],
                    o.n_keys, o.memory_bytes, o.memory_basis)


def is_partition(path) -> bool:
    """True for a directory (or an fsspec URL's prefix) holding a report partition: ``patterns.parquet``
    and ``findings.parquet``."""
    files = _partition_files(path)
    return "patterns.parquet" in files and "findings.parquet" in files


def _partition_files(path):
    """The names of the files directly under ``path`` (a directory or an fsspec URL); empty if none."""
    if is_url(os.fspath(path)):
        fs, prefix = open_url_fs(os.fspath(path))
        try:
            return {p.rsplit("/", 1)[-1] for p in fs.ls(prefix.rstrip("/"), detail=False)} if fs.isdir(prefix) \
                else set()
        except storage_errors():  # then not a partition; read as a dump, its error is said there
            return set()
    path = pathlib.Path(path)
    return {p.name for p in path.iterdir()} if path.is_dir() else set()


def _read(partition, name):
    if is_url(os.fspath(partition)):
        fs, prefix = open_url_fs(os.fspath(partition))
        with fs.open(f"{prefix.rstrip('/')}/{name}", "rb") as f:  # parsed from memory: see dataset._read_remote_table
            return pq.read_table(pa.BufferReader(f.read()))
    return pq.read_table(pathlib.Path(partition) / name)


def snapshot_of_partition(path, *, db=None, types=None, match=None) -> Snapshot:
    """A :class:`Snapshot` read from one partition of a report dataset (a directory, or an fsspec URL
    such as ``s3://bucket/reports/instance=cache-1/date=2026-11-23``), filtered like a scan.

    Raises:
        InputError: the directory is not a report partition, or one on object storage not yet (or not
            wholly) published.
    """
    files = _partition_files(path)
    if not ("patterns.parquet" in files and "findings.parquet" in files):
        raise InputError(f"{path}: not a report partition (no patterns.parquet and findings.parquet)")
    if is_url(os.fspath(path)) and "summary.parquet" not in files:  # published last on object storage
        raise InputError(f"{path}: no summary.parquet: a partition still being published, or whose publishing "
                         "stopped part-way")
    patterns = filter_patterns(_read(path, "patterns.parquet").to_pandas(), db, types, match)
    findings = _read(path, "findings.parquet").to_pandas()
    findings = findings[findings["pattern"].isna() | findings.set_index(["db", "pattern"]).index.isin(
        patterns.set_index(["db", "pattern"]).index)] if (db or types or match) else findings
    summary = _read(path, "summary.parquet").to_pylist()[0] if "summary.parquet" in files else {}
    filtered = bool(db or types or match)
    return Snapshot(
        str(path), patterns[PATTERN_COLUMNS].reset_index(drop=True), findings[FINDING_COLUMNS].reset_index(drop=True),
        int(patterns["n_keys"].sum()) if filtered or not summary else summary["n_keys"],
        int(patterns["memory_bytes_sum"].sum()) if filtered or not summary else summary["memory_bytes"],
        summary.get("memory_basis") or (patterns["memory_basis"].iloc[0] if len(patterns) else "est_memory_bytes"),
    )


def filter_patterns(frame, db=None, types=None, match=None) -> pd.DataFrame:
    """Pattern rows of these dbs, holding one of these types, whose pattern matches the glob."""
    mask = np.ones(len(frame), dtype=bool)
    if db:
        mask &= frame["db"].isin(list(db)).to_numpy()
    if types:
        wanted = set(types)
        mask &= np.array([bool(wanted.intersection(list(t))) for t in frame["types"]], dtype=bool)
    if match:
        mask &= np.array([fnmatch.fnmatchcase(p, match) for p in frame["pattern"]], dtype=bool)
    return frame[mask]


def diff_patterns(old, new, include_unchanged=False) -> pd.DataFrame:
    """Patterns that appeared, vanished, grew or shrank between two snapshots, largest memory change first.

    Columns: change, leak, db, pattern, n_keys_old, n_keys_new, n_keys_delta,
    memory_bytes_old, memory_bytes_new, memory_bytes_delta, memory_change_share
    (delta over the old memory; null for appeared patterns). A pattern whose
    memory and key count moved less than 1% is ``unchanged``. ``leak`` is the code of
    a growth finding of the new side (GRO001, LIB001) whose pattern gained keys since
    the old one, which confirms it; "" otherwise.
    """
    # Patterns as Python strings: pandas cannot merge two empty Arrow-backed string columns (dumps without keys).
    left = old.patterns[["db", "pattern", "n_keys", "memory_bytes_sum"]].astype({"pattern": object})
    right = new.patterns[["db", "pattern", "n_keys", "memory_bytes_sum"]].astype({"pattern": object})
    merged = left.merge(right, on=["db", "pattern"], how="outer", suffixes=("_old", "_new"), indicator=True)
    for side in ("old", "new"):
        merged[f"n_keys_{side}"] = merged[f"n_keys_{side}"].fillna(0).astype("int64")
        merged[f"memory_bytes_{side}"] = merged[f"memory_bytes_sum_{side}"].fillna(0).astype("int64")
    merged["n_keys_delta"] = merged["n_keys_new"] - merged["n_keys_old"]
    merged["memory_bytes_delta"] = merged["memory_bytes_new"] - merged["memory_bytes_old"]
    old_memory = merged["memory_bytes_old"].astype("float64")
    merged["memory_change_share"] = np.where(old_memory > 0, merged["memory_bytes_delta"] / old_memory.clip(lower=1),
                                             np.nan)
    steady = ((merged["memory_bytes_delta"].abs() <= STEADY * old_memory)
              & (merged["n_keys_delta"].abs() <= STEADY * merged["n_keys_old"]))
    merged["change"] = np.select(
        [merged["_merge"] == "right_only", merged["_merge"] == "left_only", steady, merged["memory_bytes_delta"] > 0],
        ["appeared", "vanished", "unchanged", "grew"], default="shrank")
    leaks = new.findings[new.findings["code"].isin(GROWTH_CODES)]
    leak_of = dict(zip(zip(leaks["db"], leaks["pattern"], strict=True), leaks["code"], strict=True))
    rows = zip(merged["db"], merged["pattern"], merged["n_keys_delta"], strict=True)
    merged["leak"] = [leak_of.get((db, pattern), "") if grew > 0 else "" for db, pattern, grew in rows]
    if not include_unchanged:
        merged = merged[merged["change"] != "unchanged"]
    merged = merged.assign(_size=merged["memory_bytes_delta"].abs()).sort_values(
        ["_size", "db", "pattern"], ascending=[False, True, True], kind="stable")
    return merged[["change", "leak", "db", "pattern", "n_keys_old", "n_keys_new", "n_keys_delta", "memory_bytes_old",
                   "memory_bytes_new", "memory_bytes_delta", "memory_change_share"]].reset_index(drop=True)


def diff_findings(old, new) -> pd.DataFrame:
    """Findings that are new in ``new`` or resolved since ``old``, matched on (code, db, pattern).

    Columns: change (new / resolved), severity, code, name, db, pattern, n_keys,
    est_memory_bytes, message (of the newer side for new, the older for resolved).
    """
    def identity(frame):
        db = frame["db"].astype("Int64").fillna(-1)
        return list(zip(frame["code"], db, frame["pattern"].fillna(""), strict=True))

    def absent(frame, ids):
        # A bool array, not a list: an empty list would select no columns instead of no rows.
        return np.array([i not in ids for i in identity(frame)], dtype=bool)

    old_ids, new_ids = set(identity(old.findings)), set(identity(new.findings))
    appeared = new.findings[absent(new.findings, old_ids)].assign(change="new")
    resolved = old.findings[absent(old.findings, new_ids)].assign(change="resolved")
    frame = pd.concat([appeared, resolved], ignore_index=True)
    frame["db"] = frame["db"].astype("Int64")
    return frame[["change", "severity", "code", "name", "db", "pattern", "n_keys", "est_memory_bytes", "message"]]


def trend_rows(directory, instance=None, db=None, types=None, match=None) -> pd.DataFrame:
    """Every (instance, date, db, pattern) of a dataset: ``n_keys`` and ``memory_bytes_sum``, oldest first."""
    table = read_table(directory, "patterns", instance)
    frame = table.select(["instance", "date", "db", "pattern", "n_keys", "memory_bytes_sum", "types"]).to_pandas()
    frame["instance"] = frame["instance"].astype(str)
    frame["date"] = frame["date"].astype(str)
    frame = filter_patterns(frame, db, types, match)
    return frame.drop(columns=["types"]).sort_values(["instance", "date", "db", "pattern"]).reset_index(drop=True)


def pivot_trend(rows, metric="memory_bytes_sum", top=20, last=7) -> pd.DataFrame:
    """One row per (instance, db, pattern), one column per date (the ``last`` dates), plus the change.

    Patterns are the ``top`` largest on their instance's latest date; a pattern
    absent on a date shows 0. Columns: instance, db, pattern, the dates,
    ``grew_each_date`` (more on every date shown than on the one before, over at least
    two: a growth that confirms GRO001) and ``change`` (latest minus earliest shown).
    """
    if rows.empty:
        return pd.DataFrame(columns=["instance", "db", "pattern", "grew_each_date", "change"])
    dates = sorted(rows["date"].unique())[-last:]
    # Parquet keeps the sums as uint64, where a shrinking pattern's change would wrap around.
    rows = rows[rows["date"].isin(dates)].astype({metric: "int64"})
    table = rows.pivot_table(index=["instance", "db", "pattern"], columns="date", values=metric, aggfunc="sum",
                             fill_value=0)
    table = table.reindex(columns=dates, fill_value=0)
    latest = rows.groupby("instance")["date"].max()
    latest_values = [table.loc[idx, latest[idx[0]]] for idx in table.index]
    table["grew_each_date"] = (len(dates) >= 2) & (table[dates].diff(axis=1).iloc[:, 1:] > 0).all(axis=1)
    table["change"] = table[dates[-1]] - table[dates[0]]
    table["_latest"] = latest_values
    table = table.sort_values("_latest", ascending=False, kind="stable").drop(columns="_latest")
    table = table.groupby(level="instance", group_keys=False, sort=True).head(top)
    table.columns = [str(c) for c in table.columns]
    return table.reset_index()


@dataclass(frozen=True)
class MemoryChange:
    """How the total memory moved from one report to another.

    Attributes:
        memory_bytes_old, memory_bytes_new: the totals.
        memory_bytes_delta: new minus old.
        memory_change_share: the delta over the old total; None when the old total is 0.
    """

    memory_bytes_old: int
    memory_bytes_new: int
    memory_bytes_delta: int
    memory_change_share: float | None

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def format_change(change: MemoryChange) -> str:
    """``"+1.2 MB (+25.0%)"``: the delta, and its share of the old total when there was one."""
    from ..findings import format_bytes

    sign = "+" if change.memory_bytes_delta > 0 else "-" if change.memory_bytes_delta < 0 else ""
    said = f"{sign}{format_bytes(abs(change.memory_bytes_delta))}"
    return said if change.memory_change_share is None else f"{said} ({change.memory_change_share:+.1%})"


def memory_change(old_bytes, new_bytes) -> MemoryChange:
    """The :class:`MemoryChange` from ``old_bytes`` to ``new_bytes``."""
    old_bytes, new_bytes = int(old_bytes), int(new_bytes)
    delta = new_bytes - old_bytes
    return MemoryChange(old_bytes, new_bytes, delta, delta / old_bytes if old_bytes else None)


@dataclass(frozen=True)
class GrowthLimit:
    """How much the total memory may grow: ``bytes``, or a ``share`` of the old total (0.2 for 20%).

    ``text`` is how the user wrote it.
    """

    text: str
    bytes: int | None = None
    share: float | None = None

    def exceeded_by(self, change: MemoryChange) -> bool:
        """True when ``change`` grew by more than the limit (from nothing, any growth is more than a share)."""
        if change.memory_bytes_delta <= 0:
            return False
        if self.bytes is not None:
            return change.memory_bytes_delta > self.bytes
        share = self.share if self.share is not None else 0.0
        return change.memory_change_share is None or change.memory_change_share > share


def parse_growth(text) -> GrowthLimit:
    """A :class:`GrowthLimit` from ``50MB``, ``1.5GiB``, ``1000000`` (bytes) or ``20%``.

    Raises:
        InputError: neither a size nor a percentage.
    """
    said = str(text).strip()
    if said.endswith("%"):
        try:
            percent = float(said[:-1])
        except ValueError:
            percent = None
        if percent is None or not np.isfinite(percent) or percent < 0:
            raise InputError(f"not a percentage: {text!r} (write e.g. 20%)")
        return GrowthLimit(said, share=percent / 100)
    try:
        return GrowthLimit(said, bytes=parse_size(said))
    except InputError:
        raise InputError(f"not a size or a percentage: {text!r} "
                         "(write e.g. 50MB, 1.5GiB or 20%; 1KB is 1024 bytes)") from None


def latest_memory_changes(rows) -> list[tuple[str, str, str, MemoryChange]]:
    """For each instance of ``rows`` (as :func:`trend_rows` gives them) with two dates or more, the change of
    its total memory from its second latest date to its latest: ``(instance, old date, new date, change)``."""
    totals = rows.astype({"memory_bytes_sum": "int64"}).groupby(["instance", "date"])["memory_bytes_sum"].sum()
    changes = []
    for instance, per_date in totals.groupby(level="instance", sort=True):
        per_date = per_date.droplevel("instance").sort_index()
        if len(per_date) >= 2:
            (old_date, old), (new_date, new) = per_date.iloc[-2:].items()
            changes.append((instance, old_date, new_date, memory_change(old, new)))
    return changes
