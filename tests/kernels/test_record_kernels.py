"""The expiry spill's record packing (``kernels/_records.py``), in both builds, against numpy's structured records."""

import numpy as np
import pytest
from conftest import module_builds

from rdbscope.passes.expiry_counts import PARTITIONS, RECORD

BUILDS = module_builds("kernels._records")


def reference(number, group, value, memory, place, parts):
    """The records as numpy fills them, stably sorted by partition, and where each partition starts."""
    part = np.mod(value, parts)
    order = np.argsort(part, kind="stable")
    records = np.empty(len(group), RECORD)
    records["group"] = number[group[order]]
    records["value"], records["memory"], records["place"] = value[order], memory[order], place[order]
    return records.tobytes(), np.searchsorted(part[order], np.arange(parts + 1))


@pytest.mark.parametrize("build", sorted(BUILDS))
@pytest.mark.parametrize("n", [0, 1, 2, 1000])
@pytest.mark.parametrize("parts", [1, 7, PARTITIONS])
def test_records_are_numpys_records_by_partition(build, n, parts):
    rng = np.random.default_rng(n + parts)
    number = rng.integers(-5, 1 << 31, 40).astype(np.int32)
    group = rng.integers(0, 40, n).astype(np.int64)
    # milliseconds before 1970 and near the ends of int64 too: their partition is Python's modulo
    value = np.concatenate([rng.integers(-(1 << 62), 1 << 62, n - n // 4), rng.integers(-50, 50, n // 4)])
    value = rng.permutation(value).astype(np.int64)
    memory = rng.integers(0, 1 << 63, n, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    place = rng.integers(0, 1 << 63, n, dtype=np.uint64)
    out = np.empty(n * RECORD.itemsize, np.uint8)
    bounds = np.zeros(parts + 1, np.int64)
    BUILDS[build].pack_records(number, group, value, memory, place, bounds, np.empty(parts, np.int64), out)
    want, want_bounds = reference(number, group, value, memory, place, parts)
    assert out.tobytes() == want
    assert bounds.tolist() == want_bounds.tolist()


def test_a_record_is_the_kernels_size():
    assert BUILDS["python"].RECORD_BYTES == RECORD.itemsize



@pytest.mark.parametrize("build", sorted(BUILDS))
@pytest.mark.parametrize("n", [0, 1, 1000])
@pytest.mark.parametrize("base", [0, -(1 << 52), 1 << 52])
def test_seconds_are_counted_as_numpys_floor_division(build, n, base):
    """count_seconds adds one and a key's memory at its (number, second) slot, seconds rounded down before 1970."""
    rng = np.random.default_rng(n)
    number = rng.permutation(6).astype(np.int32)
    group = rng.integers(0, 6, n).astype(np.int64)
    value = rng.integers(-5000, 5000, n).astype(np.int64) + np.int64(base)
    memory = rng.integers(0, 1 << 40, n, dtype=np.uint64)
    second = value // 1000
    low = base // 1000 - 7
    width = 15
    counted = np.zeros(2 * 6 * width, np.uint64)
    BUILDS[build].count_seconds(number, group, value, memory, low, width, counted)
    slot = number[group].astype(np.int64) * width + second - low
    assert counted[0::2].tolist() == np.bincount(slot, minlength=6 * width).tolist()
    want = np.zeros(6 * width, np.uint64)
    np.add.at(want, slot, memory)
    assert counted[1::2].tolist() == want.tolist()
