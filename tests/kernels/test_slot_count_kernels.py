"""The counting kernels of ``kernels/_slot_counts.py``, in both builds, against plain numpy."""

import numpy as np
import pytest
from conftest import module_builds

from rdbscope import kernels
from rdbscope.keyspace.grouping import SlotCounter, merge_counted
from rdbscope.keyspace.value_counts import _rounded, bit_length

BUILDS = sorted(module_builds("kernels._slot_counts"))


@pytest.fixture(params=BUILDS)
def build(request, monkeypatch):
    monkeypatch.setattr(kernels, "slot_counts", module_builds("kernels._slot_counts")[request.param])
    return request.param


def summed_by_pair(group, value, *weights):
    """``(group, value, keys, sums of each weight)`` of each distinct (group, value), sorted: the reference."""
    pairs, inverse = np.unique(np.rec.fromarrays([np.asarray(group, np.int64), np.asarray(value, np.uint64)]),
                               return_inverse=True)
    sums = []
    for weight in weights:
        total = np.zeros(len(pairs), np.uint64)
        np.add.at(total, inverse, np.asarray(weight).astype(np.uint64))
        sums.append(total)
    return (pairs["f0"], pairs["f1"], np.bincount(inverse, minlength=len(pairs)), *sums)


@pytest.mark.parametrize("group_type", [np.int32, np.int64, np.uint8])
@pytest.mark.parametrize("value_type", [np.uint64, np.int64, np.uint16])
def test_counted_pairs_are_the_counts_of_each_group_and_value(build, group_type, value_type):
    rng = np.random.default_rng(11)
    counter = SlotCounter()
    for n_groups, width, low in ((3, 50, 0), (1, 7, 1000), (5, 300, 17), (2, 1, 9)):  # the counters grow and shrink
        group = rng.integers(0, n_groups, 2000).astype(group_type)
        value = (low + rng.integers(0, width, 2000)).astype(value_type)
        weight = rng.integers(0, 1 << 40, 2000).astype(np.uint64)
        got = counter.counted_pairs(group, value, weight, n_groups, width, low)
        want_group, want_value, keys, total = summed_by_pair(group, value, weight)
        assert [a.dtype for a in got] == [np.int64, np.int64, np.int64, np.uint64]
        assert got[0].tolist() == want_group.tolist()
        assert got[1].tolist() == (want_value - np.uint64(low)).tolist()
        assert got[2].tolist() == keys.tolist()
        assert got[3].tolist() == total.tolist()


@pytest.mark.parametrize("precision", [7, 12, 20])
def test_counted_rounded_are_the_counts_of_the_rounded_values(build, precision):
    rng = np.random.default_rng(precision)
    group = rng.choice([0, 2, 3], 3000)  # group 1 has no key
    value = np.concatenate([rng.integers(0, 1 << precision, 1000), rng.integers(0, 1 << 40, 1000),
                            1 << rng.integers(0, 41, 1000)]).astype(np.uint64)
    value[:3] = [0, (1 << 41) - 1, 1 << precision]
    weight = rng.integers(0, 1 << 50, 3000).astype(np.uint64)
    rounded = _rounded(value, bit_length(value), precision)
    got = SlotCounter().counted_rounded(group, value, weight, np.array([0, 2, 3]), precision, 41)
    want = summed_by_pair(group, rounded, weight)
    assert [a.dtype for a in got] == [np.int64, np.uint64, np.int64, np.uint64]
    for have, expected in zip(got, want, strict=True):
        assert have.tolist() == expected.tolist()


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("with_second", [True, False])
def test_merge_counted_in_slots_adds_equal_entries_across_parts(build, seed, with_second):
    rng = np.random.default_rng(seed)
    n_groups = int(rng.integers(1, 6))
    parts, rows = [], []
    for _part in range(int(rng.integers(1, 5))):
        own_groups = int(rng.integers(1, 5))
        new_group = rng.integers(0, n_groups, own_groups)  # several may become one
        group = rng.integers(0, own_groups, 300)
        value = rng.integers(5, 60, 300).astype(np.uint64 if seed % 2 else np.int64)
        first, second = rng.integers(0, 99, 300).astype(np.int64), rng.integers(0, 1 << 60, 300).astype(np.uint64)
        order = np.lexsort((value, group))
        parts.append((group[order], value[order], first[order], second[order] if with_second else None, new_group))
        rows.append((new_group[group], value, first, second))
    group, value, first, second = (np.concatenate(column) for column in zip(*rows, strict=True))
    want = summed_by_pair(group, value, first, second)
    got = merge_counted(parts, n_groups)
    assert got[0].tolist() == want[0].tolist()
    assert got[1].dtype == np.uint64 and got[1].tolist() == want[1].tolist()
    assert got[2].dtype == np.uint64 and got[2].tolist() == want[3].tolist()
    assert got[3] is None if not with_second else got[3].tolist() == want[4].tolist()
