"""Merging sorted runs of counted values (compiled with ``_runs.pxd``).

A run is a stretch of entries sorted by value, each value with one or two weights (a count, a
memory sum); the runs of one group merge into one sorted run in which equal values are added up.
Per-chunk tallies merge this way in linear time where a sort of their concatenation would not.
"""

try:
    import cython
except ImportError:  # Cython is only needed to build the extension
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython

#: Where a run has no value left (a real value as large is told apart by the run's end).
MAX_VALUE = cython.declare(cython.ulonglong, 0xFFFFFFFFFFFFFFFF)


def merge_runs(value, first, second, run_start, run_end, group_runs, run_of, heads, ends, head_values,
               out_group, out_value, out_first, out_second):
    """Merge the runs of each group; returns the entries written.

    Entries ``run_start[r]:run_end[r]`` of ``value``, ``first`` and ``second`` (the weights; ``second``
    may be empty) make run ``r``; group ``g`` has the runs ``run_of[group_runs[g]:group_runs[g + 1]]``.
    Writes, group after group, each distinct value with its weights summed. ``heads``, ``ends`` and
    ``head_values``: scratch, one per run.
    """
    two = second.shape[0] > 0
    n = 0
    n_groups = group_runs.shape[0] - 1
    with cython.nogil:
        g = 0
        while g < n_groups:
            low = group_runs[g]
            high = group_runs[g + 1]
            alive = 0
            j = low
            while j < high:
                heads[j] = run_start[run_of[j]]
                ends[j] = run_end[run_of[j]]
                head_values[j] = value[heads[j]] if heads[j] < ends[j] else MAX_VALUE
                if heads[j] < ends[j]:
                    alive += 1
                j += 1
            while alive > 0:
                smallest = MAX_VALUE
                j = low
                while j < high:  # runs are few: a scan of their heads beats a heap
                    if head_values[j] < smallest:
                        smallest = head_values[j]
                    j += 1
                out_group[n] = g
                out_value[n] = smallest
                out_first[n] = 0
                if two:
                    out_second[n] = 0
                j = low
                while j < high:  # every run whose head holds that value moves on
                    if head_values[j] == smallest and heads[j] < ends[j]:
                        i = heads[j]
                        while i < ends[j] and value[i] == smallest:
                            out_first[n] += first[i]
                            if two:
                                out_second[n] += second[i]
                            i += 1
                        heads[j] = i
                        if i < ends[j]:
                            head_values[j] = value[i]
                        else:
                            head_values[j] = MAX_VALUE
                            alive -= 1
                    j += 1
                n += 1
            g += 1
    return n
