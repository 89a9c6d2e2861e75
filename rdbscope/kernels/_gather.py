"""Chosen keys of an Arrow binary array copied into new offsets and data buffers: pyarrow's ``take`` costs
some 60 ns a key, this a few (compiled with ``_gather.pxd``)."""

try:
    import cython
except ImportError:  # Cython is only needed to build the extension
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython


def fill_offsets(offsets, rows, out_offsets):
    """``out_offsets``: the offsets (from 0) of the keys ``rows`` of the array whose offsets are ``offsets``;
    returns their total length, or -1 when it does not fit int32 offsets (``out_offsets`` is then unfinished)."""
    n = rows.shape[0]
    total = 0
    out_offsets[0] = 0
    with cython.nogil:
        i = 0
        while i < n:
            r = rows[i]
            # as Python too, summed as int: not wrapped around as int32
            total += cython.cast(cython.Py_ssize_t, offsets[r + 1]) - cython.cast(cython.Py_ssize_t, offsets[r])
            if total > 0x7FFFFFFF:
                break
            out_offsets[i + 1] = total
            i += 1
    return total if i == n else -1


def copy_keys(offsets, data, rows, out_offsets, out_data):
    """The bytes of the keys ``rows`` into ``out_data``, at ``out_offsets`` (see :func:`fill_offsets`)."""
    n = rows.shape[0]
    if not cython.compiled:
        for i in range(n):
            start, at = offsets[rows[i]], out_offsets[i]
            out_data[at:out_offsets[i + 1]] = data[start:offsets[rows[i] + 1]]
        return
    with cython.nogil:
        i = 0
        while i < n:
            r = rows[i]
            start = offsets[r]
            length = offsets[r + 1] - start
            if length > 0:
                memcpy(cython.address(out_data[out_offsets[i]]), cython.address(data[start]), length)
            i += 1
