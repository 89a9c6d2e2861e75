"""KeyTable: the whole keys table of one dump (or of several), with the dumps' metadata; load() reads them.

A large dump is parsed once into a keys Parquet file (``rdbscope scan -o``) and
explored many times: :func:`load` reads either, and both give the same table
and the same :class:`~rdbscope.DumpInfo`. Several dumps (a cluster's nodes) are
read one by one and joined into one table with a ``source`` column.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from .errors import InputError
from .rdb import KEYS_SCHEMA, DumpInfo
from .rdb.keyglob import glob_to_regex
from .rdb.keytext import key_text
from .sources import (
    SOURCE_FIELD,
    check_one_cluster,
    input_paths,
    is_url,
    open_dump,
    scanning,
    source_column,
    summarize_source,
)

if TYPE_CHECKING:
    import pandas as pd

#: Where a keys Parquet file keeps its dump's metadata (:meth:`DumpInfo.to_json`).
PARQUET_METADATA_KEY = b"rdbscope.dump"
PARQUET_MAGIC = b"PAR1"


class KeyTable:
    """One row per key (see ``rdbscope.rdb.schema``) plus the dump's metadata.

    Attributes:
        table: the ``pyarrow.Table`` of :data:`KEYS_SCHEMA` (and, for several
            dumps, a ``source`` column naming each key's dump).
        info: the :class:`~rdbscope.rdb.DumpInfo` of the dump (of the first dump, for several).
        sources: a :class:`~rdbscope.sources.SourceSummary` per dump read, in
            the order of the table (computed on first use for one dump).
    """

    def __init__(self, table: pa.Table, info: DumpInfo, sources=None) -> None:
        self.table = table
        self.info = info
        self._sources = tuple(sources) if sources is not None else None

    @property
    def sources(self):
        if self._sources is None:
            self._sources = (summarize_source(self.info.path, self),)
        return self._sources

    @property
    def n_sources(self):
        """How many dumps the table holds."""
        return 1 if self._sources is None else len(self._sources)

    def with_table(self, table):
        """The same dumps' metadata over ``table`` (the keys with columns added)."""
        return KeyTable(table, self.info, self._sources)

    @property
    def num_rows(self) -> int:
        """How many keys."""
        return self.table.num_rows

    def __len__(self) -> int:
        return self.table.num_rows

    def __repr__(self) -> str:
        info = self.info
        if self.n_sources > 1:
            return f"<KeyTable {self.num_rows} keys from {self.n_sources} dumps, the first {info.path}>"
        where = f" from {info.path}" if info.path else ""
        writer = f", written by {info.writer}" if info.writer else ""
        return f"<KeyTable {self.num_rows} keys{where}: {info.magic} RDB {info.rdb_version}{writer}>"

    def to_arrow(self) -> pa.Table:
        """The keys as a ``pyarrow.Table`` (no copy)."""
        return self.table

    def to_pandas(self) -> pd.DataFrame:
        """The keys as a DataFrame; keys become text with non-UTF-8 bytes escaped ``\\xNN`` and a backslash
        as ``\\\\`` (:func:`rdbscope.rdb.keytext.key_text`; :func:`~rdbscope.rdb.keytext.key_bytes` reads it back)."""
        df = self.table.to_pandas()
        df["key"] = [key_text(k) for k in df["key"]]
        return df


def load(source, *, combine=False, **options) -> KeyTable:
    """Read a whole dump, or a keys Parquet file written by ``rdbscope scan``, into a :class:`KeyTable`.

    ``source`` may also name several dumps, read as one keyspace (a cluster's
    nodes): a list of paths, a directory (its ``*.rdb`` files and compressed
    backups) or a glob such as ``"node-*.rdb"``. Each is read as one dump is,
    and the tables are joined with a ``source`` column (the path as given);
    ``KeyTable.sources`` holds each dump's summary. A single path stays a
    single dump's table, without the column. Dumps that hold keys of one hash
    slot, or keys in a db other than 0, are not the nodes of one cluster
    (several backups of one server, say) and are refused, unless ``combine``.

    ``"-"`` reads the dump from standard input; a URL (``s3://bucket/dump.rdb.gz``, or a glob of
    them) is read as a stream through fsspec (see the ``s3``, ``gcs`` and ``azure`` extras).

    Takes the same arguments as :func:`rdbscope.scan`. A keys Parquet file
    (found by its ``PAR1`` magic, whatever its name) keeps the rows that
    ``db``, ``types`` and ``key_glob`` select, and its dump's metadata; the
    scanner's other options do not apply to it.

    Raises:
        RdbFormatError, RdbTruncatedError, RdbUnsupportedError: see ``scan``.
        InputError: a Parquet file that is not a keys table written by rdbscope; a path that
            does not exist; a directory without dumps; a glob that matches nothing; several dumps
            that are not one cluster's nodes, without ``combine``.
    """
    if not isinstance(source, (str, os.PathLike, list, tuple)):  # a binary file object
        return load_one(source, **options)
    if isinstance(source, (str, os.PathLike)) and os.path.exists(source) and not os.path.isdir(source):
        return load_one(source, **options)
    paths = input_paths(source)
    if len(paths) == 1 and not isinstance(source, (list, tuple)):
        return load_one(paths[0], **options)
    return join_tables([load_one(path, **options) for path in paths], paths, any_dumps=combine)


def join_tables(tables, paths, *, any_dumps=False):
    """One :class:`KeyTable` of several dumps' tables (read from ``paths``), with a ``source`` column.

    Raises:
        InputError: unless ``any_dumps``, dumps that are not the nodes of one cluster
            (see :func:`~rdbscope.sources.check_one_cluster`).
    """
    sources = [summarize_source(path, keys) for keys, path in zip(tables, paths, strict=True)]
    if not any_dumps:
        check_one_cluster(sources)
    joined = pa.concat_tables([keys.table.select(KEYS_SCHEMA.names) for keys in tables])
    column = source_column([keys.num_rows for keys in tables], paths)
    joined = joined.append_column(SOURCE_FIELD, column)
    return KeyTable(joined, tables[0].info, sources)


def load_one(source, **options):
    """Read one dump or keys Parquet file (see :func:`load`)."""
    if is_parquet(source):
        return read_keys_parquet(source, db=options.get("db"), types=options.get("types"),
                                 key_glob=options.get("key_glob"))
    options.setdefault("contiguous", True)
    with scanning(source, **options) as result:
        batches = list(result)
    table = pa.Table.from_batches(batches, schema=KEYS_SCHEMA)
    return KeyTable(table, result.info)



def is_parquet(source) -> bool:
    """True when ``source`` is the path (or an fsspec URL) of a file that starts as Parquet does, or is
    named ``*.parquet``."""
    if isinstance(source, str) and is_url(source):
        if source.endswith(".parquet"):
            return True
        try:
            with open_dump(source) as f:
                return f.read(4) == PARQUET_MAGIC
        except InputError:
            return False
    if not isinstance(source, (str, os.PathLike)) or not os.path.isfile(source):
        return False
    with open(source, "rb") as f:
        return f.read(4) == PARQUET_MAGIC or os.fspath(source).endswith(".parquet")


def read_keys_parquet(path, *, db=None, types=None, key_glob=None) -> KeyTable:
    """Read a keys table written by ``rdbscope scan`` (a path, or an fsspec URL) back into a :class:`KeyTable`.

    Filters are applied to the rows read (the same meaning as :func:`rdbscope.scan`'s).

    Raises:
        InputError: the file has no rdbscope dump metadata or lacks key columns.
    """
    import pyarrow.parquet as pq  # here: importing it costs every dump's run a few hundredths of a second

    with contextlib.closing(open_dump(path)) if is_url(os.fspath(path)) else contextlib.nullcontext(path) as f:
        try:
            file = pq.ParquetFile(f)
        except (OSError, pa.ArrowException) as exc:
            raise InputError(f"{path}: not a readable Parquet file ({exc})") from None
        metadata = file.metadata.metadata or {}
        if PARQUET_METADATA_KEY not in metadata:
            raise InputError(f"{path}: a Parquet file, but not a keys table written by 'rdbscope scan'")
        missing = [name for name in KEYS_SCHEMA.names if name not in file.schema_arrow.names]
        if missing:
            raise InputError(f"{path}: the keys table lacks the columns {', '.join(missing)}")
        table = file.read(columns=KEYS_SCHEMA.names)
    table = table.cast(KEYS_SCHEMA) if table.schema != KEYS_SCHEMA else table
    table = filter_keys(table, db=db, types=types, key_glob=key_glob)
    return KeyTable(table, DumpInfo.from_json(metadata[PARQUET_METADATA_KEY], path))


def filter_keys(table: pa.Table, *, db=None, types=None, key_glob=None) -> pa.Table:
    """Rows of a keys table in these dbs, of these types, with keys matching the glob."""
    mask = None

    def both(a, b):
        return b if a is None else pc.and_(a, b)

    if db is not None:
        dbs = [db] if isinstance(db, int) else list(db)
        mask = both(mask, pc.is_in(table["db"], value_set=pa.array(dbs, pa.int32())))
    if types is not None:
        names = [types] if isinstance(types, str) else list(types)
        mask = both(mask, pc.is_in(table["type"].cast(pa.string()), value_set=pa.array(names, pa.string())))
    if key_glob is not None:
        mask = both(mask, pc.match_substring_regex(table["key"], glob_to_regex(key_glob)))
    return table if mask is None else table.filter(mask)
