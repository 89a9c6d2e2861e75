"""KeyTable: the whole keys table of one dump, with the dump's metadata."""

import pyarrow as pa

from .rdb import KEYS_SCHEMA, scan


class KeyTable:
    """One row per key (see ``rdbscope.rdb.schema``) plus the dump's metadata.

    Attributes:
        table: the ``pyarrow.Table`` of :data:`KEYS_SCHEMA`.
        info: the :class:`~rdbscope.rdb.DumpInfo` of the dump.
    """

    def __init__(self, table, info):
        self.table = table
        self.info = info

    @property
    def num_rows(self):
        return self.table.num_rows

    def __len__(self):
        return self.table.num_rows

    def __repr__(self):
        info = self.info
        where = f" from {info.path}" if info.path else ""
        writer = f", written by {info.writer}" if info.writer else ""
        return f"<KeyTable {self.num_rows} keys{where}: {info.magic} RDB {info.rdb_version}{writer}>"

    def to_arrow(self):
        """The keys as a ``pyarrow.Table`` (no copy)."""
        return self.table

    def to_pandas(self):
        """The keys as a DataFrame; keys become text with non-UTF-8 bytes escaped as ``\\xNN``."""
        df = self.table.to_pandas()
        df["key"] = [k.decode("utf-8", "backslashreplace") for k in df["key"]]
        return df


def load(source, **options):
    """Scan a whole dump into a :class:`KeyTable`.

    Takes the same arguments as :func:`rdbscope.scan`.

    Raises:
        RdbFormatError, RdbTruncatedError, RdbUnsupportedError: see ``scan``.
    """
    options.setdefault("contiguous", True)
    result = scan(source, **options)
    batches = list(result)
    table = pa.Table.from_batches(batches, schema=KEYS_SCHEMA)
    return KeyTable(table, result.info)
