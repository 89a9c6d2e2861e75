"""Turn the scanner's typed column buffers into one Arrow RecordBatch."""

import numpy as np
import pyarrow as pa

from .format import module_type_name
from .schema import ENCODING_DICTIONARY, KEYS_SCHEMA, TYPE_DICTIONARY

_NO_EXPIRE = -(2**63)


def _col(buffer, dtype, rows):
    return np.frombuffer(buffer, dtype=dtype, count=rows)


def build_batch(scanner, rows):
    """Copy the first ``rows`` rows out of the scanner's buffers into a batch."""
    s = scanner
    koff = _col(s.a_koff, np.int64, rows + 1)
    keydata = pa.py_buffer(bytes(memoryview(s.keydata)[: int(koff[-1])]))
    if koff[-1] < 2**31:
        keys = pa.Array.from_buffers(pa.binary(), rows, [None, pa.py_buffer(koff.astype(np.int32)), keydata])
    else:
        keys = pa.Array.from_buffers(pa.large_binary(), rows, [None, pa.py_buffer(koff.copy()), keydata])
        keys = keys.cast(pa.binary())

    expire = _col(s.a_expire, np.int64, rows)
    nulls = _col(s.a_nulls, np.int8, rows).astype(bool)
    lfu = _col(s.a_lfu, np.int16, rows)
    idle = _col(s.a_idle, np.int64, rows)
    module_ids = _col(s.a_module, np.uint64, rows)

    columns = [
        pa.array(_col(s.a_db, np.int32, rows).copy(), pa.int32()),
        keys,
        pa.DictionaryArray.from_arrays(pa.array(_col(s.a_type, np.int8, rows).copy()), TYPE_DICTIONARY),
        pa.DictionaryArray.from_arrays(pa.array(_col(s.a_enc, np.int8, rows).copy()), ENCODING_DICTIONARY),
        pa.array(expire.copy(), pa.int64(), mask=expire == _NO_EXPIRE).cast(pa.timestamp("ms", tz="UTC")),
        pa.array(_col(s.a_rdb_bytes, np.uint64, rows).copy(), pa.uint64()),
        pa.array(_col(s.a_n, np.uint64, rows).copy(), pa.uint64(), mask=nulls),
        pa.array(_col(s.a_max, np.uint64, rows).copy(), pa.uint64(), mask=nulls),
        pa.nulls(rows, pa.uint64()),
        pa.array(lfu.astype(np.uint8), pa.uint8(), mask=lfu < 0),
        pa.array(idle.astype(np.uint64), pa.uint64(), mask=idle < 0),
        pa.array(_col(s.a_offset, np.uint64, rows).copy(), pa.uint64()),
        _module_names(module_ids),
        pa.array(_col(s.a_ttl_fields, np.uint64, rows).copy(), pa.uint64()),
    ]
    return pa.RecordBatch.from_arrays(columns, schema=KEYS_SCHEMA)


def _module_names(module_ids):
    present = module_ids != 0
    if not present.any():
        return pa.DictionaryArray.from_arrays(
            pa.nulls(len(module_ids), pa.int32()), pa.array([], pa.string())
        )
    unique, inverse = np.unique(module_ids, return_inverse=True)
    names = [module_type_name(int(m)) if m else "" for m in unique]
    indices = pa.array(inverse.astype(np.int32), pa.int32(), mask=~present)
    return pa.DictionaryArray.from_arrays(indices, pa.array(names, pa.string()))
