"""Redis Cluster hash slots of keys (CRC16 of the key or its hash tag, modulo 16384)."""

import numpy as np
import pyarrow as pa

from ..compiled import chosen_module

_slots = chosen_module("rdb._slots")
fill_slots = _slots.fill_slots

N_SLOTS = 16384


def key_slots(keys):
    """The hash slot of every key of a binary Arrow array or chunked array, as uint16."""
    if isinstance(keys, pa.ChunkedArray):
        chunks = [key_slots(chunk) for chunk in keys.chunks]
        return pa.chunked_array(chunks, pa.uint16())
    out = np.empty(len(keys), np.uint16)
    if len(keys):
        fill_slots(*offsets_and_data(keys), out)
    return pa.array(out, pa.uint16())


def offsets_and_data(keys):
    """The offsets (int32) and bytes (uint8) of a binary Arrow array, as numpy arrays for the kernels."""
    if keys.type != pa.binary():
        keys = keys.cast(pa.binary())
    _validity, offsets, data = keys.buffers()
    offsets = np.frombuffer(offsets, np.int32, len(keys) + 1, keys.offset * 4)
    return offsets, np.frombuffer(data, np.uint8) if data is not None and data.size else np.zeros(1, np.uint8)


def count_key_slots(keys, memory, n_keys, total, out=None):
    """The slot of every key of a binary Arrow array (uint16 numpy, into ``out`` when given), adding one per key
    to ``n_keys[slot]`` and its ``memory`` (uint64) to ``total[slot]`` (float64)."""
    if out is None:
        out = np.empty(len(keys), np.uint16)
    if len(keys):
        _slots.count_slots(*offsets_and_data(keys), np.ascontiguousarray(memory, np.uint64), out, n_keys, total)
    return out


def key_slot(key):
    """The hash slot of one key (bytes or str)."""
    if isinstance(key, str):
        key = key.encode()
    return key_slots(pa.array([key], pa.binary()))[0].as_py()
