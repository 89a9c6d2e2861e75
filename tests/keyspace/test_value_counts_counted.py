"""Value counts of keys counted already (the expiry tally's per-second counts, with the expired keys at 0) are
the counts of the keys themselves, in both builds."""

import numpy as np
import pytest

from rdbscope.keyspace.grouping import SlotCounter
from rdbscope.keyspace.value_counts import ValueCounts


def _distinct(group, value):
    """``(group, value, count)`` of the distinct pairs, sorted by group then value: a plain reference."""
    pairs, count = np.unique(np.stack((group, value)), axis=1, return_counts=True)
    return pairs[0], pairs[1], count


@pytest.mark.parametrize("seed", range(6))
def test_counted_keys_with_zeros_added_give_the_counts_of_the_keys(seed):
    rng = np.random.default_rng(seed)
    n_groups = int(rng.integers(1, 40))
    n = int(rng.integers(0, 3000))
    group = rng.integers(0, n_groups, n)
    value = rng.integers(0, 1 << int(rng.integers(1, 40)), n) * (rng.random(n) < 0.9)  # some already 0
    expired = rng.integers(0, n_groups, int(rng.integers(0, 500)))  # keys of value 0 the counts leave out
    all_group = np.concatenate((group, expired))
    all_value = np.concatenate((value, np.zeros(len(expired), np.int64))).astype(np.uint64)
    per_group = np.bincount(all_group, minlength=n_groups)

    counted = ValueCounts.of_counted(*_distinct(group, value), np.bincount(expired, minlength=n_groups), per_group)

    expected_group, expected_value, expected_count = _distinct(all_group, all_value)
    assert counted.group.tolist() == expected_group.tolist()
    assert counted.value.tolist() == expected_value.tolist()
    assert counted.count.tolist() == expected_count.tolist()
    assert counted.counts.tolist() == per_group.tolist()
    assert counted.sums.tolist() == [int(all_value[all_group == g].sum()) for g in range(n_groups)]
    direct = ValueCounts.of_keys(all_group, all_value, n_groups, counts=per_group, counter=SlotCounter())
    for name in ("group", "value", "count", "counts", "sums"):
        mine, theirs = getattr(counted, name), getattr(direct, name)
        assert mine.dtype == theirs.dtype and mine.tolist() == theirs.tolist(), name


def test_no_counted_keys_but_expired_ones():
    counted = ValueCounts.of_counted(np.zeros(0, np.int64), np.zeros(0, np.uint64), np.zeros(0, np.int64),
                                     np.array([0, 3, 0, 2]), np.array([1, 3, 0, 2]))
    assert (counted.group.tolist(), counted.value.tolist(), counted.count.tolist()) == ([1, 3], [0, 0], [3, 2])
    assert counted.sums.tolist() == [0, 0, 0, 0]
