"""Run a column function on slices of a big column in threads.

pyarrow's compute kernels release the GIL, so regex passes over a column of
millions of strings run about twice as fast on slices in two threads.
"""

import os
from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa

MIN_ROWS_PER_THREAD = 100_000


def slice_for_threads(array):
    """One slice of ``array`` per core, or ``[array]`` when it is too small to share."""
    workers = min(os.cpu_count() or 1, len(array) // MIN_ROWS_PER_THREAD)
    if workers < 2:
        return [array]
    step = -(-len(array) // workers)
    return [array.slice(start, step) for start in range(0, len(array), step)]


def by_slices(function, array):
    """``function(array)``, computed on one slice per core and concatenated."""
    slices = slice_for_threads(array)
    if len(slices) == 1:
        return function(array)
    with ThreadPoolExecutor(len(slices)) as pool:
        return pa.concat_arrays(list(pool.map(function, slices)))
