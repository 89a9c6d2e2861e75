"""Each way ``WeightedCounts.of`` and ``fitted`` count gives the counts of the plain one: the keys sorted and
summed, then rounded one bit at a time until they fit."""

import numpy as np
import pytest
from conftest import module_builds

from rdbscope import kernels
from rdbscope.keyspace import weighted_counts
from rdbscope.keyspace.value_counts import MIN_PRECISION, _rounded, bit_length, fitted
from rdbscope.keyspace.weighted_counts import MAX_ENTRIES, WeightedCounts


def one_bit_at_a_time(counts, most):
    """``fitted`` as it was written first: every precision tried, from the top down."""
    if len(counts.value) <= most or counts.precision <= MIN_PRECISION:
        return counts
    bits = bit_length(counts.value)
    precision = min(counts.precision, int(bits.max()))
    while precision > MIN_PRECISION:
        precision -= 1
        value = _rounded(counts.value, bits, precision)
        if 1 + np.count_nonzero((counts.group[1:] != counts.group[:-1]) | (value[1:] != value[:-1])) <= most:
            break
    return counts.rounded(precision)


def plain(groups, values, weights):
    """The counts of every distinct (group, value), from a sort, rounded one bit at a time."""
    order = np.lexsort((values, groups))
    group, value, weight = groups[order].astype(np.int64), values[order], weights[order]
    starts = np.flatnonzero(np.concatenate(([True], (group[1:] != group[:-1]) | (value[1:] != value[:-1]))))
    counts = WeightedCounts(group[starts], value[starts], np.diff(np.append(starts, len(group))).astype(np.int64),
                            np.add.reduceat(weight, starts).astype(np.uint64))
    return one_bit_at_a_time(counts, MAX_ENTRIES)


def assert_same(got, want):
    assert got.precision == want.precision
    for name in ("group", "value", "count", "weight"):
        have, expected = getattr(got, name), getattr(want, name)
        assert have.dtype == expected.dtype and np.array_equal(have, expected), name


@pytest.mark.parametrize("most", [1, 5, 40, 300, 2000])
def test_fitted_picks_the_precision_of_one_bit_at_a_time(most):
    rng = np.random.default_rng(most)
    for top in (5, 9, 20, 64):
        n = 3000
        group = np.sort(rng.integers(0, 4, n))
        value = rng.integers(0, 1 << top, n, dtype=np.uint64) if top < 64 else rng.integers(0, 1 << 63, n,
                                                                                            dtype=np.uint64) << 1
        pairs = np.unique(np.rec.fromarrays([group, value]))
        counts = WeightedCounts(pairs["f0"].astype(np.int64), pairs["f1"], np.ones(len(pairs), np.int64),
                                np.ones(len(pairs), np.uint64))
        for start in (64, 30, 12, MIN_PRECISION + 1, MIN_PRECISION):
            from_start = counts.rounded(start)
            assert_same(fitted(from_start, most), one_bit_at_a_time(from_start, most))


@pytest.mark.parametrize("build", sorted(module_builds("kernels._slot_counts")))
@pytest.mark.parametrize("case", ["ttl_ms", "few_groups_wide", "barely_over", "small_values"])
def test_weighted_counts_of_keys_are_the_plain_counts(build, case, monkeypatch):
    monkeypatch.setattr(kernels, "slot_counts", module_builds("kernels._slot_counts")[build])
    rng = np.random.default_rng(len(case))
    n = 4 * MAX_ENTRIES
    if case == "ttl_ms":  # a week of milliseconds: rounded past the cap, counted at a probe's precision first
        groups, values = np.zeros(n, np.int64), rng.integers(0, 604_800_000, n, dtype=np.uint64)
    elif case == "few_groups_wide":  # values of every bit length up to 44
        groups = rng.choice([1, 4, 9], n)
        values = rng.integers(0, 1 << 44, n, dtype=np.uint64) >> rng.integers(0, 44, n).astype(np.uint64)
    elif case == "barely_over":  # more keys than the cap but fewer distinct values: exact, from the sort
        groups, values = rng.integers(0, 2, n), rng.integers(0, 1 << 40, MAX_ENTRIES // 2, dtype=np.uint64)[
            rng.integers(0, MAX_ENTRIES // 2, n)]
    else:
        groups, values = rng.integers(0, 3, n), rng.integers(100, 4000, n, dtype=np.uint64)
    weights = rng.integers(0, 1 << 40, n, dtype=np.uint64)
    probed = []
    monkeypatch.setattr(weighted_counts.SlotCounter, "counted_rounded",
                        lambda self, *args, real=weighted_counts.SlotCounter.counted_rounded: probed.append(args[4])
                        or real(self, *args))
    got = WeightedCounts.of(groups, values, weights)
    assert_same(got, plain(groups, values, weights))
    if case in ("ttl_ms", "few_groups_wide"):
        assert probed and got.precision < probed[0]  # the probe proved the cap passed
    if case == "barely_over":
        assert got.precision == 64


@pytest.mark.parametrize("build", sorted(module_builds("kernels._slot_counts")))
def test_counts_probed_at_the_last_fit_of_a_chunk_are_the_plain_counts(build, monkeypatch):
    """A chunk's TTLs are probed one bit above where the last chunk's fitted; where that guess is wrong (too few
    distinct values there, or too many) the counts are still those of the plain sort."""
    monkeypatch.setattr(kernels, "slot_counts", module_builds("kernels._slot_counts")[build])
    monkeypatch.setattr(weighted_counts, "_THREAD", type(weighted_counts._THREAD)())
    rng = np.random.default_rng(7)
    n = 4 * MAX_ENTRIES
    probed = []
    monkeypatch.setattr(weighted_counts.SlotCounter, "counted_rounded",
                        lambda self, *args, real=weighted_counts.SlotCounter.counted_rounded: probed.append(args[4])
                        or real(self, *args))
    fits = []
    for kind in ("uniform", "uniform", "few", "uniform", "skewed"):  # a week of ms: values of up to 30 bits
        groups, values = np.zeros(n, np.int64), rng.integers(0, 604_800_000, n, dtype=np.uint64)
        if kind == "few":  # fewer distinct values: they fit at more bits than the last
            values = (values >> np.uint64(14)) << np.uint64(14)
        if kind == "skewed":  # more distinct short values: they fit at fewer bits than the last
            values >>= rng.integers(0, 20, n).astype(np.uint64)
        weights = rng.integers(0, 1 << 40, n, dtype=np.uint64)
        probed.clear()
        got = WeightedCounts.of(groups, values, weights)
        assert_same(got, plain(groups, values, weights))
        fits.append((probed[0], got.precision))
    assert fits[1][0] == fits[0][1] + 1  # the second chunk probed one bit above the first's fit
    assert len({precision for _probe, precision in fits}) > 1


def test_merged_counts_are_those_of_the_parts_entries_sorted_and_summed():
    """Parts of several precisions, groups and sizes (some empty, some wide, some a few values) merge into the
    counts of all their entries, rounded to the fewest bits among them, sorted, summed and fitted."""
    rng = np.random.default_rng(11)
    for trial in range(12):
        parts = []
        for _ in range(int(rng.integers(1, 6))):
            n = int(rng.choice([0, 50, 3000, 2 * MAX_ENTRIES]))
            groups = rng.integers(0, int(rng.integers(1, 6)), n)
            values = rng.integers(0, 1 << int(rng.integers(3, 40)), n, dtype=np.uint64)
            part = plain(groups, values, rng.integers(0, 1 << 30, n, dtype=np.uint64)) if n else \
                WeightedCounts(groups, values, groups.copy(), values.copy())
            parts.append(part.rounded(int(rng.integers(MIN_PRECISION + 1, 64))) if trial % 3 == 0 else part)
        precision = min(p.precision for p in parts)
        rounded = [p.rounded(precision) for p in parts]
        group, value = np.concatenate([p.group for p in rounded]), np.concatenate([p.value for p in rounded])
        order = np.lexsort((value, group))
        group, value = group[order], value[order]
        count = np.concatenate([p.count for p in rounded])[order]
        weight = np.concatenate([p.weight for p in rounded])[order]
        starts = np.flatnonzero(np.concatenate(([True], (group[1:] != group[:-1]) | (value[1:] != value[:-1]))))
        if len(group) == 0:
            starts = starts[:0]
            count, weight = np.zeros(0, np.int64), np.zeros(0, np.uint64)
        else:
            count, weight = np.add.reduceat(count, starts), np.add.reduceat(weight, starts).astype(np.uint64)
        summed = WeightedCounts(group[starts], value[starts], count.astype(np.int64), weight, precision)
        assert_same(WeightedCounts.merge(parts), one_bit_at_a_time(summed, MAX_ENTRIES))


@pytest.mark.parametrize("build", sorted(module_builds("kernels._slot_counts")))
@pytest.mark.parametrize("case", ["ttl_ms", "few_groups_wide", "barely_over", "small_values"])
def test_keys_weighing_their_value_and_codes_renumbered_are_the_plain_counts(build, case, monkeypatch):
    """Each path of ``WeightedCounts.of`` with no weights (each key weighs its value), of int8 codes, gives the
    plain counts of the values as weights; ``renumbered`` gives those of the codes numbered anew."""
    monkeypatch.setattr(kernels, "slot_counts", module_builds("kernels._slot_counts")[build])
    rng = np.random.default_rng(len(case) + 1)
    n = 4 * MAX_ENTRIES
    if case == "ttl_ms":
        values = rng.integers(0, 604_800_000, n, dtype=np.uint64)
    elif case == "few_groups_wide":
        values = rng.integers(0, 1 << 44, n, dtype=np.uint64) >> rng.integers(0, 44, n).astype(np.uint64)
    elif case == "barely_over":
        values = rng.integers(0, 1 << 40, MAX_ENTRIES // 2, dtype=np.uint64)[rng.integers(0, MAX_ENTRIES // 2, n)]
    else:
        values = rng.integers(100, 4000, n, dtype=np.uint64)
    codes = rng.choice([0, 2, 3], n).astype(np.int8)
    got = WeightedCounts.of(codes, values)
    assert_same(got, plain(codes.astype(np.int64), values, values))
    new_group = np.array([5, 9, 1, 0])  # not in order: the entries are sorted again
    assert_same(got.renumbered(new_group), plain(new_group[codes], values, values))
