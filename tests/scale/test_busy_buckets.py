"""The hash filter of the spilled expiry records (kernels/_busy_buckets.py), both builds, against the same
counting done with numpy."""

import numpy as np
import pytest
from conftest import module_builds

from rdbscope.passes.expiry_counts import RECORD


def _records(n, seed):
    rng = np.random.default_rng(seed)
    records = np.zeros(n, RECORD)
    records["group"] = rng.integers(0, 5, n)
    # a few busy milliseconds among scattered ones; negative ones too (expiries before 1970)
    busy = np.array([1_790_000_000_000, 1_790_000_000_001, -5_000], np.int64)
    records["value"] = np.where(rng.random(n) < 0.3, busy[rng.integers(0, 3, n)],
                                rng.integers(-10**12, 2 * 10**12, n))
    records["place"] = np.arange(n, dtype=np.uint64)
    return records


def _expected(records, group_map, mask, threshold):
    value = records["value"].astype(np.uint64)
    group = group_map[records["group"]].astype(np.uint64)
    with np.errstate(over="ignore"):
        bucket = (value * np.uint64(0x9E3779B1) + group * np.uint64(0x85EBCA77)) & np.uint64(mask)
    counts = np.minimum(np.bincount(bucket.astype(np.int64), minlength=mask + 1), 65535)
    return counts, np.flatnonzero(counts[bucket.astype(np.int64)] >= threshold)


@pytest.mark.parametrize("build", sorted(module_builds("kernels._busy_buckets")))
def test_buckets_counted_and_busy_records_picked_as_numpy_does(build):
    kernel = module_builds("kernels._busy_buckets")[build]
    records = _records(3000, 11)
    group_map = np.array([4, 0, 2, 2, 9], np.int64)  # two group numbers of one final group
    mask = (1 << 12) - 1
    counts = np.zeros(mask + 1, np.uint16)
    raw = records.view(np.uint8).reshape(-1)
    kernel.count_buckets(raw, RECORD.itemsize, group_map, mask, counts)
    expected_counts, expected_rows = _expected(records, group_map, mask, 50)
    assert np.array_equal(counts, expected_counts)
    out = np.empty(len(records), np.int64)
    n = kernel.busy_records(raw, RECORD.itemsize, group_map, mask, counts, 50, out)
    assert np.array_equal(out[:n], expected_rows)
    assert 0 < n < len(records)  # the busy milliseconds pass, most others do not


def test_counts_stop_at_65535_without_wrapping():
    for kernel in module_builds("kernels._busy_buckets").values():
        records = np.zeros(70_000, RECORD)  # one millisecond of one group: one bucket
        counts = np.zeros(1 << 16, np.uint16)
        kernel.count_buckets(records.view(np.uint8).reshape(-1), RECORD.itemsize, np.zeros(1, np.int64),
                             (1 << 16) - 1, counts)
        assert counts.max() == 65535 and np.count_nonzero(counts) == 1
