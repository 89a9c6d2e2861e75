"""The vectorized per-group helpers, checked against plain Python."""

import math

import numpy as np
import pyarrow as pa
import pytest
from conftest import module_builds

from rdbscope import kernels
from rdbscope.keyspace.columns import dictionary_codes
from rdbscope.keyspace.grouping import (
    SlotCounter,
    SortedGroups,
    dense_ids,
    example_positions,
    first_per_group,
    first_rows,
    first_unmarked_per_group,
    largest_per_group,
    largest_rows,
    merge_counted,
    name_matrix,
    present_names,
)


def nearest_rank(values, q):
    ordered = sorted(values)
    return ordered[max(math.ceil(q * len(ordered)) - 1, 0)]


@pytest.mark.parametrize("seed", range(5))
def test_sorted_groups_match_plain_python(seed):
    rng = np.random.default_rng(seed)
    n_groups = int(rng.integers(1, 50))
    groups = rng.integers(0, n_groups, 2000)
    values = rng.integers(0, 10 ** 9, 2000).astype(np.uint64)
    sorted_groups = SortedGroups.build(groups, values, n_groups)
    for q in (0.0, 0.5, 0.9, 0.99, 1.0):
        got, valid = sorted_groups.quantile(q)
        for g in range(n_groups):
            mine = [int(v) for v, h in zip(values, groups, strict=True) if h == g]
            assert valid[g] == bool(mine)
            if mine:
                assert got[g] == nearest_rank(mine, q)
    sums = sorted_groups.sums
    top = sorted_groups.top_sums(3)
    for g in range(n_groups):
        mine = sorted(int(v) for v, h in zip(values, groups, strict=True) if h == g)
        assert sums[g] == sum(mine)
        assert top[g] == sum(mine[-3:])


@pytest.mark.parametrize("seed", range(5))
def test_sorted_groups_by_counting_match_the_sort(seed, monkeypatch):
    # Few distinct values per group, as key sizes are: counted, not sorted.
    rng = np.random.default_rng(seed)
    n_groups = int(rng.integers(1, 20))
    groups = rng.integers(0, n_groups, 20_000)
    values = rng.integers(40, 140, 20_000).astype(np.uint64)
    counted = SortedGroups.build(groups, values, n_groups)
    for g in range(n_groups):
        mine = sorted(int(v) for v, h in zip(values, groups, strict=True) if h == g)
        run = counted.combined[counted.starts[g]:counted.starts[g] + counted.counts[g]]
        assert [int(v) for v in run & counted.mask] == mine
        assert counted.sums[g] == sum(mine)
    monkeypatch.setattr("rdbscope.keyspace.grouping.COUNTING_MAX_PAIRS", 0)
    sorted_ = SortedGroups.build(groups, values, n_groups)
    assert counted.combined.dtype == sorted_.combined.dtype
    assert np.array_equal(counted.combined, sorted_.combined)


@pytest.mark.parametrize("seed", range(5))
def test_largest_rows_are_the_first_rows_of_a_full_sort(seed):
    rng = np.random.default_rng(seed)
    for distinct in (1, 3, 1000):
        values = rng.integers(0, distinct, 5000).astype(np.uint64)
        full = np.lexsort((np.arange(len(values)), -values.astype(np.float64)))
        for n in (0, 1, 7, 100, 4999, 5000, 6000):
            assert np.array_equal(largest_rows(values, n, chunk=997), full[:n]), (distinct, n)


@pytest.mark.parametrize("top", [2 ** 20, 2 ** 40, 2 ** 62])
def test_sorted_groups_with_small_and_large_values(top):
    values = np.array([top, 5, 7, top - 1], dtype=np.uint64)
    sorted_groups = SortedGroups.build(np.array([0, 1, 1, 0]), values, 2)
    got, _ = sorted_groups.quantile(1.0)
    assert list(got) == [top, 7]
    assert list(sorted_groups.sums) == [2 * top - 1, 12]


@pytest.mark.parametrize("seed", range(5))
def test_merged_quantiles_match_plain_python(seed):
    rng = np.random.default_rng(seed)
    n_groups = int(rng.integers(2, 30))
    groups = rng.integers(0, n_groups, 3000)
    values = rng.integers(0, 10 ** int(rng.integers(2, 12)), 3000).astype(np.uint64)
    sorted_groups = SortedGroups.build(groups, values, n_groups)
    members = [rng.choice(n_groups, int(rng.integers(1, n_groups + 1)), replace=False) for _ in range(6)]
    qs = [0.5, 0.9, 0.99, 1.0]
    got = sorted_groups.merged_quantiles(members, qs)
    for i, m in enumerate(members):
        mine = [int(v) for v, h in zip(values, groups, strict=True) if h in set(m.tolist())]
        for j, q in enumerate(qs):
            assert got[i, j] == (nearest_rank(mine, q) if mine else 0)


def test_first_rows_find_rare_groups_late():
    groups = np.zeros(200_000, dtype=np.int64)
    groups[150_000] = 2
    groups[199_999] = 2
    assert first_rows(groups, 3).tolist() == [0, 200_000, 150_000]


def test_dense_ids_number_combinations_in_order():
    ids, combos, n = dense_ids(np.array([1, 0, 1, 1]), np.array([2, 5, 2, 0]))
    assert combos.tolist() == [[0, 5], [1, 0], [1, 2]] and n.tolist() == [1, 1, 2]
    assert ids.tolist() == [2, 0, 2, 1]


def test_example_positions_take_the_first_and_stay_in_order():
    groups = np.array([1, 0, 1, 1, 0, 2, 1])
    offsets, rows = example_positions(groups, 4, 2)
    assert offsets.tolist() == [0, 2, 4, 5, 5]
    assert rows[0:2].tolist() == [1, 4] and rows[2:4].tolist() == [0, 2] and rows[4:5].tolist() == [5]


def test_example_positions_spread_over_big_groups():
    groups = np.zeros(1_000_000, dtype=np.int64)
    groups[999_999] = 1
    offsets, rows = example_positions(groups, 2, 3, sample=1000)
    assert rows[offsets[1]:offsets[2]].tolist() == [999_999]
    assert rows[0] == 0 and len(rows[offsets[0]:offsets[1]]) == 3


def test_present_names_most_frequent_first():
    matrix = name_matrix(np.array([0, 0, 0, 1]), 3, np.array([2, 1, 1, 0]), 3)
    assert matrix.tolist() == [[0, 2, 1], [1, 0, 0], [0, 0, 0]]
    assert present_names(matrix, ("a", "b", "c")).to_pylist() == [["b", "c"], ["a"], []]


def test_dictionary_codes_unify_chunk_dictionaries():
    first = pa.DictionaryArray.from_arrays(pa.array([0, 1, 0], pa.int8()), pa.array(["x", "y"]))
    second = pa.DictionaryArray.from_arrays(pa.array([0, None, 1], pa.int8()), pa.array(["y", "z"]))
    codes, names = dictionary_codes(pa.chunked_array([first, second]))
    assert [names[c] for c in codes] == ["x", "y", "x", "y", "", "z"]


def test_bincount_by_chunks_is_np_bincount():
    from rdbscope.keyspace.grouping import BINCOUNT_ROWS, bincount

    rng = np.random.default_rng(2)
    n = BINCOUNT_ROWS * 2 + 17
    ids = rng.integers(0, 7, n).astype(np.uint16)
    weights = rng.integers(0, 1 << 30, n).astype(np.uint64)  # sums below 2**53: exact in any order
    assert np.array_equal(bincount(ids, 7), np.bincount(ids, minlength=7))
    assert np.array_equal(bincount(ids, 7, weights), np.bincount(ids, weights, minlength=7))
    zeros = np.zeros(n, np.int64)
    assert bincount(zeros, 1).tolist() == [n]
    assert bincount(zeros, 1, weights).tolist() == [float(weights.sum())]
    assert np.array_equal(bincount(ids[:100], 9, weights[:100]), np.bincount(ids[:100], weights[:100], minlength=9))


def first_k_positions(items, k):
    """Positions of the first ``k`` occurrences of each item."""
    seen = {}
    positions = []
    for position, item in enumerate(items):
        seen[item] = seen.get(item, 0) + 1
        if seen[item] <= k:
            positions.append(position)
    return positions


@pytest.mark.parametrize("build", sorted(module_builds("kernels._group_rows")))
@pytest.mark.parametrize("seed", range(4))
def test_first_per_group_keeps_the_first_k_rows_of_each_group(build, seed, monkeypatch):
    monkeypatch.setattr(kernels, "group_rows", module_builds("kernels._group_rows")[build])
    rng = np.random.default_rng(seed)
    n_groups, k = int(rng.integers(1, 30)), int(rng.integers(1, 5))
    groups = rng.integers(0, n_groups, 3000)
    assert first_per_group(groups, n_groups, k).tolist() == first_k_positions(groups.tolist(), k)
    rows = np.flatnonzero(rng.random(3000) < 0.3)
    expected = first_k_positions(groups[rows].tolist(), k)
    assert first_per_group(groups, n_groups, k, rows=rows).tolist() == expected


@pytest.mark.parametrize("build", sorted(module_builds("kernels._group_rows")))
@pytest.mark.parametrize("seed", range(4))
def test_largest_per_group_keeps_rows_over_the_kth_largest_and_the_first_ties(build, seed, monkeypatch):
    monkeypatch.setattr(kernels, "group_rows", module_builds("kernels._group_rows")[build])
    rng = np.random.default_rng(seed)
    n_groups, k = int(rng.integers(1, 20)), int(rng.integers(1, 6))
    groups = rng.integers(0, n_groups, 2000)
    values = rng.integers(0, 50, 2000).astype(np.uint64)  # many ties
    threshold = np.zeros(n_groups, np.uint64)
    expected = set()
    for g in range(n_groups):
        rows = np.flatnonzero(groups == g).tolist()
        if not rows:
            continue
        ordered = sorted(rows, key=lambda r: (-int(values[r]), r))
        threshold[g] = values[ordered[min(k, len(ordered)) - 1]]
        expected.update(ordered[:k])  # the k largest, earliest rows first among equals
        expected.update(r for r in rows if values[r] > threshold[g])
        expected.update([r for r in rows if values[r] == threshold[g]][:k])
    assert largest_per_group(values, groups, threshold, k).tolist() == sorted(expected)


@pytest.mark.parametrize("build", sorted(module_builds("kernels._runs")))
@pytest.mark.parametrize("seed", range(5))
def test_merge_counted_adds_equal_entries_across_parts(build, seed, monkeypatch):
    monkeypatch.setattr(kernels, "runs", module_builds("kernels._runs")[build])
    rng = np.random.default_rng(seed)
    n_groups = int(rng.integers(1, 6))
    expected = {}
    parts = []
    for _part in range(int(rng.integers(1, 5))):
        own_groups = int(rng.integers(1, 5))
        new_group = rng.integers(0, n_groups, own_groups)  # several may become one
        entries = {}
        for _entry in range(int(rng.integers(0, 60))):
            key = (int(rng.integers(0, own_groups)), int(rng.integers(0, 40)))
            entries[key] = (entries.get(key, (0, 0))[0] + 1, entries.get(key, (0, 0))[1] + int(rng.integers(0, 99)))
        ordered = sorted(entries)
        group = np.array([g for g, _v in ordered], np.int64)
        value = np.array([v for _g, v in ordered], np.uint64)
        first = np.array([entries[k][0] for k in ordered], np.uint64)
        second = np.array([entries[k][1] for k in ordered], np.uint64)
        parts.append((group, value, first, second, new_group))
        for (g, v), (a, b) in entries.items():
            had = expected.get((int(new_group[g]), v), (0, 0))
            expected[(int(new_group[g]), v)] = (had[0] + a, had[1] + b)
    group, value, first, second = merge_counted(parts, n_groups)
    got = list(zip(group.tolist(), value.tolist(), first.tolist(), second.tolist(), strict=True))
    assert got == [(g, v, a, b) for (g, v), (a, b) in sorted(expected.items())]
    group, value, first, second = merge_counted([p[:3] + (None, p[4]) for p in parts], n_groups)
    assert second is None
    assert list(zip(group.tolist(), value.tolist(), first.tolist(), strict=True)) == \
        [(g, v, a) for (g, v), (a, _b) in sorted(expected.items())]


@pytest.mark.parametrize("build", sorted(module_builds("kernels._slot_counts")))
def test_slot_counter_counts_each_call_alone(build, monkeypatch):
    monkeypatch.setattr(kernels, "slot_counts", module_builds("kernels._slot_counts")[build])
    rng = np.random.default_rng(3)
    counter = SlotCounter()
    for slots in (50, 50, 400, 30):  # the counters grow, and what one call counted is gone by the next
        slot = rng.integers(0, slots, 700)
        weight = rng.integers(0, 1 << 40, 700).astype(np.uint64)
        hit, count, total = counter.counted(slot, weight, slots)
        keys = np.bincount(slot, minlength=slots)
        assert hit.tolist() == np.flatnonzero(keys).tolist()
        assert count.tolist() == keys[hit].tolist()
        assert total.tolist() == [sum(int(w) for s, w in zip(slot, weight, strict=True) if s == h) for h in hit]


@pytest.mark.parametrize("build", sorted(module_builds("kernels._slot_counts")))
@pytest.mark.parametrize("slot_type", [np.int8, np.int16, np.int32, np.int64])
def test_slot_counter_counts_small_int_codes_as_they_are(build, slot_type, monkeypatch):
    monkeypatch.setattr(kernels, "slot_counts", module_builds("kernels._slot_counts")[build])
    rng = np.random.default_rng(5)
    slot = rng.integers(0, 9, 1000).astype(slot_type)
    weight = rng.integers(0, 1 << 50, 1000).astype(np.uint64)
    hit, count, total = SlotCounter().counted(slot, weight, 9)
    assert hit.tolist() == np.unique(slot).tolist()
    assert count.tolist() == np.bincount(slot, minlength=9)[hit].tolist()
    assert total.tolist() == [int(weight[slot == h].sum()) for h in hit.tolist()]


@pytest.mark.parametrize("build", sorted(module_builds("kernels._group_rows")))
@pytest.mark.parametrize("id_type", [np.int32, np.int64])
@pytest.mark.parametrize("seed", range(4))
def test_first_per_group_of_int32_ids_and_known_counts_keeps_the_same_rows(build, id_type, seed, monkeypatch):
    monkeypatch.setattr(kernels, "group_rows", module_builds("kernels._group_rows")[build])
    rng = np.random.default_rng(seed)
    n_groups, k = int(rng.integers(1, 30)), int(rng.integers(1, 5))
    groups = rng.integers(0, n_groups, 3000)
    groups[rng.integers(0, 3000, 5)] = n_groups  # a group of few keys: the scan reads on to find them
    groups = groups.astype(id_type)
    counts = np.bincount(groups, minlength=n_groups + 1)
    expected = first_k_positions(groups.tolist(), k)
    assert first_per_group(groups, n_groups + 1, k).tolist() == expected
    assert first_per_group(groups, n_groups + 1, k, counts=counts).tolist() == expected
    rows = np.flatnonzero(rng.random(3000) < 0.3)
    assert first_per_group(groups, n_groups + 1, k, rows=rows).tolist() == first_k_positions(groups[rows].tolist(), k)


@pytest.mark.parametrize("build", sorted(module_builds("kernels._group_rows")))
@pytest.mark.parametrize("id_type", [np.int32, np.int64])
@pytest.mark.parametrize("seed", range(4))
def test_first_unmarked_per_group_keeps_the_first_rows_the_mask_leaves(build, id_type, seed, monkeypatch):
    monkeypatch.setattr(kernels, "group_rows", module_builds("kernels._group_rows")[build])
    rng = np.random.default_rng(seed)
    n_groups, k = int(rng.integers(1, 30)), int(rng.integers(1, 5))
    groups = rng.integers(0, n_groups, 3000).astype(id_type)
    marked = rng.random(3000) < 0.6
    unmarked = np.flatnonzero(~marked)
    expected = unmarked[first_k_positions(groups[unmarked].tolist(), k)].tolist()
    assert first_unmarked_per_group(groups, n_groups, k, marked).tolist() == expected
    counts = np.bincount(groups[unmarked], minlength=n_groups)
    assert first_unmarked_per_group(groups, n_groups, k, marked, counts=counts).tolist() == expected
    assert first_unmarked_per_group(groups, n_groups, k, np.ones(3000, bool)).tolist() == []


@pytest.mark.parametrize("build", sorted(module_builds("kernels._group_rows")))
def test_largest_per_group_of_int32_ids_keeps_the_rows_of_int64_ids(build, monkeypatch):
    monkeypatch.setattr(kernels, "group_rows", module_builds("kernels._group_rows")[build])
    rng = np.random.default_rng(9)
    groups = rng.integers(0, 7, 2000)
    values = rng.integers(0, 40, 2000).astype(np.uint64)
    threshold = rng.integers(0, 40, 7).astype(np.uint64)
    want = [r for r in range(2000) if values[r] >= threshold[groups[r]]]
    tied = {}
    expected = []
    for r in want:
        g = int(groups[r])
        if values[r] > threshold[g] or tied.setdefault(g, 0) < 3:
            if values[r] == threshold[g]:
                tied[g] += 1
            expected.append(r)
    assert largest_per_group(values, groups.astype(np.int32), threshold, 3).tolist() == expected
    assert largest_per_group(values, groups, threshold, 3).tolist() == expected


@pytest.mark.parametrize("build", sorted(module_builds("kernels._slot_counts")))
@pytest.mark.parametrize("group_type", [np.int8, np.int32, np.int64])
@pytest.mark.filterwarnings("ignore:overflow:RuntimeWarning")  # the Python build's sums past 2**64
def test_counted_pairs_without_a_weight_weigh_each_key_its_value(build, group_type, monkeypatch):
    monkeypatch.setattr(kernels, "slot_counts", module_builds("kernels._slot_counts")[build])
    rng = np.random.default_rng(2)
    counter = SlotCounter()
    for n_groups, width, low in ((3, 50, 0), (1, 7, 1000), (2, 300, (1 << 63) - 10)):
        group = rng.integers(0, n_groups, 2000).astype(group_type)
        value = low + rng.integers(0, width, 2000).astype(np.uint64)
        weighed = counter.counted_pairs(group, value, value, n_groups, width, low)
        alone = counter.counted_pairs(group, value, None, n_groups, width, low)
        for a, b in zip(alone, weighed, strict=True):
            assert a.dtype == b.dtype and a.tolist() == b.tolist()  # sums past 2**64 wrap alike
