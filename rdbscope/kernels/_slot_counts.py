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
if not cython.compiled:  # compiled, _slot_counts.pxd cimports it as a C function
    from ..compiled.bits import bit_length


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


def count_pairs_into(group, value, weight, low, width, count, total):
    """:func:`count_into` of the slots ``group[i] * width + value[i] - low`` (every value from ``low`` to
    ``low + width - 1``): the pairs counted without an array of their slots. With ``weight`` empty, only
    the keys are counted (``total`` is left alone)."""
    weighted = weight.shape[0] > 0
    n = group.shape[0]
    i = 0
    with cython.nogil:
        while i < n:
            s = cython.cast(cython.longlong, group[i]) * width + cython.cast(cython.longlong, value[i] - low)
            count[s] += 1
            if weighted:
                total[s] += weight[i]
            i += 1


def take_pairs(count, total, second, n_groups, width, group_out, value_out, count_out, total_out, second_out):
    """:func:`take_counted` of the slots of ``n_groups`` groups of ``width`` values, each slot written
    as its (group, value), and with ``second`` too (another total) unless it is empty; returns how many."""
    two = second.shape[0] > 0
    n = 0
    s = 0
    g = 0
    with cython.nogil:
        while g < n_groups:
            v = 0
            while v < width:
                if count[s] != 0:
                    group_out[n] = g
                    value_out[n] = v
                    count_out[n] = count[s]
                    total_out[n] = total[s]
                    count[s] = 0
                    total[s] = 0
                    if two:
                        second_out[n] = second[s]
                        second[s] = 0
                    n += 1
                v += 1
                s += 1
            g += 1
    return n


def add_pairs_into(group, new_group, value, first, second, low, width, count, total, second_total):
    """For every ``i``, add one to ``count``, ``first[i]`` to ``total`` and ``second[i]`` to ``second_total``
    (unless ``second`` is empty) at the slot ``new_group[group[i]] * width + value[i] - low``."""
    two = second.shape[0] > 0
    n = group.shape[0]
    i = 0
    with cython.nogil:
        while i < n:
            s = new_group[group[i]] * width + cython.cast(cython.longlong, value[i] - low)
            count[s] += 1
            total[s] += first[i]
            if two:
                second_total[s] += second[i]
            i += 1


def count_rounded_into(group, value, weight, base, precision, count, total):
    """:func:`count_into` of each value rounded down to ``precision`` significant bits, in the slot
    ``base[group[i]]`` plus its code: a value below ``2 ** precision`` is its own code; one of
    ``precision + shift`` bits is ``(shift << (precision - 1)) + (value >> shift)``. Codes ascend with the
    rounded values, and those of values below ``2 ** bits`` are below ``(bits - precision + 2) <<
    (precision - 1)``."""
    n = group.shape[0]
    i = 0
    with cython.nogil:
        while i < n:
            v = cython.cast(cython.ulonglong, value[i])
            shift = bit_length(v >> precision)
            s = base[group[i]] + (cython.cast(cython.longlong, shift) << (precision - 1)) \
                + cython.cast(cython.longlong, v >> shift)
            count[s] += 1
            total[s] += weight[i]
            i += 1
