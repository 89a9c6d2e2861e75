"""Integer weights summed per group, exactly (modulo 2**64), in one pass (compiled with ``_group_sums.pxd``):
``numpy.bincount`` with weights converts them to float64 first and takes several times as long."""

try:
    import cython
except ImportError:  # Cython is only needed to build the extension
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython


def sum_into(group, weight, total):
    """Add ``weight[i]`` to ``total[group[i]]`` for every ``i`` (every group below ``len(total)``)."""
    n = group.shape[0]
    i = 0
    with cython.nogil:
        while i < n:
            total[group[i]] += weight[i]
            i += 1
