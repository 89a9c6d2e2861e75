"""The keys table as Parquet, streamed batch by batch (memory stays bounded)."""

import json
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa
import pyarrow.parquet as pq

from ..keys import PARQUET_METADATA_KEY as METADATA_KEY
from ..rdb import KEYS_SCHEMA
from .atomic import atomic_path

#: Rows per Parquet row group: big enough to encode well, small enough to hold in memory.
ROW_GROUP_ROWS = 1 << 19

#: Columns worth dictionary-encoding; keys, offsets and sizes are nearly all distinct,
#: so a dictionary only costs time and space there.
DICTIONARY_COLUMNS = [name for name in KEYS_SCHEMA.names
                      if name not in ("key", "offset", "rdb_bytes", "est_memory_bytes")]


def write_keys_parquet(scan, path) -> int:
    """Write every batch of a :class:`~rdbscope.rdb.Scan` to ``path`` (or to a binary stream, such as
    standard output); return the row count.

    The file appears only when the whole scan succeeded; a stream gets nothing unless it did (the
    file is written to a temporary file first).
    """
    if hasattr(path, "write"):
        with tempfile.TemporaryFile(prefix="rdbscope-") as tmp:
            rows = _write_keys(scan, tmp)
            tmp.seek(0)
            shutil.copyfileobj(tmp, path, 1 << 20)
        return rows
    with atomic_path(path) as tmp:
        return _write_keys(scan, tmp)


def _write_keys(scan, sink) -> int:
    rows = 0
    with pq.ParquetWriter(sink, KEYS_SCHEMA, compression="zstd", use_dictionary=DICTIONARY_COLUMNS) as writer, \
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="rdbscope-parquet") as pool:
        # Encoding a row group (Arrow releases the GIL) overlaps scanning the next one;
        # at most one group waits, so memory stays bounded.
        pending = None
        for table in _row_groups(scan):
            if pending is not None:
                pending.result()
            pending = pool.submit(writer.write_table, table, row_group_size=len(table))
            rows += len(table)
        if pending is not None:
            pending.result()
        writer.add_key_value_metadata({METADATA_KEY: scan.info.to_json().encode()})
    return rows


def _row_groups(batches):
    """The batches gathered into tables of at least ROW_GROUP_ROWS rows (the last one: the rest)."""
    group, rows = [], 0
    for batch in batches:
        group.append(batch)
        rows += batch.num_rows
        if rows >= ROW_GROUP_ROWS:
            yield pa.Table.from_batches(group, schema=KEYS_SCHEMA)
            group, rows = [], 0
    if group:
        yield pa.Table.from_batches(group, schema=KEYS_SCHEMA)


def read_dump_metadata(path) -> dict:
    """The dump metadata stored in a keys Parquet file written by rdbscope."""
    metadata = pq.ParquetFile(path).metadata.metadata or {}
    return json.loads(metadata[METADATA_KEY])
