"""The radix sort's stable order is numpy's stable argsort, in both builds."""

import numpy as np
import pytest
from conftest import module_builds

from rdbscope.keyspace.sorting import RADIX_MIN_KEYS, stable_order

RNG = np.random.default_rng(30)
KEYS = {
    "random 63-bit": RNG.integers(0, 2**63, 60_000).astype(np.uint64),
    "many ties": RNG.integers(0, 50, 60_000).astype(np.uint64),
    "shared high digits": (np.uint64(7) << np.uint64(50)) | RNG.integers(0, 2**20, 60_000).astype(np.uint64),
    "group then value": (RNG.integers(0, 60, 60_000).astype(np.uint64) << np.uint64(34))
                        | RNG.integers(0, 2**33, 60_000).astype(np.uint64),
    "every bit": np.array([2**64 - 1, 0, 2**63, 2**64 - 1, 1, 2**63 + 1] * 1000, np.uint64),
    "one key": np.array([5], np.uint64),
    "none": np.zeros(0, np.uint64),
    "all equal": np.full(10_000, 123456789, np.uint64),
}


@pytest.mark.parametrize("build", sorted(module_builds("kernels._radix")))
@pytest.mark.parametrize("name", sorted(KEYS))
def test_the_radix_order_is_the_stable_order(build, name):
    keys = KEYS[name]
    n = len(keys)
    order = np.empty(n, np.int64)
    module = module_builds("kernels._radix")[build]
    module.stable_order(keys, order, np.empty(n, np.uint64), np.empty(n, np.uint64), np.empty(n, np.int64),
                        np.empty(module.COUNTS_SIZE, np.int64))
    assert order.tolist() == np.argsort(keys, kind="stable").tolist()


@pytest.mark.parametrize("n", [RADIX_MIN_KEYS - 1, RADIX_MIN_KEYS, 50_000])
def test_stable_order_of_int64_keys(n):
    keys = RNG.integers(0, 2**40, n)
    keys[::3] = keys[0]
    assert stable_order(keys).tolist() == np.argsort(keys, kind="stable").tolist()
