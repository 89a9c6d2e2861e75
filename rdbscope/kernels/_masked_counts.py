"""Keys counted per group among those a mask or their code selects, in one pass over the rows (compiled
with ``_masked_counts.pxd``): no gathered copy of the selected rows' groups, as ``bincount(ids[mask])`` makes."""

try:
    import cython
except ImportError:  # Cython is only needed to build the extension
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython


def count_where(ids, mask, counts):
    """Add to ``counts[g]`` the rows of id ``g`` whose ``mask`` (0 or 1 per row) is 1."""
    n = ids.shape[0]
    with cython.nogil:
        i = 0
        while i < n:
            counts[ids[i]] += mask[i]
            i += 1


def count_of_codes(ids, codes, wanted, counts):
    """Add to ``counts[g]`` the rows of id ``g`` whose code ``c`` is wanted (``wanted[c]``: 0 or 1)."""
    n = ids.shape[0]
    with cython.nogil:
        i = 0
        while i < n:
            counts[ids[i]] += wanted[codes[i]]
            i += 1
