"""Rows picked per group from a chunk of keys, each in one pass over the rows (compiled with
``_group_rows.pxd``): a counter per group does what sorting the rows by group would."""

try:
    import cython
except ImportError:  # Cython is only needed to build the extension
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython


def first_rows(groups, marked, k, seen, out):
    """Write to ``out`` the first ``k`` rows of each group (``groups``: one per row) among the rows ``r`` with
    ``marked[r]`` 0 (every row when ``marked`` is empty), ascending, past the ``seen[g]`` rows of group ``g``
    counted before (``seen`` is updated); returns how many were written. Stops once ``out`` is full: ``out``
    as long as the rows there are to find reads no further than the last."""
    every = marked.shape[0] == 0
    n = 0
    r = 0
    m = groups.shape[0]
    most = out.shape[0]
    with cython.nogil:
        while r < m and n < most:
            if every or marked[r] == 0:
                g = groups[r]
                if seen[g] < k:
                    seen[g] += 1
                    out[n] = r
                    n += 1
            r += 1
    return n


def first_rows_of(groups, rows, k, seen, out):
    """:func:`first_rows` among ``rows`` only (ascending): writes positions in ``rows``."""
    n = 0
    i = 0
    m = rows.shape[0]
    most = out.shape[0]
    with cython.nogil:
        while i < m and n < most:
            g = groups[rows[i]]
            if seen[g] < k:
                seen[g] += 1
                out[n] = i
                n += 1
            i += 1
    return n


def largest_rows(values, groups, threshold, k, tied, out):
    """Write to ``out`` the rows whose value is over their group's ``threshold``, and the first ``k`` rows
    of each group whose value equals it (``tied``: a zeroed counter per group), ascending; returns how many."""
    n = 0
    r = 0
    m = groups.shape[0]
    with cython.nogil:
        while r < m:
            g = groups[r]
            if values[r] > threshold[g]:
                out[n] = r
                n += 1
            elif values[r] == threshold[g] and tied[g] < k:
                tied[g] += 1
                out[n] = r
                n += 1
            r += 1
    return n
