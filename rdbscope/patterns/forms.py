"""Per-key work, kept to a few whole-column passes.

A key's *form* is the key with every ASCII digit replaced by ``0``.  Keys that
differ only in their numbers share a form, so a keyspace of millions of keys
has far fewer forms, and everything after this module works per form.
"""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")


def as_binary_array(keys):
    """The keys as one contiguous binary (or large_binary) array without nulls."""
    if isinstance(keys, pa.ChunkedArray):
        keys = keys.combine_chunks() if keys.num_chunks else pa.array([], pa.binary())
    elif not isinstance(keys, pa.Array):
        keys = pa.array([bytes(k) for k in keys], pa.binary())
    if pa.types.is_string(keys.type) or pa.types.is_large_string(keys.type):
        keys = keys.view(pa.large_binary() if pa.types.is_large_string(keys.type) else pa.binary())
    if pa.types.is_binary_view(keys.type) or pa.types.is_string_view(keys.type):
        keys = keys.cast(pa.large_binary())
    if not (pa.types.is_binary(keys.type) or pa.types.is_large_binary(keys.type)):
        raise TypeError(f"keys must be binary, not {keys.type}")
    if keys.null_count:
        keys = pc.fill_null(keys, b"")
    return keys


def _offsets(array):
    dtype = np.int64 if pa.types.is_large_binary(array.type) or pa.types.is_large_string(array.type) else np.int32
    raw = np.frombuffer(array.buffers()[1], dtype=dtype)
    return raw[array.offset: array.offset + len(array) + 1]


def _data(array):
    data = array.buffers()[2]
    return data if data is not None else pa.py_buffer(b"")


def mask_digits(keys):
    """Each key with its digits replaced by ``0``: same offsets, one new data buffer."""
    masked = pa.py_buffer(_data(keys).to_pybytes().translate(_DIGITS_TO_ZERO))
    return pa.Array.from_buffers(keys.type, len(keys), [None, keys.buffers()[1], masked], offset=keys.offset)


def encode(array):
    """``(indices, distinct)``: the position of each value in the array of distinct values."""
    encoded = array.dictionary_encode()
    return encoded.indices.to_numpy(zero_copy_only=False), encoded.dictionary


def decode(array):
    """Binary to text: UTF-8 where valid, ``\\xNN`` escapes for bytes that are not."""
    text_type = pa.large_string() if pa.types.is_large_binary(array.type) else pa.string()
    try:
        return array.cast(text_type)
    except pa.ArrowInvalid:
        pass
    offsets = _offsets(array)
    high = np.frombuffer(_data(array), dtype=np.uint8) >= 0x80
    running = np.concatenate(([0], np.cumsum(high, dtype=np.int64)))
    has_high = running[offsets[1:]] > running[offsets[:-1]]
    mask = pa.array(has_high)
    fixed = [value.decode("utf-8", "backslashreplace") for value in array.filter(mask).to_pylist()]
    return pc.replace_with_mask(array.view(text_type), mask, pa.array(fixed, text_type))


def first_and_last(groups, n_groups):
    """Row of the first and of the last occurrence of each group number."""
    rows = np.arange(len(groups), dtype=np.int64)
    first = np.empty(n_groups, dtype=np.int64)
    last = np.empty(n_groups, dtype=np.int64)
    # With repeated indices, numpy's assignment keeps the last value written.
    first[groups[::-1]] = rows[::-1]
    last[groups] = rows
    return first, last
