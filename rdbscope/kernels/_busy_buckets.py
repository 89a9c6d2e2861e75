"""Spilled expiry records counted by a hash of (group, millisecond), and the records of the buckets that
reach a batch's size (compiled with ``_busy_buckets.pxd``).

A record is the scale package's ``RECORD``: int32 group number, then int64 epoch millisecond, packed,
``size`` bytes each; ``group_map`` gives each group number its final group. A bucket holding fewer than
a batch's keys holds no batch (entries that share a bucket only add up), so the records of the other
buckets are all a batch can be made of. Counts stop at 65535, which only lets more records through.
"""

try:
    import cython
except ImportError:  # Cython is only needed to build the extension
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython

#: Multipliers of the millisecond and the group in the bucket hash.
VALUE_MIX = cython.declare(cython.ulonglong, 0x9E3779B1)
GROUP_MIX = cython.declare(cython.ulonglong, 0x85EBCA77)
COUNT_CAP = cython.declare(cython.int, 65535)


def bucket_of(raw, at, group_map, mask):
    """The bucket of the record at byte ``at`` of ``raw``."""
    if cython.compiled:
        memcpy(cython.address(number), cython.address(raw[at]), 4)
        memcpy(cython.address(value), cython.address(raw[at + 4]), 8)
        group = group_map[number]
    else:
        number = int.from_bytes(raw[at:at + 4], "little", signed=True)
        value = int.from_bytes(raw[at + 4:at + 12], "little")
        group = int(group_map[number])
    return (value * VALUE_MIX + group * GROUP_MIX) & mask


def count_buckets(raw, size, group_map, mask, counts):
    """Add one to ``counts[bucket]`` for every record of ``raw`` (``size`` bytes each)."""
    n = raw.shape[0] // size
    with cython.nogil:
        i = 0
        while i < n:
            b = bucket_of(raw, i * size, group_map, mask)
            if counts[b] < COUNT_CAP:
                counts[b] += 1
            i += 1


def busy_records(raw, size, group_map, mask, counts, threshold, out):
    """Write to ``out`` the numbers of the records of ``raw`` whose bucket counts ``threshold`` or more
    (at most 65535), ascending; returns how many."""
    n = raw.shape[0] // size
    k = 0
    with cython.nogil:
        i = 0
        while i < n:
            if counts[bucket_of(raw, i * size, group_map, mask)] >= threshold:
                out[k] = i
                k += 1
            i += 1
    return k
