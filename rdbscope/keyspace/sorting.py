"""Stable orders of 64-bit keys, by the compiled radix sort (``kernels/_radix.py``)."""

import numpy as np

from .. import kernels

#: Keys below which numpy's merge sort costs less than the radix sort's passes over its buckets.
RADIX_MIN_KEYS = 4096


def stable_order(keys):
    """The order that sorts non-negative 64-bit integer ``keys``, equal ones in the order given:
    ``numpy.argsort(keys, kind="stable")``."""
    keys = np.ascontiguousarray(keys).view(np.uint64) if np.asarray(keys).dtype == np.int64 else \
        np.ascontiguousarray(keys, np.uint64)
    n = len(keys)
    if n < RADIX_MIN_KEYS:
        return np.argsort(keys, kind="stable")
    order = np.empty(n, np.int64)
    kernels.radix.stable_order(keys, order, np.empty(n, np.uint64), np.empty(n, np.uint64), np.empty(n, np.int64),
                               np.empty(kernels.radix.COUNTS_SIZE, np.int64))
    return order
