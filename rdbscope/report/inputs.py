"""What every command reads: a dump, or a keys Parquet file that ``rdbscope scan`` wrote.

A large dump is parsed once into Parquet and explored many times; both paths
give the same :class:`~rdbscope.KeyTable`, dump metadata included.
"""

import pathlib

import pyarrow as pa

from ..errors import InputError
from ..keys import KeyTable, is_parquet, read_keys_parquet
from ..rdb import KEYS_SCHEMA, scan

__all__ = ["InputError", "load_input"]


def load_input(path, *, db=None, types=None, key_glob=None, on_progress=None, **scan_options) -> KeyTable:
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
        return read_keys_parquet(path, db=db, types=types, key_glob=key_glob)
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


def source_name(path) -> str:
    """The file name shown in reports."""
    return pathlib.Path(path).name
