"""make_keys(): a small KeyTable built row by row, for tests whose answer is known."""

import pyarrow as pa

from rdbscope.keys import KeyTable
from rdbscope.rdb import KEYS_SCHEMA, DumpInfo
from rdbscope.rdb.format import ENCODING_NAMES, TYPE_NAMES

#: The dump's ctime in the tests: 2030-01-01T00:00:00Z.
CTIME_S = 1_893_456_000
CTIME_MS = CTIME_S * 1000

DEFAULT_ENCODING = {"string": "raw", "list": "quicklist", "set": "hashtable", "zset": "skiplist",
                    "hash": "hashtable", "stream": "stream", "module": "raw"}


def key(name, type="string", *, db=0, ttl_s=None, expire_at_ms=None, rdb_bytes=100, n_elements=None,
        est_memory_bytes=None, encoding=None, n_fields_with_ttl=None):
    """One row: ``ttl_s`` is seconds after the ctime of the test dump (or give ``expire_at_ms``)."""
    if ttl_s is not None:
        expire_at_ms = CTIME_MS + int(round(ttl_s * 1000))
    return {
        "db": db,
        "key": name.encode() if isinstance(name, str) else name,
        "type": type,
        "encoding": encoding or DEFAULT_ENCODING[type],
        "expire_at": expire_at_ms,
        "rdb_bytes": rdb_bytes,
        "n_elements": n_elements if n_elements is not None else (None if type == "module" else 10),
        "max_element_bytes": None,
        "est_memory_bytes": est_memory_bytes,
        "lfu_freq": None,
        "idle_s": None,
        "offset": 0,
        "module_name": None,
        "n_fields_with_ttl": n_fields_with_ttl if type == "hash" else None,
        "est_memory_fallback": type == "module" and est_memory_bytes is not None,
    }


def make_keys(rows, *, ctime_s=CTIME_S):
    """A :class:`KeyTable` of ``rows`` (dicts from :func:`key`) with the dump's ctime AUX field."""
    rows = list(rows)
    columns = {}
    for field in KEYS_SCHEMA:
        values = [r[field.name] for r in rows]
        if field.name == "type":
            columns[field.name] = _dictionary(values, TYPE_NAMES, field.type)
        elif field.name == "encoding":
            columns[field.name] = _dictionary(values, ENCODING_NAMES, field.type)
        else:
            columns[field.name] = pa.array(values, field.type)
    table = pa.Table.from_pydict(columns, schema=KEYS_SCHEMA)
    aux = {"redis-ver": "7.0.15"}
    if ctime_s is not None:
        aux["ctime"] = str(ctime_s)
    return KeyTable(table, DumpInfo(magic="REDIS", rdb_version=10, aux=aux))


def _dictionary(values, names, typ):
    names = list(names)
    indices = [names.index(v) for v in values]
    return pa.DictionaryArray.from_arrays(pa.array(indices, typ.index_type), pa.array(names, pa.string()))
