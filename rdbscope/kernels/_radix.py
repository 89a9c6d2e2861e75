"""The order that sorts 64-bit keys, keeping the given order of equal ones: a least-significant-digit
radix sort, eleven bits a pass, skipping the digits every key shares (compiled with ``_radix.pxd``).
``numpy.argsort(kind="stable")`` of such keys is a merge sort, several times slower on the hundreds of
thousands of keys of a chunk. As Python, it is that argsort: a stable order is unique."""

import numpy as np

try:
    import cython
except ImportError:  # Cython is only needed to build the extension
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython

DIGIT_BITS = 11
BUCKETS = 1 << DIGIT_BITS
PASSES = 6  # 6 * 11 >= 64
#: The length of the ``counts`` scratch of :func:`stable_order`.
COUNTS_SIZE = PASSES * BUCKETS


def scatter(keys, order, to_keys, to_order, counts, base, shift, n, first):
    """One pass: each key (and its place, or its row in the input when ``first``) to the next place of its
    digit ``(key >> shift) % BUCKETS``, whose first places are ``counts[base:base + BUCKETS]``."""
    i = 0
    while i < n:
        k = keys[i]
        digit = base + ((k >> shift) & (BUCKETS - 1))
        at = counts[digit]
        counts[digit] = at + 1
        to_keys[at] = k
        to_order[at] = i if first else order[i]
        i += 1


def stable_order(keys, order, keys_a, keys_b, order_b, counts):
    """Write into ``order`` the stable order of ``keys``; ``keys_a``, ``keys_b`` (uint64) and ``order_b`` (int64),
    as long as the keys, and ``counts`` (int64, ``PASSES * BUCKETS``) are scratch."""
    n = keys.shape[0]
    if not cython.compiled:
        order[:n] = np.argsort(keys, kind="stable")
        return
    with cython.nogil:
        top = 0
        i = 0
        while i < n:
            top |= keys[i]
            i += 1
        passes = 0  # the digits below the highest bit set
        while passes < PASSES and (top >> (DIGIT_BITS * passes)) != 0:
            passes += 1
        p = 0
        while p < passes * BUCKETS:
            counts[p] = 0
            p += 1
        i = 0
        while i < n:  # every digit's histogram in one read of the keys
            k = keys[i]
            p = 0
            while p < passes:
                counts[p * BUCKETS + ((k >> (DIGIT_BITS * p)) & (BUCKETS - 1))] += 1
                p += 1
            i += 1
        held = 0  # where the keys are: 0 the input, in order; 1 keys_a and order; 2 keys_b and order_b
        p = 0
        while p < passes:
            base = p * BUCKETS
            shift = DIGIT_BITS * p
            if counts[base + ((keys[0] >> shift) & (BUCKETS - 1))] == n:  # one digit for all: nothing moves
                p += 1
                continue
            total = 0
            b = 0
            while b < BUCKETS:  # each digit's first place
                c = counts[base + b]
                counts[base + b] = total
                total += c
                b += 1
            if held == 0:
                scatter(keys, order, keys_a, order, counts, base, shift, n, True)
                held = 1
            elif held == 1:
                scatter(keys_a, order, keys_b, order_b, counts, base, shift, n, False)
                held = 2
            else:
                scatter(keys_b, order_b, keys_a, order, counts, base, shift, n, False)
                held = 1
            p += 1
        i = 0
        if held == 0:
            while i < n:
                order[i] = i
                i += 1
        elif held == 2:
            while i < n:
                order[i] = order_b[i]
                i += 1
