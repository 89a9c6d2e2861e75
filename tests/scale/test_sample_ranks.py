"""The ranks the uniform key sample is drawn by: splitmix64's finalizer of each row number."""

import numpy as np
import pytest
from conftest import SAMPLE_DUMPS, module_builds

from rdbscope.scale.bounded import partial_of_source
from rdbscope.scale.partial import Plan


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


def _sample_of(path, chunk_keys, sample_keys, threads=1):
    plan = Plan(n_examples=3, sample_keys=sample_keys, threads=threads)
    partial, _info, _summary = partial_of_source(path, plan, chunk_keys=chunk_keys)
    return partial.sample.to_pydict(), partial.sample_cutoff


@pytest.mark.parametrize("sample_keys", [50, 300])
def test_the_sample_is_the_keys_ranked_below_the_cutoff_whatever_the_chunking(sample_keys):
    """The merged sample of a real dump holds the keys whose rank is below the largest power-of-two cutoff
    leaving at most ``2 * sample_keys`` keys, in the dump's order, read in chunks of 97 keys, of 500 (in two
    threads) or in one chunk."""
    path = SAMPLE_DUMPS / "libraries.rdb"
    every, cutoff = _sample_of(path, 1_000_000, 1_000_000)
    assert cutoff == 1 << 64 and len(every["key"]) > 4 * sample_keys
    rank = np.array(every["rank"], np.uint64)
    cutoff, below = 1 << 64, len(rank)
    while below > 2 * sample_keys:
        cutoff >>= 1
        below = np.count_nonzero(rank < np.uint64(cutoff))
    chosen = np.flatnonzero(rank < np.uint64(cutoff)).tolist()
    expected = {"rank": [every["rank"][i] for i in chosen], "key": [every["key"][i] for i in chosen]}
    assert sample_keys < len(chosen) <= 2 * sample_keys
    for chunk_keys, threads in ((97, 1), (500, 2), (1_000_000, 1)):
        assert _sample_of(path, chunk_keys, sample_keys, threads) == (expected, cutoff), chunk_keys
