"""Hand the scanner's filled column buffers to Arrow as one RecordBatch, without copying."""

import functools

import pyarrow as pa

from .schema import ENCODING_DICTIONARY, KEYS_SCHEMA, TYPE_DICTIONARY


@functools.lru_cache(maxsize=4)
def _zeros(size):
    """One zero-filled buffer shared by every all-null column (they cost no memory of their own)."""
    return pa.py_buffer(bytes(size))


def _all_null(typ, rows):
    width = max(typ.bit_width // 8, 1)
    zeros = _zeros(max(rows * width, (rows + 7) // 8))
    return pa.Array.from_buffers(typ, rows, [zeros, zeros], null_count=rows)


def _column(typ, rows, data, bitmap=None, nulls=0):
    if nulls == rows and rows:
        return _all_null(typ, rows)
    validity = None if nulls == 0 else pa.py_buffer(bitmap)
    return pa.Array.from_buffers(typ, rows, [validity, pa.py_buffer(data)], null_count=nulls)


def build_batch(scanner, rows):
    """Wrap the first ``rows`` rows of the scanner's buffers in a batch of KEYS_SCHEMA."""
    s = scanner
    keys = pa.Array.from_buffers(
        pa.binary(), rows, [None, pa.py_buffer(s.a_koff), pa.py_buffer(s.keydata[: s.klen])]
    )
    types = pa.DictionaryArray.from_arrays(_column(pa.int8(), rows, s.a_type), TYPE_DICTIONARY)
    encodings = pa.DictionaryArray.from_arrays(_column(pa.int8(), rows, s.a_enc), ENCODING_DICTIONARY)
    modules = pa.DictionaryArray.from_arrays(
        _column(pa.int32(), rows, s.a_module, s.a_v_module, s.nulls_module),
        pa.array(list(s.module_names), pa.string()),
    )
    columns = [
        _column(pa.int32(), rows, s.a_db),
        keys,
        types,
        encodings,
        _column(pa.timestamp("ms", tz="UTC"), rows, s.a_expire, s.a_v_expire, s.nulls_expire),
        _column(pa.uint64(), rows, s.a_rdb_bytes),
        _column(pa.uint64(), rows, s.a_n, s.a_v_counts, s.nulls_counts),
        _column(pa.uint64(), rows, s.a_n if s.max_is_n else s.a_max, s.a_v_counts, s.nulls_counts),
        _column(pa.uint64(), rows, s.a_est, None, s.nulls_est),
        _column(pa.uint8(), rows, s.a_lfu, s.a_v_lfu, s.nulls_lfu),
        _column(pa.uint64(), rows, s.a_idle, s.a_v_idle, s.nulls_idle),
        _column(pa.uint64(), rows, s.a_offset),
        modules,
        _column(pa.uint64(), rows, s.a_ttl_fields, s.a_v_ttl_fields, s.nulls_ttl_fields),
        pa.Array.from_buffers(pa.bool_(), rows, [None, pa.py_buffer(s.a_est_fallback)]),
    ]
    return pa.RecordBatch.from_arrays(columns, schema=KEYS_SCHEMA)
