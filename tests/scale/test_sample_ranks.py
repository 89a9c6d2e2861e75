"""The ranks the uniform key sample is drawn by: splitmix64's finalizer of each row number."""

import numpy as np
import pytest
from conftest import module_builds


@pytest.mark.parametrize("build", sorted(module_builds("kernels._ranks")))
def test_ranks_are_splitmix64_outputs(build):
    # splitmix64 seeded with 0 returns mix(0x9E3779B97F4A7C15), mix(2 * 0x9E3779B97F4A7C15), ...
    out = np.empty(2, np.uint64)
    module_builds("kernels._ranks")[build].fill_ranks(0x9E3779B97F4A7C15, 0, out)
    assert int(out[0]) == 0xE220A8397B1DCDAF


def test_both_builds_rank_alike():
    outs = []
    for build in module_builds("kernels._ranks").values():
        outs.append(np.empty(2000, np.uint64))
        build.fill_ranks(5_000_000_000, 7 << 40, outs[-1])
    assert len({out.tobytes() for out in outs}) == 1
    assert len(np.unique(outs[0])) == 2000


@pytest.mark.parametrize("build", sorted(module_builds("kernels._ranks")))
def test_bit_lengths_are_counted_as_python_counts_them(build):
    ranks = np.empty(3000, np.uint64)
    module_builds("kernels._ranks")[build].fill_ranks(11, 0, ranks)
    ranks = np.concatenate([ranks, ranks >> np.uint64(23), ranks >> np.uint64(61),
                            np.array([0, 1, 2, 3, 2**32 - 1, 2**32, 2**63, 2**64 - 1], np.uint64)])
    counts = np.zeros(65, np.int64)
    module_builds("kernels._ranks")[build].count_bit_lengths(ranks, counts)
    assert counts.tolist() == np.bincount([int(r).bit_length() for r in ranks.tolist()], minlength=65).tolist()
