"""What every command reads: a dump, or a keys Parquet file that ``rdbscope scan`` wrote.

A large dump is parsed once into Parquet and explored many times; both paths
give the same :class:`~rdbscope.KeyTable`, dump metadata included.
"""

import json
import pathlib

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..errors import RdbscopeError
from ..keys import KeyTable
from ..rdb import KEYS_SCHEMA, DumpInfo, scan
from ..rdb.dump_info import FunctionLibrary
from ..rdb.memory import MemoryModelInfo
from ..rdb.keyglob import glob_to_regex
from .parquet import METADATA_KEY

__all__ = ["InputError", "is_parquet", "load_input", "load_keys_parquet"]

PARQUET_MAGIC = b"PAR1"


class InputError(RdbscopeError, ValueError):
    """A file given to rdbscope is not something it reads (not a dump, nor a keys table)."""


def is_parquet(path):
    """True when ``path`` is a Parquet file (by its magic bytes, whatever its name)."""
    try:
        with open(path, "rb") as f:
            return f.read(4) == PARQUET_MAGIC
    except IsADirectoryError:
        return False


def load_input(path, *, db=None, types=None, key_glob=None, on_progress=None, **scan_options):
    """A :class:`~rdbscope.KeyTable` from a dump or from a keys Parquet file.

    Args:
        path: a dump (``.rdb``, or a gzip/zstd/lz4/bz2/xz backup of one) or a
            Parquet file written by ``rdbscope scan``.
        db, types, key_glob: keep only these databases, types, and keys
            matching this glob, as :func:`rdbscope.scan` does.
        on_progress: called as ``on_progress(bytes_done, bytes_total, keys_done)``
            once per batch while a dump is scanned.
        scan_options: further options of :func:`rdbscope.scan` (ignored for Parquet).

    Raises:
        InputError: a Parquet file that is not an rdbscope keys table.
        RdbFormatError, RdbTruncatedError, RdbUnsupportedError: a damaged dump.
    """
    if is_parquet(path):
        return load_keys_parquet(path, db=db, types=types, key_glob=key_glob)
    position = [0, None]

    def on_bytes(done, total):
        position[:] = [done, total]

    result = scan(path, db=db, types=types, key_glob=key_glob, on_progress=on_bytes, **scan_options)
    batches, keys_done = [], 0
    for batch in result:
        batches.append(batch)
        keys_done += batch.num_rows
        if on_progress is not None:
            on_progress(position[0], position[1], keys_done)
    return KeyTable(pa.Table.from_batches(batches, schema=KEYS_SCHEMA), result.info)


def load_keys_parquet(path, *, db=None, types=None, key_glob=None):
    """Read a keys table written by ``rdbscope scan`` back into a :class:`~rdbscope.KeyTable`.

    Filters are applied to the rows read (the same meaning as :func:`rdbscope.scan`'s).

    Raises:
        InputError: the file has no rdbscope dump metadata or lacks key columns.
    """
    try:
        file = pq.ParquetFile(path)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"{path}: not a readable Parquet file ({exc})") from None
    metadata = file.metadata.metadata or {}
    if METADATA_KEY not in metadata:
        raise InputError(f"{path}: a Parquet file, but not a keys table written by 'rdbscope scan'")
    missing = [name for name in KEYS_SCHEMA.names if name not in file.schema_arrow.names]
    if missing:
        raise InputError(f"{path}: the keys table lacks the columns {', '.join(missing)}")
    table = file.read(columns=KEYS_SCHEMA.names)
    table = table.cast(KEYS_SCHEMA) if table.schema != KEYS_SCHEMA else table
    table = filter_keys(table, db=db, types=types, key_glob=key_glob)
    return KeyTable(table, dump_info_from_metadata(json.loads(metadata[METADATA_KEY]), path))


def filter_keys(table, *, db=None, types=None, key_glob=None):
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


def dump_info_from_metadata(meta, path=None):
    """A :class:`~rdbscope.DumpInfo` from the ``rdbscope.dump`` JSON of a Parquet file."""
    info = DumpInfo(
        path=str(path) if path is not None else None,
        compression=meta.get("compression"),
        magic=meta.get("magic"),
        rdb_version=meta.get("rdb_version"),
        aux=dict(meta.get("aux") or {}),
        resizedb={int(db): tuple(sizes) for db, sizes in (meta.get("resizedb") or {}).items()},
        functions=[FunctionLibrary(f["name"], f["engine"], list(f["functions"]), f.get("code_bytes"))
                   for f in meta.get("functions") or []],
        module_aux=list(meta.get("module_aux") or []),
        checksum_verified=bool(meta.get("checksum_verified")),
        truncated_at=meta.get("truncated_at"),
    )
    model = meta.get("memory_model")
    if model:
        info.memory_model = MemoryModelInfo(**model)
    return info


def source_name(path):
    """The file name shown in reports."""
    return pathlib.Path(path).name
