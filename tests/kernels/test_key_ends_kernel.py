"""The lowest and highest key per group of ``kernels/_key_ends.py``, in both builds, against pyarrow's
min and max of binary per group."""

import numpy as np
import pyarrow as pa
import pytest
from conftest import module_builds

from rdbscope import kernels
from rdbscope.patterns.infer import _lowest_and_highest
from rdbscope.rdb.cluster import offsets_and_data

BUILDS = sorted(module_builds("kernels._key_ends"))


@pytest.fixture(params=BUILDS)
def build(request, monkeypatch):
    monkeypatch.setattr(kernels, "key_ends", module_builds("kernels._key_ends")[request.param])
    return request.param


def keys_of(n, seed):
    """``n`` binary keys over few bytes, so that prefixes, equal keys and empty keys are common."""
    rng = np.random.default_rng(seed)
    lengths = rng.choice([0, 1, 2, 3, 8, 40], n)
    return pa.array([rng.choice(np.array([0, 1, 0x7F, 0x80, 0xFF], np.uint8), length).tobytes()
                     for length in lengths], pa.binary())


def reference(keys, group, n_groups):
    """pyarrow's min and max of the keys of each group (None where a group has none)."""
    rows = np.flatnonzero(group >= 0)
    table = pa.table({"group": group[rows], "key": keys.take(pa.array(rows, pa.int64()))})
    ends = table.group_by("group").aggregate([("key", "min"), ("key", "max")])
    lowest, highest = [None] * n_groups, [None] * n_groups
    for g, low, high in zip(*(ends[c].to_pylist() for c in ("group", "key_min", "key_max")), strict=True):
        lowest[g], highest[g] = low, high
    return lowest, highest


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_each_groups_lowest_and_highest_key_are_pyarrows_min_and_max(build, seed):
    keys = keys_of(4000, seed)
    n_groups = 37
    group = np.random.default_rng(seed + 10).integers(-1, n_groups, len(keys)).astype(np.int32)
    group[group == 36] = -1  # a group with no key
    lowest, highest = np.full(n_groups, -1, np.int64), np.full(n_groups, -1, np.int64)
    kernels.key_ends.fill_key_ends(*offsets_and_data(keys), group, lowest, highest)
    expected_low, expected_high = reference(keys, group, n_groups)
    got_low = [keys[int(r)].as_py() if r >= 0 else None for r in lowest]
    got_high = [keys[int(r)].as_py() if r >= 0 else None for r in highest]
    assert got_low == expected_low and got_high == expected_high
    assert expected_low[36] is None and lowest[36] == -1 == highest[36]


def test_a_prefix_orders_before_the_longer_key_and_equal_keys_keep_the_first_row(build):
    keys = pa.array([b"ab", b"a", b"ab\x00", b"a", b"", b"b"], pa.binary())
    group = np.array([0, 0, 0, 0, 1, 1], np.int32)
    lowest, highest = np.full(2, -1, np.int64), np.full(2, -1, np.int64)
    kernels.key_ends.fill_key_ends(*offsets_and_data(keys), group, lowest, highest)
    assert lowest.tolist() == [1, 4] and highest.tolist() == [2, 5]


def test_patterns_settle_digits_from_the_same_ends_as_a_group_by(build):
    keys = keys_of(3000, 7)
    typed_of_key = np.random.default_rng(3).integers(0, 20, len(keys))
    wanted = np.array([0, 3, 4, 19])
    lowest, highest = _lowest_and_highest(keys.slice(0), typed_of_key, wanted)
    expected_low, expected_high = reference(keys, np.where(np.isin(typed_of_key, wanted), typed_of_key, -1), 20)
    assert lowest.to_pylist() == [expected_low[w] for w in wanted]
    assert highest.to_pylist() == [expected_high[w] for w in wanted]
