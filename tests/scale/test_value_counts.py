"""Value counts past their entry cap round values down, within the bound they state; counts and sums stay
exact. Checked against the in-memory analysis of real dumps, with the cap lowered so that they pass it."""

import json
import subprocess
import sys

import numpy as np
from conftest import ROOT, SAMPLE_DUMPS

import rdbscope
from rdbscope.keyspace import value_counts
from rdbscope.keyspace.value_counts import ValueCounts

DUMP = SAMPLE_DUMPS / "redis-7.0-default.rdb"
QUANTILES = ["p50", "p90", "p99", "max"]


def test_counts_past_the_cap_are_rounded_within_their_bound(monkeypatch):
    """The serialized sizes of a real dump's keys (394 distinct per db), one group per db, merged chunk by
    chunk with a cap of 350."""
    table = rdbscope.load(DUMP).to_arrow()
    memory = table["rdb_bytes"].to_numpy().astype(np.uint64)
    group = table["db"].to_numpy().astype(np.int64)
    n_groups = int(group.max()) + 1
    monkeypatch.setattr(value_counts, "MAX_ENTRIES", 350)
    total = None
    for start in range(0, len(memory), 100):
        g, v = group[start:start + 100], memory[start:start + 100]
        order = np.lexsort((v, g))
        part = ValueCounts._merged([_counts(g[order], v[order], n_groups)], n_groups, None)
        total = part if total is None else ValueCounts.merge([total, part], n_groups)
    assert len(total.count) <= 350 and value_counts.MIN_PRECISION < total.precision < value_counts.EXACT
    bound = total.relative_error
    assert bound == 2.0 ** (1 - total.precision)
    assert total.counts.tolist() == np.bincount(group, minlength=n_groups).tolist()
    assert total.sums.tolist() == [int(memory[group == g].sum()) for g in range(n_groups)]
    for q in (0.5, 0.9, 0.99, 1.0):
        got, valid = total.quantile(q)
        for g in np.flatnonzero(valid):
            mine = np.sort(memory[group == g])
            exact = int(mine[max(int(np.ceil(q * len(mine))) - 1, 0)])
            assert exact * (1 - bound) <= int(got[g]) <= exact, (g, q)


def _counts(group, value, n_groups):
    starts = np.concatenate(([0], np.flatnonzero((group[1:] != group[:-1]) | (value[1:] != value[:-1])) + 1))
    sums = np.zeros(n_groups, np.uint64)
    np.add.at(sums, group, value)
    return ValueCounts(group[starts], value[starts], np.add.reduceat(np.ones(len(value), np.int64), starts),
                       np.bincount(group, minlength=n_groups).astype(np.int64), sums)


def test_a_bounded_run_past_the_cap_says_how_far_its_percentiles_may_be(monkeypatch):
    exact = rdbscope.analyze(rdbscope.load(DUMP), passes=["patterns", "ttl"])
    monkeypatch.setattr(value_counts, "MAX_ENTRIES", 60)
    rounded = rdbscope.analyze(DUMP, passes=["patterns", "ttl"], chunk_keys=97)
    assert set(rounded.percentile_error) == {"memory", "rdb_bytes", "ttl"}
    got, expected = rounded.tables["patterns"].to_pylist(), exact.tables["patterns"].to_pylist()
    assert [(r["db"], r["pattern"], r["n_keys"], r["memory_bytes_sum"], r["rdb_bytes_sum"]) for r in got] == \
        [(r["db"], r["pattern"], r["n_keys"], r["memory_bytes_sum"], r["rdb_bytes_sum"]) for r in expected]
    for measure, error in (("memory_bytes", rounded.percentile_error["memory"]),
                           ("rdb_bytes", rounded.percentile_error["rdb_bytes"])):
        for row, truth in zip(got, expected, strict=True):
            for q in QUANTILES:
                name = f"{measure}_{q}"
                assert truth[name] * (1 - error) <= row[name] <= truth[name], (row["pattern"], name)
    monkeypatch.undo()
    assert rdbscope.analyze(DUMP, passes=["patterns"], chunk_keys=97).percentile_error == {}


def test_no_note_of_rounding_when_every_value_was_counted():
    result = subprocess.run([sys.executable, "-m", "rdbscope", "report", DUMP, "--memory-budget", "100KB",
                             "--format", "json"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "rounded down" not in result.stderr
    assert json.loads(result.stdout)["overview"]["n_keys"] == 2073


def test_counting_keys_gives_the_counts_of_their_sorted_values():
    """ValueCounts.of_keys counts a real dump's sizes by (group, value) pair where they are few (more of
    them with a counter kept from call to call), and sorts them where they are many: every way, the
    counts of the sorted values."""
    from rdbscope.keyspace.grouping import SlotCounter, SortedGroups

    table = rdbscope.load(DUMP).to_arrow()
    group = table["db"].to_numpy().astype(np.int64)
    n_groups = int(group.max()) + 1
    sizes = table["rdb_bytes"].to_numpy().astype(np.uint64)
    kept = SlotCounter()
    # 50 values per group: counted; 5,000: counted with the kept counter only; sizes * 1000: sorted
    for values, counter in [(v, c) for v in (sizes % 50, sizes % 5000, sizes * 1000) for c in (None, kept)]:
        got = ValueCounts.of_keys(group, values, n_groups, counter=counter)
        expected = ValueCounts.of_sorted(SortedGroups.build(group, values, n_groups))
        for name in ("group", "value", "count", "counts", "sums"):
            assert np.array_equal(getattr(got, name), getattr(expected, name)), name
            assert getattr(got, name).dtype == getattr(expected, name).dtype, name
