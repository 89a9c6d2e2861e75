"""The keys table: one row per key of a dump. A public contract.

Parquet reports and every analysis read these columns. Units are in the names;
anything estimated starts with ``est_``.
"""

from array import array
from itertools import accumulate

import pyarrow as pa

from .format import ENCODING_NAMES, TYPE_NAMES

#: (name, Arrow type, nullable, one line of documentation), in column order.
COLUMNS = (
    ("db", pa.int32(), False,
     "database number"),
    ("key", pa.binary(), False,
     "the key, byte-exact (to_pandas gives text, non-UTF-8 bytes escaped \\xNN, a backslash as \\\\)"),
    ("type", pa.dictionary(pa.int8(), pa.string()), False,
     "string, list, set, zset, hash, stream, module, array (Redis 8.8) or gcra"),
    ("encoding", pa.dictionary(pa.int8(), pa.string()), False,
     "OBJECT ENCODING on the server that wrote the dump: int/embstr/raw for strings; "
     "for collections the stored encoding (listpack, quicklist, ziplist, intset, zipmap, "
     "hashtable, skiplist, listpackex, linkedlist, stream, sliced-array; raw for module values)"),
    ("expire_at", pa.timestamp("ms", tz="UTC"), True,
     "absolute expiry time; null when the key has no TTL"),
    ("rdb_bytes", pa.uint64(), False,
     "bytes the entry occupies in the dump, expiry/LRU/LFU opcodes included (serialized size, not RAM)"),
    ("n_elements", pa.uint64(), True,
     "string length / list, set, zset members / hash fields / stream length (XLEN) / array count; "
     "null for module values"),
    ("max_element_bytes", pa.uint64(), True,
     "largest element as the server returns it: string length, longest member, "
     "longest field+value for hashes, largest entry (sum of fields and values) for streams; "
     "null for module values"),
    ("est_memory_bytes", pa.uint64(), True,
     "estimate of MEMORY USAGE key SAMPLES 0 on the server that wrote the dump, after it loads the dump "
     "(model chosen from the redis-ver AUX field; see DumpInfo.memory_model); null with estimate_memory=False"),
    ("lfu_freq", pa.uint8(), True,
     "LFU counter from the dump (maxmemory-policy *-lfu); null when absent"),
    ("idle_s", pa.uint64(), True,
     "LRU idle seconds at save time (maxmemory-policy *-lru); null when absent"),
    ("offset", pa.uint64(), False,
     "byte position where the entry starts in the (decompressed) dump"),
    ("module_name", pa.dictionary(pa.int32(), pa.string()), True,
     "module type name decoded from the module id (e.g. graphdata, ReJSON-RL); null for other types"),
    ("n_fields_with_ttl", pa.uint64(), True,
     "hash fields that carry their own TTL (Redis 7.4+ and Valkey 9 hashes); null for keys that are not hashes"),
    ("est_memory_fallback", pa.bool_(), False,
     "true when no memory model applies (module values): est_memory_bytes is then the serialized size"),
)

KEYS_SCHEMA = pa.schema(
    [pa.field(name, typ, nullable=nullable, metadata={"doc": doc}) for name, typ, nullable, doc in COLUMNS]
)



def _string_array(names):
    """``names`` as an Arrow string array, built from its buffers: ``pa.array`` imports pandas
    to inspect its argument, which would make every ``import rdbscope`` pay for pandas."""
    encoded = [name.encode() for name in names]
    offsets = array("i", accumulate((len(e) for e in encoded), initial=0))
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    return pa.Array.from_buffers(pa.string(), len(names), buffers)


TYPE_DICTIONARY = _string_array(TYPE_NAMES)
ENCODING_DICTIONARY = _string_array(ENCODING_NAMES)


def describe_columns():
    """Return ``[(name, type, doc)]`` for documentation and ``rdbscope schema``."""
    return [(name, str(typ), doc) for name, typ, _nullable, doc in COLUMNS]
