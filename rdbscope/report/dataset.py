"""Scheduled reports: a Hive-partitioned Parquet dataset, one partition per instance and day.

Layout::

    DIR/instance=NAME/date=YYYY-MM-DD/patterns.parquet
                                      findings.parquet
                                      summary.parquet
                                      nodes.parquet     (only for several dumps: a cluster's nodes)
                                      keys.parquet      (only when asked for)

Every file carries ``rdbscope.report_schema`` (:data:`SCHEMA_VERSION`) and
``rdbscope.table`` in its key-value metadata; ``summary`` and ``keys`` also carry
the dump's metadata (``rdbscope.dump``), so ``keys.parquet`` is itself an input
every command reads. ``instance`` and ``date`` live in the path only.

A partition is written whole in a scratch directory under ``DIR/.rdbscope-tmp``
and swapped in under a lock: a re-run replaces only its own partition, two
runs at once leave one complete partition, and a failed run leaves the old one.
Readers skip the scratch directory (pyarrow and pandas ignore names starting
with ``.``; the globs below never match it).

``DIR`` may also be an fsspec URL (``s3://bucket/reports``). Object storage has
no rename and no lock: the partition is uploaded whole under
``DIR/.rdbscope-tmp/run-…/``, then published by copying its files to the final
prefix one by one and deleting the temporary prefix. A failed run before the
publishing step leaves the old partition as it was. During the copy a reader
listing the prefix may see a mix of old and new files; ``summary.parquet`` is
deleted first and copied last, so a reader that takes only partitions holding a
``summary.parquet`` sees either a whole partition or none (a run that fails
while publishing leaves the partition without a summary: re-run it). Two runs writing the same
partition at once are not serialized: the last to publish wins, file by file.
"""

import contextlib
import datetime
import os
import pathlib
import re
import shutil
import tempfile
import uuid

import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import InputError
from ..findings import FINDINGS_SCHEMA
from ..rdb import KEYS_SCHEMA
from ..sources import is_url, open_url_fs, storage_errors, url_error
from .atomic import writing
from .parquet import METADATA_KEY
from .views import dump_ctime, node_rows, overview

__all__ = [
    "SCHEMA_VERSION", "TABLES", "PATTERNS_SCHEMA", "SUMMARY_SCHEMA", "NODES_SCHEMA", "REPORT_FINDINGS_SCHEMA",
    "report_date", "partition_path", "write_report", "read_table", "table_files",
]

#: Version of the dataset's schemas; bumped when a column changes meaning or type.
SCHEMA_VERSION = "1"
SCHEMA_VERSION_KEY = b"rdbscope.report_schema"
TABLE_KEY = b"rdbscope.table"
SCRATCH = ".rdbscope-tmp"

#: The tables of a partition, in the order they are written.
TABLES = ("summary", "patterns", "findings", "nodes", "keys")

_INSTANCE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def _field(name, typ, doc, nullable=True):
    return pa.field(name, typ, nullable=nullable, metadata={"doc": doc})


#: One row per (db, pattern): the pattern table of the analysis plus TTL coverage.
PATTERNS_SCHEMA = pa.schema([
    _field("db", pa.int32(), "database number", False),
    _field("pattern", pa.string(), "the inferred pattern, e.g. user:{id}:profile", False),
    _field("library", pa.string(), "the library that writes such keys (Celery, RQ, BullMQ, ...); null if none"),
    _field("key_kind", pa.string(), "what such keys hold for their library (job, session, ...); null if none"),
    _field("value_format", pa.string(), "most common format of the sampled values (json, msgpack, pickle-5, text, "
                                        "...); null when no value was read"),
    _field("element_format", pa.string(), "for collections, the most common format of their sampled elements"),
    _field("value_bytes_typical", pa.uint64(), "median size of a sampled value (or collection element)"),
    _field("value_zstd_ratio", pa.float64(), "zstd-compressed size over size of the sampled values of 256 bytes "
                                             "or more"),
    _field("values_sampled", pa.int64(), "keys whose values were read"),
    _field("n_keys", pa.int64(), "keys of the pattern", False),
    _field("share", pa.float64(), "share of the dump's keys"),
    _field("memory_bytes_sum", pa.uint64(), "memory of the keys (est_memory_bytes, or rdb_bytes: memory_basis)"),
    _field("memory_share", pa.float64(), "share of the dump's memory"),
    _field("memory_basis", pa.string(), "est_memory_bytes or rdb_bytes: what the memory columns measure"),
    *[_field(f"memory_bytes_{p}", pa.uint64(), f"{p} of the keys' memory") for p in ("p50", "p90", "p99", "max")],
    _field("rdb_bytes_sum", pa.uint64(), "bytes the keys occupy in the dump"),
    *[_field(f"rdb_bytes_{p}", pa.uint64(), f"{p} of the keys' rdb_bytes") for p in ("p50", "p90", "p99", "max")],
    _field("types", pa.list_(pa.string()), "types present, most frequent first"),
    _field("encodings", pa.list_(pa.string()), "encodings present, most frequent first"),
    _field("n_with_ttl", pa.int64(), "keys with a TTL"),
    _field("n_without_ttl", pa.int64(), "keys without a TTL"),
    _field("memory_bytes_without_ttl", pa.uint64(), "memory of the keys without a TTL"),
    _field("n_expired", pa.int64(), "keys already expired at the dump's ctime"),
    *[_field(f"ttl_s_{p}", pa.int64(), f"{p} of the remaining TTL in seconds at the dump's ctime")
      for p in ("p50", "p90", "p99", "max")],
    _field("examples", pa.list_(pa.string()), "a few keys of the pattern, as text"),
])

#: One row: the dump's headline figures.
SUMMARY_SCHEMA = pa.schema([
    _field("source", pa.string(), "file name of the dump (or keys Parquet) analysed; a running server's URL "
                                  "without its password"),
    _field("magic", pa.string(), "REDIS or VALKEY"),
    _field("rdb_version", pa.int32(), "RDB format version"),
    _field("writer", pa.string(), "server that wrote the dump, e.g. redis 7.0.15"),
    _field("ctime", pa.timestamp("ms", tz="UTC"), "when the dump was written (AUX ctime)"),
    _field("n_keys", pa.int64(), "keys", False),
    _field("n_with_ttl", pa.int64(), "keys with a TTL"),
    _field("n_expired", pa.int64(), "keys already expired at ctime"),
    _field("n_dbs", pa.int32(), "databases with keys"),
    _field("n_patterns", pa.int64(), "inferred patterns"),
    _field("rdb_bytes", pa.uint64(), "bytes of the key entries in the dump"),
    _field("memory_bytes", pa.uint64(), "memory of the keys (memory_basis says what it measures)"),
    _field("memory_basis", pa.string(), "est_memory_bytes or rdb_bytes"),
    _field("est_total_memory_bytes", pa.uint64(), "estimated memory of keys and key tables; null without a model"),
    _field("used_mem_bytes", pa.uint64(), "the writer's used-mem AUX field"),
    _field("n_errors", pa.int64(), "findings of severity error"),
    _field("n_warnings", pa.int64(), "findings of severity warning"),
    _field("n_infos", pa.int64(), "findings of severity info"),
    _field("rdbscope_version", pa.string(), "rdbscope version that wrote the report"),
    _field("generated_at", pa.timestamp("ms", tz="UTC"), "when the report was written (wall clock)"),
])

#: One row per dump of a report over several (a cluster's nodes); the summary holds their union.
NODES_SCHEMA = pa.schema([
    _field("source", pa.string(), "the dump's path as given", False),
    _field("writer", pa.string(), "server that wrote the dump, e.g. redis 7.0.15"),
    _field("n_keys", pa.int64(), "keys of the dump", False),
    _field("keys_share", pa.float64(), "share of all the dumps' keys"),
    _field("memory_bytes", pa.uint64(), "memory of the dump's keys (the summary's memory_basis)"),
    _field("memory_share", pa.float64(), "share of all the dumps' memory"),
    _field("n_with_ttl", pa.int64(), "keys with a TTL"),
    _field("ttl_share", pa.float64(), "share of the dump's keys with a TTL"),
    _field("slots", pa.string(), "hash slots: the node's ranges, or the ranges its keys hash to"),
    _field("n_slots", pa.int32(), "hash slots holding keys of the dump"),
])

#: The findings, as :data:`rdbscope.findings.FINDINGS_SCHEMA`.
REPORT_FINDINGS_SCHEMA = FINDINGS_SCHEMA


def report_date(info, override=None) -> datetime.date:
    """The partition date: ``override`` (a date or ``YYYY-MM-DD``), else the UTC day of the dump's ctime.

    Raises:
        InputError: no override and the dump has no ``ctime`` AUX field.
    """
    if override is not None:
        if isinstance(override, datetime.date):
            return override
        try:
            return datetime.date.fromisoformat(str(override))
        except ValueError:
            raise InputError(f"--date {override!r} is not a date (YYYY-MM-DD)") from None
    ctime = dump_ctime(info)
    if ctime is None and "ctime" in info.aux:
        raise InputError(f"the dump's ctime AUX field ({info.aux['ctime'][:40]}) is not a time between 1970 "
                         "and 9999 to date the report: pass --date YYYY-MM-DD")
    if ctime is None:
        raise InputError("the dump has no ctime AUX field to date the report: pass --date YYYY-MM-DD")
    return ctime.date()


def partition_path(directory, instance, date) -> pathlib.Path:
    """``directory/instance=NAME/date=YYYY-MM-DD``.

    Raises:
        InputError: an instance name that is not ``[A-Za-z0-9][A-Za-z0-9._-]*``.
    """
    if not _INSTANCE.match(instance or ""):
        raise InputError(f"instance name {instance!r}: use letters, digits, '.', '_' and '-'")
    return pathlib.Path(directory) / f"instance={instance}" / f"date={date.isoformat()}"


def write_report(res, directory, instance, *, date=None, keys=False, source=None, version=None) -> pathlib.Path:
    """Write one partition of the report dataset and return its path.

    Args:
        res: a :class:`~rdbscope.Result`.
        directory: the dataset's root directory (created if missing).
        instance: the instance name (a path segment).
        date: the partition date, or None for the day of the dump's ctime.
        keys: also write ``keys.parquet`` (every key with its pattern, and its dump for several).
        source: the file name recorded in the summary.
        version: the rdbscope version recorded in the summary.

    Raises:
        InputError: a bad instance name, or no date to be had.
    """
    if keys and res.bounded:
        raise InputError("keys.parquet holds every key: a run in bounded memory keeps only the keys it names "
                         "(raise --memory-budget, or write the keys with 'rdbscope scan -o')")
    day = report_date(res.info, date)
    tables = {"summary": summary_table(res, source, version), "patterns": patterns_table(res),
              "findings": res.findings_table()}
    if res.keys.n_sources > 1:
        tables["nodes"] = pa.Table.from_pandas(node_rows(res), schema=NODES_SCHEMA, preserve_index=False)
    if keys:
        tables["keys"] = res.keys.to_arrow()
    if is_url(os.fspath(directory)):
        return _write_to_url(tables, res.info, os.fspath(directory), instance, day)
    final = partition_path(directory, instance, day)
    with writing(directory):
        return _write_to_directory(tables, res.info, pathlib.Path(directory), final)


def _write_to_directory(tables, info, directory, final):
    """Write the partition ``final`` of the dataset ``directory`` (see the module's docstring)."""
    scratch_root = directory / SCRATCH
    made = [p for p in (scratch_root, *scratch_root.parents) if not p.exists()]  # the innermost first
    scratch_root.mkdir(parents=True, exist_ok=True)
    try:
        return _publish(tables, info, scratch_root, final)
    except BaseException:
        for path in made:  # a failed first run leaves nothing behind
            with contextlib.suppress(OSError):
                path.rmdir()
        raise


def _publish(tables, info, scratch_root, final):
    """Stage the partition under ``scratch_root`` and rename it to ``final``."""
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="run-", dir=scratch_root))
    try:
        staged = scratch / "partition"
        staged.mkdir()
        _write_tables(tables, staged, info)
        final.parent.mkdir(parents=True, exist_ok=True)
        with _lock(scratch_root / "lock"):
            replaced = scratch / "replaced"
            if final.exists():
                os.rename(final, replaced)
            try:
                os.rename(staged, final)
            except BaseException:
                if replaced.exists():
                    os.rename(replaced, final)
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return final


def _write_tables(tables, directory, info):
    for name, table in tables.items():
        _write(table, pathlib.Path(directory) / f"{name}.parquet", name, info if name in ("summary", "keys") else None)


def _write_to_url(tables, info, url, instance, day):
    """Write the partition to object storage (see the module's docstring) and return its URL."""
    partition_path(url, instance, day)  # checks the instance name
    fs, root = open_url_fs(url, "writing")
    root = root.rstrip("/")
    final = f"{root}/instance={instance}/date={day.isoformat()}"
    scratch = f"{root}/{SCRATCH}/run-{uuid.uuid4().hex}"
    names = [f"{name}.parquet" for name in tables]
    try:
        with tempfile.TemporaryDirectory(prefix="rdbscope-") as local:
            _write_tables(tables, local, info)
            for name in names:
                fs.put_file(os.path.join(local, name), f"{scratch}/{name}")
        old = [p.rsplit("/", 1)[-1] for p in fs.ls(final, detail=False)] if fs.exists(final) else []
        if "summary.parquet" in old:  # first out, last in: a partition with a summary is whole
            fs.rm_file(f"{final}/summary.parquet")
        for name in [n for n in names if n != "summary.parquet"] + ["summary.parquet"]:
            fs.copy(f"{scratch}/{name}", f"{final}/{name}")
        for name in old:
            if name not in names and name.endswith(".parquet"):
                fs.rm_file(f"{final}/{name}")
    except storage_errors() as exc:
        raise url_error(url, exc, "writing") from None
    finally:
        with contextlib.suppress(*storage_errors()):
            fs.rm(scratch, recursive=True)
    return fs.unstrip_protocol(final)


def patterns_table(res) -> pa.Table:
    """The pattern table of :data:`PATTERNS_SCHEMA`: the analysis's patterns with TTL coverage."""
    patterns = res.tables["patterns"]
    coverage = {(r["db"], r["pattern"]): r for r in
                res.tables["ttl_coverage"].select(["db", "pattern", "n_without_ttl", "memory_bytes_without_ttl"])
                .to_pylist()} if "ttl_coverage" in res.tables else {}
    columns = {}
    for field in PATTERNS_SCHEMA:
        if field.name in ("n_without_ttl", "memory_bytes_without_ttl"):
            values = [coverage.get((db, p), {}).get(field.name)
                      for db, p in zip(patterns["db"].to_pylist(), patterns["pattern"].to_pylist(), strict=True)]
            columns[field.name] = pa.array(values, field.type)
        elif field.name == "memory_basis":
            columns[field.name] = patterns[field.name].cast(pa.string())
        else:
            columns[field.name] = patterns[field.name].cast(field.type)
    return pa.table(columns, schema=PATTERNS_SCHEMA)


def summary_table(res, source=None, version=None) -> pa.Table:
    """The one-row summary of :data:`SUMMARY_SCHEMA`."""
    o = overview(res, source)
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    row = {
        "source": o.source, "magic": o.magic, "rdb_version": o.rdb_version, "writer": o.writer,
        "ctime": o.ctime, "n_keys": o.n_keys, "n_with_ttl": o.n_with_ttl, "n_expired": o.n_expired,
        "n_dbs": o.n_dbs, "n_patterns": o.n_patterns, "rdb_bytes": o.rdb_bytes, "memory_bytes": o.memory_bytes,
        "memory_basis": o.memory_basis, "est_total_memory_bytes": o.est_total_memory_bytes,
        "used_mem_bytes": o.used_mem_bytes, "n_errors": o.n_findings["error"],
        "n_warnings": o.n_findings["warning"], "n_infos": o.n_findings["info"],
        "rdbscope_version": version, "generated_at": now,
    }
    return pa.Table.from_pylist([row], schema=SUMMARY_SCHEMA)


def table_files(directory, table, instance=None) -> list[str]:
    """The files of one table in a dataset (a directory or an fsspec URL), sorted by instance then date.

    On object storage only partitions holding a ``summary.parquet`` count: one being published has none
    until it is whole (see the module's docstring).
    """
    fs, _root, paths = _table_paths(directory, table, instance)
    return paths if fs is None else [fs.unstrip_protocol(p) for p in paths]


def _table_paths(directory, table, instance):
    """``(file system, root, paths)`` of a table's files: for a local directory ``(None, directory, paths)``,
    for a URL the fsspec file system and the paths within it."""
    if table not in TABLES:
        raise ValueError(f"unknown table {table!r}; tables: {', '.join(TABLES)}")
    pattern = f"instance={instance or '*'}/date=*/{table}.parquet"
    if not is_url(os.fspath(directory)):
        return None, str(directory), sorted(str(p) for p in pathlib.Path(directory).glob(pattern))
    fs, root = open_url_fs(os.fspath(directory))
    root = root.rstrip("/")
    try:
        found = fs.glob(f"{root}/{pattern}")
        whole = {p.rsplit("/", 1)[0] for p in fs.glob(f"{root}/instance={instance or '*'}/date=*/summary.parquet")}
    except storage_errors() as exc:
        raise url_error(os.fspath(directory), exc) from None
    return fs, root, sorted(p for p in found if p.rsplit("/", 1)[0] in whole)


def read_table(directory, table="patterns", instance=None) -> pa.Table:
    """One table across every partition, with ``instance`` and ``date`` columns, as a ``pyarrow.Table``.

    ``directory`` may be an fsspec URL (``s3://bucket/reports``).

    Raises:
        InputError: the directory holds no such table.
    """
    import pyarrow.dataset as ds

    fs, root, paths = _table_paths(directory, table, instance)
    if not paths:
        raise InputError(f"{directory}: no {table}.parquet under instance=*/date=* (not a report dataset?)")
    if fs is not None:
        return _read_remote_table(fs, paths)
    partitioning = ds.partitioning(pa.schema([("instance", pa.string()), ("date", pa.string())]), flavor="hive")
    dataset = ds.dataset(paths, format="parquet", partitioning=partitioning, partition_base_dir=root, filesystem=fs)
    return dataset.to_table()


def _read_remote_table(fs, paths):
    """:func:`read_table` of files on object storage, each read whole through ``fs`` and parsed from memory.

    Not a pyarrow dataset, nor pyarrow reading an fsspec file: pyarrow's threads calling into
    the Python file can outlive the call and abort the interpreter at exit ("terminate called
    without an active exception", apache/arrow#39162). Report files are small.
    """
    from urllib.parse import unquote

    tables = []
    for path in paths:
        instance, date = (unquote(part.split("=", 1)[1]) for part in path.rsplit("/", 3)[1:3])
        with fs.open(path, "rb") as file:
            part = pq.read_table(pa.BufferReader(file.read()))
        part = part.append_column("instance", pa.array([instance] * part.num_rows, pa.string()))
        tables.append(part.append_column("date", pa.array([date] * part.num_rows, pa.string())))
    return pa.concat_tables(tables, promote_options="default")


def schema_version(path) -> str | None:
    """The ``rdbscope.report_schema`` of one file of a report (None when absent)."""
    metadata = pq.ParquetFile(path).metadata.metadata or {}
    value = metadata.get(SCHEMA_VERSION_KEY)
    return value.decode() if value is not None else None


def _write(table, path, name, info):
    metadata = dict(table.schema.metadata or {})
    metadata[SCHEMA_VERSION_KEY] = SCHEMA_VERSION.encode()
    metadata[TABLE_KEY] = name.encode()
    if info is not None:
        metadata[METADATA_KEY] = info.to_json().encode()
    if name == "keys":
        table = table.cast(pa.schema([*KEYS_SCHEMA, *(f for f in table.schema if f.name not in KEYS_SCHEMA.names)]))
    pq.write_table(table.replace_schema_metadata(metadata), path, compression="zstd")


@contextlib.contextmanager
def _lock(path):
    """An exclusive lock on ``path`` (POSIX flock; elsewhere the rename itself is the only guard)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
