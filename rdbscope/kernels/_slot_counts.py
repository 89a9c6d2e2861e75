"""Counting keys into the slots of a dense range, and reading back the slots that were hit
(compiled with ``_slot_counts.pxd``).

The counters live from chunk to chunk and are zeroed as they are read back: a chunk writes only
to the pages it hits, where a fresh pair of counter arrays per chunk was mostly page faults.
"""

try:
    import cython
except ImportError:  # Cython is only needed to build the extension
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython


def count_into(slot, weight, count, total):
    """Add one to ``count[slot[i]]`` and ``weight[i]`` to ``total[slot[i]]`` for every ``i``."""
    n = slot.shape[0]
    i = 0
    with cython.nogil:
        while i < n:
            count[slot[i]] += 1
            total[slot[i]] += weight[i]
            i += 1


def take_counted(count, total, stop, slot_out, count_out, total_out):
    """Write the slots below ``stop`` with a count, ascending, with their count and total, and zero
    them; returns how many."""
    n = 0
    s = 0
    with cython.nogil:
        while s < stop:
            if count[s] != 0:
                slot_out[n] = s
                count_out[n] = count[s]
                total_out[n] = total[s]
                count[s] = 0
                total[s] = 0
                n += 1
            s += 1
    return n
