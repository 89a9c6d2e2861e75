"""Memory estimates of encodings a key does not have yet, through the dump's memory model.

The encoding rules compare what a key costs now (``est_memory_bytes``) with
what it would cost in a compact encoding (a listpack). The second figure comes
from the same memory model the scanner used (``rdbscope.rdb.memory``):
same server layout, same allocator. The listpack's own size is estimated from
the key's serialized size, since the dump stores the elements with a one-byte
length prefix much as a listpack stores them with a one-byte header.
"""

import re

import numpy as np

from ..rdb.memory import LAYOUTS, choose_layout, new_model

_LAYOUT_CODE = {name: code for code, (name, _servers) in LAYOUTS.items()}
_VERSION = re.compile(r"^(\d+)\.(\d+)")

#: Bytes of a listpack beyond its entries: total bytes, entry count, end marker.
LISTPACK_HEADER_BYTES = 7
#: Bytes of an expiry opcode and its 8-byte time in the dump.
EXPIRY_OPCODE_BYTES = 9


def memory_model(info):
    """The memory model behind the dump's estimates (or the one its writer implies)."""
    described = getattr(info, "memory_model", None)
    if described is not None:
        return new_model(_LAYOUT_CODE[described.layout], described.allocator, described.list_compress_depth)
    aux = info.aux or {}
    valkey = _VERSION.match(aux.get("valkey-ver", ""))
    redis = _VERSION.match(aux.get("redis-ver", ""))
    layout, _exact = choose_layout(int(valkey.group(1)) * 100 + int(valkey.group(2)) if valkey else 0,
                                   int(redis.group(1)) * 100 + int(redis.group(2)) if redis else 0)
    return new_model(layout)


def layout_name(info):
    """Name of the layout (``redis-7.0``, ``valkey-8``, …) the dump's estimates follow."""
    code = memory_model(info).layout
    return LAYOUTS[code][0]


def length_prefix_bytes(n):
    """Bytes of an RDB length encoding of ``n`` (numpy array)."""
    n = np.asarray(n)
    return np.where(n < 64, 1, np.where(n < 16384, 2, 5))


def serialized_value_bytes(rdb_bytes, key_bytes, has_ttl):
    """The value's part of a dump entry: its size minus type byte, key and expiry opcode."""
    overhead = 1 + length_prefix_bytes(key_bytes) + key_bytes + np.where(has_ttl, EXPIRY_OPCODE_BYTES, 0)
    return np.maximum(np.asarray(rdb_bytes, np.int64) - overhead, 0)


def listpack_bytes(value_bytes, n_entries):
    """A listpack holding what took ``value_bytes`` in the dump as ``n_entries`` entries.

    Each entry has a header and a back-length byte where the dump has one length byte.
    """
    return np.asarray(value_bytes, np.int64) + np.asarray(n_entries, np.int64) + LISTPACK_HEADER_BYTES


def compact_memory(model, key_bytes, has_ttl, blob_bytes):
    """Memory of keys holding a listpack of ``blob_bytes`` each (numpy arrays in, int64 out).

    Calls the model once per distinct (key length, TTL, blob size), never per key.
    """
    combos = np.stack([np.asarray(key_bytes, np.int64), np.asarray(has_ttl, np.int64),
                       np.asarray(blob_bytes, np.int64)], axis=1)
    if len(combos) == 0:
        return np.zeros(0, np.int64)
    distinct, inverse = np.unique(combos, axis=0, return_inverse=True)
    sizes = np.array([model.compact_size(int(k), int(t), int(b)) for k, t, b in distinct], np.int64)
    return sizes[inverse.reshape(-1)]
