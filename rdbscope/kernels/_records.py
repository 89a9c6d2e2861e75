"""A chunk's expiring keys packed into the spill's records, grouped by partition (compiled with
``_records.pxd``): one pass counts the partitions, one writes each record where its partition's run
goes, where numpy would sort by partition and then fill each field through the order.

A record is the expiry spill's ``RECORD``: int32 group number, int64 epoch millisecond, uint64 memory,
uint64 place, packed, in the machine's byte order (as numpy writes it).
"""

try:
    import cython
except ImportError:  # Cython is only needed to build the extension
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython

import struct

RECORD_BYTES = cython.declare(cython.Py_ssize_t, 28)
_PACKED = struct.Struct("=iqQQ")


def partition_of(value, parts):
    """The partition of the millisecond ``value``: ``value`` modulo ``parts``, from 0 (as Python's %)."""
    p = value % parts
    if p < 0:
        p += parts
    return p


def pack_records(number, group, value, memory, place, bounds, cursor, out):
    """Write to ``out`` (``RECORD_BYTES`` bytes a key) the record ``(number[group[i]], value[i], memory[i],
    place[i])`` of every key ``i``: the keys of partition 0 first, then 1, …, each in the keys' order.
    ``bounds`` (zeros, one more than the partitions) gets where each partition's records start and the
    last one's end, counted in records; ``cursor`` (one per partition) is scratch."""
    n = group.shape[0]
    parts = cursor.shape[0]
    with cython.nogil:
        i = 0
        while i < n:
            bounds[partition_of(value[i], parts) + 1] += 1
            i += 1
        k = 0
        while k < parts:
            bounds[k + 1] += bounds[k]
            cursor[k] = bounds[k]
            k += 1
        i = 0
        while i < n:
            p = partition_of(value[i], parts)
            at = cursor[p] * RECORD_BYTES
            cursor[p] += 1
            g = number[group[i]]
            v = value[i]
            m = memory[i]
            q = place[i]
            if cython.compiled:
                memcpy(cython.address(out[at]), cython.address(g), 4)
                memcpy(cython.address(out[at + 4]), cython.address(v), 8)
                memcpy(cython.address(out[at + 12]), cython.address(m), 8)
                memcpy(cython.address(out[at + 20]), cython.address(q), 8)
            else:
                with cython.gil:
                    _PACKED.pack_into(out, at, int(g), int(v), int(m), int(q))
            i += 1


def second_of(value):
    """The epoch second of the millisecond ``value``, rounded down (as Python's //)."""
    s = value // 1000
    if value % 1000 < 0:  # C division rounds toward zero
        s -= 1
    return s


def count_seconds(number, group, value, memory, low, width, counted):
    """Add one and ``memory[i]`` to the slot ``number[group[i]] * width + second - low`` of every key ``i``,
    ``second`` its millisecond ``value[i]``'s (each from ``low`` to ``low + width - 1``): a slot is two
    words of ``counted``, its keys then their memory, so that a key touches one cache line."""
    n = group.shape[0]
    with cython.nogil:
        i = 0
        while i < n:
            s = 2 * (cython.cast(cython.longlong, number[group[i]]) * width + (second_of(value[i]) - low))
            counted[s] += 1
            counted[s + 1] += memory[i]
            i += 1
