"""Ids counted, the first and last row of each wanted id found, and a value per id spread to the rows,
in one pass each (compiled with ``_ids.pxd``): ``numpy.bincount`` and ``numpy.take`` copy int32 ids to
intp first, and finding ends with numpy takes a gather and a scatter over every row."""

try:
    import cython
except ImportError:  # Cython is only needed to build the extension
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython


def count_into(ids, counts, n, lanes):
    """Add one to ``counts[lane * n + ids[i]]`` for every ``i``, ``lane`` being ``i % lanes`` (a power of
    two; every id below ``n``, ``counts`` of ``lanes * n``). With few ids, one count per lane lets
    the processor run on without waiting for the count it has just written."""
    size = ids.shape[0]
    mask = lanes - 1
    i = 0
    with cython.nogil:
        while i < size:
            counts[(i & mask) * n + ids[i]] += 1
            i += 1


def ends_into(ids, wanted, first, last, n_wanted):
    """``first[g]`` and ``last[g]``: the first and the last row ``i`` with ``ids[i] == g``, for each ``g``
    with ``wanted[g]`` whose entry is still -1. ``n_wanted``: how many such ``g`` there are; each of
    the two scans, from the front and from the back, stops once it has found them all."""
    n = ids.shape[0]
    found = 0
    i = 0
    with cython.nogil:
        while i < n and found < n_wanted:
            g = ids[i]
            if wanted[g] and first[g] < 0:
                first[g] = i
                found += 1
            i += 1
        found = 0
        i = n - 1
        while i >= 0 and found < n_wanted:
            g = ids[i]
            if wanted[g] and last[g] < 0:
                last[g] = i
                found += 1
            i -= 1


def take_into(values, ids, out):
    """``out[i] = values[ids[i]]`` for every ``i`` (every id below ``len(values)``): ``numpy.take`` copies
    int32 ids to intp first."""
    n = ids.shape[0]
    i = 0
    with cython.nogil:
        while i < n:
            out[i] = values[ids[i]]
            i += 1


def count_pairs(first, second, width, counts):
    """Add one to ``counts[first[i] * width + second[i]]`` for every ``i``: pairs of codes counted without an
    array of their combined codes."""
    n = first.shape[0]
    i = 0
    with cython.nogil:
        while i < n:
            s = cython.cast(cython.Py_ssize_t, first[i]) * width + cython.cast(cython.Py_ssize_t, second[i])
            counts[s] += 1
            i += 1


def pair_codes(first, second, width, lookup, out):
    """``out[i] = lookup[first[i] * width + second[i]]`` for every ``i``."""
    n = first.shape[0]
    i = 0
    with cython.nogil:
        while i < n:
            s = cython.cast(cython.Py_ssize_t, first[i]) * width + cython.cast(cython.Py_ssize_t, second[i])
            out[i] = lookup[s]
            i += 1
