"""The lowest and the highest key (bytes, as Arrow orders binary) of each group, in one pass over the
keys (compiled with ``_key_ends.pxd``)."""

try:
    import cython
except ImportError:  # Cython is only needed to build the extension
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython


def compare_keys(data, a_start, a_end, b_start, b_end):
    """Below, at or above 0 as the bytes ``data[a_start:a_end]`` order before, as or after ``data[b_start:b_end]``
    (byte by byte, then the shorter first)."""
    a_len = a_end - a_start
    b_len = b_end - b_start
    if cython.compiled:
        order = memcmp(cython.address(data[a_start]), cython.address(data[b_start]), min(a_len, b_len)) \
            if a_len > 0 and b_len > 0 else 0
    else:
        a, b = bytes(data[a_start:a_start + min(a_len, b_len)]), bytes(data[b_start:b_start + min(a_len, b_len)])
        order = (a > b) - (a < b)
    return order if order != 0 else a_len - b_len


def fill_key_ends(offsets, data, group, lowest, highest):
    """``lowest[g]`` and ``highest[g]``: the row of the lowest and of the highest key of each group ``g``
    (-1 where none); ``group[r]``: the group of row ``r``, or -1 for a row of none. Of equal keys, the first."""
    n = group.shape[0]
    with cython.nogil:
        r = 0
        while r < n:
            g = group[r]
            if g >= 0:
                low = lowest[g]
                if low < 0:
                    lowest[g] = r
                    highest[g] = r
                else:
                    if compare_keys(data, offsets[r], offsets[r + 1], offsets[low], offsets[low + 1]) < 0:
                        lowest[g] = r
                    high = highest[g]
                    if compare_keys(data, offsets[r], offsets[r + 1], offsets[high], offsets[high + 1]) > 0:
                        highest[g] = r
            r += 1
