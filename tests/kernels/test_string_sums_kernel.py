"""The kernel of ``kernels/_string_sums.py``, in both builds, against plain numpy."""

import numpy as np
import pytest
from conftest import module_builds

from rdbscope import kernels

BUILDS = sorted(module_builds("kernels._string_sums"))


@pytest.fixture(params=BUILDS)
def build(request):
    return module_builds("kernels._string_sums")[request.param]


def summed(build, group, codes, wanted, eligible, lengths, offsets, limit):
    n = len(eligible)
    out = [np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.uint64), np.zeros(n, np.uint64)]
    with np.errstate(over="ignore"):  # the sums wrap modulo 2**64, as numpy's do (the Python build warns)
        build.sums_into(kernels.as_ids(group), kernels.as_codes(codes), wanted.view(np.uint8),
                        eligible.view(np.uint8), lengths, offsets, limit, *out)
    return [o.tolist() for o in out]


def reference(group, codes, wanted, eligible, lengths, offsets, limit):
    n = len(eligible)
    chosen = wanted[codes] & eligible[group]
    mine, length = group[chosen], lengths[chosen]
    key_bytes = np.diff(offsets)[chosen].astype(np.uint64)
    sums = [np.bincount(mine, minlength=n), np.bincount(mine[length <= limit] if limit >= 0 else mine[:0], minlength=n)]
    for weights in (key_bytes, length):
        total = np.zeros(n, np.uint64)
        np.add.at(total, mine, weights)
        sums.append(total)
    return [s.tolist() for s in sums]


@pytest.mark.parametrize("code_type", [np.int8, np.int16, np.int32, np.int64])
@pytest.mark.parametrize("group_type", [np.int32, np.int64])
def test_sums_are_those_of_the_wanted_rows_of_eligible_groups(build, code_type, group_type):
    rng = np.random.default_rng(2)
    for n_groups, n_codes, limit in ((6, 4, 64), (1, 1, 10), (9, 3, 0), (4, 2, -1)):  # one group; a negative limit
        m = 4000
        group = rng.integers(0, n_groups, m).astype(group_type)
        codes = rng.integers(0, n_codes, m).astype(code_type)
        wanted = rng.random(n_codes) < 0.6
        eligible = rng.random(n_groups) < 0.7
        lengths = rng.integers(0, 200, m).astype(np.uint64)
        lengths[:5] = [max(limit, 0), limit + 1, 0, 1 << 40, (1 << 64) - 1]  # the limit exactly, wrapping sums
        offsets = np.concatenate(([0], np.cumsum(rng.integers(0, 300, m)))).astype(np.int32)
        args = (group, codes, wanted, eligible, lengths, offsets, limit)
        assert summed(build, *args) == reference(*args)


def test_no_rows_sum_nothing(build):
    empty = np.zeros(0, np.int64)
    got = summed(build, empty, np.zeros(0, np.int8), np.ones(1, bool), np.ones(2, bool), np.zeros(0, np.uint64),
                 np.zeros(1, np.int32), 64)
    assert got == [[0, 0], [0, 0], [0, 0], [0, 0]]
