"""The distributions pass: keys and memory by size and by TTL left, per type, from chunks or one table alike."""

import numpy as np
import pytest
from conftest import SAMPLE_DUMPS

import rdbscope
from rdbscope.keyspace.weighted_counts import MAX_ENTRIES, WeightedCounts
from rdbscope.report.html import render_html

DUMP = SAMPLE_DUMPS / "redis-8.2-default.rdb"


def test_key_sizes_count_every_key_of_each_type_with_its_memory():
    keys = rdbscope.load(DUMP)
    table = rdbscope.analyze(keys, passes=["distributions"]).tables["key_sizes"].to_pandas()
    frame = keys.to_pandas()
    memory = frame["est_memory_bytes"].fillna(frame["rdb_bytes"]).astype("uint64")
    expected = (frame.assign(memory=memory).groupby(["type", "memory"], observed=True).size()
                .rename("n").reset_index())
    got = table.groupby(["type", "memory_bytes"]).n_keys.sum().reset_index()
    assert sorted(map(tuple, got.values.tolist())) == sorted(
        (str(t), int(m), int(n)) for t, m, n in expected.values.tolist())
    assert table.memory_bytes_sum.sum() == memory.sum()


def test_ttl_left_is_measured_from_the_ctime():
    keys = rdbscope.load(DUMP)
    table = rdbscope.analyze(keys, passes=["distributions"]).tables["ttl_left"]
    expire = keys.to_arrow()["expire_at"].cast("int64").drop_null().to_numpy()
    ctime_ms = int(keys.info.aux["ctime"]) * 1000
    left = np.where(expire <= ctime_ms, 0, expire - ctime_ms)
    got = np.repeat(table["ttl_left_ms"].to_numpy(), table["n_keys"].to_numpy())
    assert sorted(got.tolist()) == sorted(left.tolist()) and len(left) > 600


@pytest.mark.parametrize("chunk_keys", [97, pytest.param(1000, marks=pytest.mark.slow)])
def test_the_html_of_a_bounded_run_draws_the_figures_of_every_key(chunk_keys):
    bounded = rdbscope.analyze(DUMP, chunk_keys=chunk_keys)
    in_memory = rdbscope.analyze(rdbscope.load(DUMP))
    assert bounded.bounded
    for name in ("key_sizes", "ttl_left"):
        assert bounded.tables[name].equals(in_memory.tables[name])
    html = render_html(bounded)
    assert "not drawn" not in html
    for caption in ("Key size distribution", "Memory by key size", "TTL distribution", "TTL distribution by memory"):
        assert f'<img alt="{caption}"' in html
    title = bounded.plot.key_sizes().axes[0].get_title(loc="left")
    assert f"({in_memory.n_keys:,} keys)" in title


def test_counts_past_their_limit_round_alike_whatever_the_chunking():
    rng = np.random.default_rng(7)
    n = 4 * MAX_ENTRIES
    groups = rng.integers(0, 3, n)
    values = rng.integers(0, 1 << 40, n, dtype=np.uint64)
    weights = rng.integers(1, 1000, n, dtype=np.uint64)
    whole = WeightedCounts.of(groups, values, weights)
    assert whole.precision < 64 and len(whole.value) <= MAX_ENTRIES
    for size in (1000, 50_000, 3 * MAX_ENTRIES):
        parts = [WeightedCounts.of(groups[i:i + size], values[i:i + size], weights[i:i + size])
                 for i in range(0, n, size)]
        merged = WeightedCounts.merge(parts)
        assert merged.precision == whole.precision
        for name in ("group", "value", "count", "weight"):
            assert np.array_equal(getattr(merged, name), getattr(whole, name)), (size, name)
    assert whole.count.sum() == n and whole.weight.sum() == weights.sum()
