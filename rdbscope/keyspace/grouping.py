"""Per-group statistics over millions of keys without a Python loop over keys.

A *grouping* is an int64 array with one group id per key and the number of
groups. Percentiles come from one sort of ``group << shift | value`` (numpy
sorts integers with SIMD; 32-bit keys when they fit, which halves the time),
after which each group's values are a sorted run. Boolean masks are turned
into row numbers with ``flatnonzero`` before selecting: gathering by index is
several times faster than boolean indexing on large arrays.
"""

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from .. import kernels

#: Percentiles reported everywhere, as (column suffix, quantile).
PERCENTILES = (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("max", 1.0))


@dataclass(frozen=True)
class SortedGroups:
    """The values of each group, sorted, as runs of one array.

    Attributes:
        combined: ``group << shift | value``, sorted (uint32 or uint64).
        shift: bits of the value part.
        starts: where each group's run begins.
        counts: length of each group's run.
        sums: exact sum of each group's values (uint64).
    """

    combined: np.ndarray
    shift: int
    starts: np.ndarray
    counts: np.ndarray
    sums: np.ndarray

    @classmethod
    def build(cls, groups, values, n_groups, counts=None):
        """Sort ``values`` (unsigned, one per key) within ``groups`` (int64 ids ≥ 0)."""
        values = np.asarray(values)
        if values.dtype.kind == "i":  # non-negative by contract: read the same bits as unsigned
            values = values.view(np.dtype(f"u{values.dtype.itemsize}"))
        if counts is None:
            counts = np.bincount(groups, minlength=n_groups) if len(groups) else np.zeros(n_groups, np.int64)
        counts = counts.astype(np.int64, copy=False)
        starts = np.zeros(n_groups, np.int64)
        np.cumsum(counts[:-1], out=starts[1:])
        group_bits = max(1, int(max(n_groups - 1, 0)).bit_length())
        top = int(values.max()) if len(values) else 0
        value_bits = max(1, top.bit_length())
        if group_bits + value_bits <= 32:
            dtype, shift = np.uint32, 32 - group_bits
        else:
            dtype, shift = np.uint64, 64 - group_bits
        clipped = value_bits > shift
        limit = (1 << shift) - 1
        # Values beyond the bits left (2**40 with 16M groups) sort as the largest;
        # sums below still come from the exact values.
        bounded = np.minimum(values, limit) if clipped else values
        width = top + 1
        if not clipped and n_groups * width <= counting_limit(len(values)):
            combined = _counting_sort(groups, bounded, n_groups, width, dtype, shift)
        elif n_groups == 1:  # group 0: the values alone
            combined = bounded.astype(dtype)
            combined.sort()
        else:
            combined = groups.astype(dtype)
            np.left_shift(combined, dtype(shift), out=combined)
            np.bitwise_or(combined, bounded, out=combined, casting="unsafe")
            combined.sort()
        if clipped:
            sums = _exact_sums(groups, values, n_groups)
        else:
            # Each run sums to count * (group << shift) + its values, modulo 2**64.
            present = np.flatnonzero(counts)
            run_sums = np.zeros(n_groups, np.uint64)
            if 0 < len(present) <= 64:  # a few long runs: a plain sum each is faster than reduceat
                for g in present:
                    run_sums[g] = combined[starts[g]:starts[g] + counts[g]].sum(dtype=np.uint64)
            elif len(present):
                run_sums[present] = np.add.reduceat(combined, starts[present], dtype=np.uint64)
            offsets = counts.astype(np.uint64) * (np.arange(n_groups, dtype=np.uint64) << np.uint64(shift))
            sums = run_sums - offsets
        return cls(combined, shift, starts, counts, sums)

    @property
    def mask(self):
        return self.combined.dtype.type((1 << self.shift) - 1)

    def values(self, positions):
        """The values at ``positions`` of the sorted array."""
        return (self.combined[positions] & self.mask).astype(np.uint64)

    def quantile(self, q):
        """Nearest-rank quantile ``q`` of each group: (uint64 array, valid mask)."""
        valid = self.counts > 0
        rank = np.ceil(q * self.counts).astype(np.int64) - 1
        position = np.where(valid, self.starts + np.clip(rank, 0, None), 0)
        if len(self.combined) == 0:
            return np.zeros(len(self.counts), np.uint64), valid
        return self.values(position), valid

    def kth_largest(self, groups, k):
        """The ``k``-th largest value of each of ``groups`` (the smallest when a group has fewer)."""
        groups = np.asarray(groups, np.int64)
        return self.values(self.starts[groups] + np.maximum(self.counts[groups] - k, 0))

    def top_sums(self, k):
        """Sum of the ``k`` largest values of each group (uint64)."""
        total = np.zeros(len(self.counts), np.uint64)
        ends = self.starts + self.counts
        for j in range(1, k + 1):
            has = self.counts >= j
            total[has] += self.values(ends[has] - j)
        return total

    def merged_quantiles(self, members, qs):
        """Nearest-rank quantiles of unions of groups, without touching the keys again.

        ``members`` is a list of int arrays of group ids (one per union).
        Returns a uint64 array of shape (len(members), len(qs)); a union of
        groups without keys gets 0. The answer is the smallest value v with at least
        ``rank`` values ≤ v in the union: a binary search on v, all unions and
        quantiles at once, counting with searchsorted on the sorted runs.
        """
        n_unions, n_qs = len(members), len(qs)
        out = np.zeros((n_unions, n_qs), np.uint64)
        if n_unions == 0 or len(self.combined) == 0:
            return out
        if any(len(m) == 0 for m in members):
            raise ValueError("every union needs at least one group")
        dtype = self.combined.dtype.type
        union_of = np.repeat(np.arange(n_unions), [len(m) for m in members])
        group_of = np.concatenate(members).astype(np.int64)
        sizes = np.bincount(union_of, weights=self.counts[group_of], minlength=n_unions).astype(np.int64)
        ranks = np.maximum(np.ceil(np.outer(sizes, qs)).astype(np.int64), 1)  # (unions, qs)
        low = np.zeros((n_unions, n_qs), np.int64)
        high = np.full((n_unions, n_qs), (1 << self.shift) - 1, np.int64)
        prefix = group_of.astype(dtype) << dtype(self.shift)
        starts = self.starts[group_of]
        boundaries = np.concatenate(([0], np.cumsum([len(m) for m in members])[:-1]))
        while True:
            open_ = low < high
            if not open_.any():
                break
            middle = low + (high - low) // 2  # (low + high) // 2 overflows int64 with 63-bit values
            keys = prefix[:, None] | middle[union_of].astype(dtype)
            at_most = np.searchsorted(self.combined, keys, side="right") - starts[:, None]
            enough = np.add.reduceat(at_most, boundaries, axis=0) >= ranks
            high = np.where(open_ & enough, middle, high)
            low = np.where(open_ & ~enough, middle + 1, low)
        out[:] = low
        out[sizes == 0] = 0
        return out


#: Rows per np.bincount call in :func:`bincount`.
BINCOUNT_ROWS = 1 << 20


def bincount(ids, n, weights=None):
    """``np.bincount(ids, weights, minlength=n)`` for ids in ``0..n-1``, a million rows at a time.

    np.bincount first copies small ids to intp (80 MB for 10M keys) and
    weights to float64; chunks keep these copies small and in cache. Sums of
    integer weights are exact below 2**53, in any order.
    """
    if len(ids) <= BINCOUNT_ROWS:
        return np.bincount(ids, weights, minlength=n)
    if n == 1:  # every id is 0
        return np.array([len(ids)]) if weights is None else np.array([np.sum(weights, dtype=np.float64)])
    out = np.zeros(n, np.int64 if weights is None else np.float64)
    for start in range(0, len(ids), BINCOUNT_ROWS):
        stop = start + BINCOUNT_ROWS
        out += np.bincount(ids[start:stop], None if weights is None else weights[start:stop], minlength=n)
    return out


#: Distinct (group, value) pairs up to which :func:`_counting_sort` replaces the sort.
COUNTING_MAX_PAIRS = 1 << 20


def counting_limit(n_values):
    """Pairs up to which counting beats sorting ``n_values`` values: a sort costs O(n log n)."""
    return min(COUNTING_MAX_PAIRS, max(n_values // 4, 1024))


def _counting_sort(groups, values, n_groups, width, dtype, shift):
    """``sort(group << shift | value)`` by counting each (group, value) pair: linear in the keys.

    Keys hold few distinct sizes per pattern (a million keys of one pattern have a few
    hundred sizes), so a count per pair and one ``repeat`` give the sorted runs in
    a fraction of a sort's time.
    """
    n_pairs = n_groups * width
    per_pair = np.zeros(n_pairs, np.int64)
    for start in range(0, len(values), BINCOUNT_ROWS):
        pair = values[start:start + BINCOUNT_ROWS].astype(np.intp)
        if n_groups > 1:
            pair += groups[start:start + BINCOUNT_ROWS] * width
        per_pair += np.bincount(pair, minlength=n_pairs)
    present = np.flatnonzero(per_pair)
    keys = (present // width).astype(dtype) << dtype(shift) | (present % width).astype(dtype)
    return np.repeat(keys, per_pair[present])


def _exact_sums(groups, values, n_groups):
    total = np.zeros(n_groups, np.uint64)
    np.add.at(total, groups, values.astype(np.uint64))
    return total


def largest_rows(values, n, chunk=1 << 20):
    """Rows of the ``n`` largest ``values``, largest first; ties: earlier row first.

    The first ``n`` of ``np.lexsort((rows, -values))`` in linear time: a selection
    finds the n-th largest value, and only the rows at or above it are ordered.
    """
    m = len(values)
    if n <= 0 or m == 0:
        return np.zeros(0, np.int64)
    if n >= m:
        return np.lexsort((np.arange(m), -np.asarray(values, dtype=np.float64)))
    threshold = np.partition(values, m - n)[m - n]
    parts = [np.flatnonzero(values > threshold)]
    need = n - len(parts[0])
    for start in range(0, m, chunk):  # the earliest rows equal to the threshold
        if need == 0:
            break
        tied = start + np.flatnonzero(values[start:start + chunk] == threshold)[:need]
        parts.append(tied)
        need -= len(tied)
    rows = np.sort(np.concatenate(parts))
    return rows[np.lexsort((rows, -values[rows].astype(np.float64)))]


def counts(groups, n_groups, weights=None):
    """Keys per group (int64), or the sum of integer ``weights`` per group (uint64)."""
    if weights is None:
        return kernels.count_ids(groups, n_groups)
    total = np.zeros(n_groups, np.uint64)
    if len(groups):
        group = groups if groups.dtype in (np.int32, np.int64) else groups.astype(np.int64)
        weights = np.asarray(weights)
        weight = weights if weights.dtype in (np.uint64, np.int64) else weights.astype(np.uint64)
        kernels.group_sums.sum_into(np.ascontiguousarray(group), np.ascontiguousarray(weight), total)
    return total


def first_rows(groups, n_groups, group_counts=None, chunk=65_536):
    """The first row of each group (``len(groups)`` where a group is empty).

    Reads a first chunk, then only the rows of groups not seen yet: in a
    real keyspace every frequent group shows up early.
    """
    m = len(groups)
    first = np.full(n_groups, m, dtype=np.int64)
    if m == 0:
        return first
    head = min(chunk, m)
    np.minimum.at(first, groups[:head], np.arange(head, dtype=np.int64))
    wanted = (first == m) if group_counts is None else (first == m) & (group_counts > 0)
    if head < m and wanted.any():
        rest = head + np.flatnonzero(wanted[groups[head:]])
        np.minimum.at(first, groups[rest], rest)
    return first


def example_positions(groups, n_groups, k, positions=None, sample=100_000, group_counts=None):
    """Up to ``k`` example keys per group: its first key plus keys spread over the dump.

    ``groups`` holds a group id per candidate; ``positions`` the candidates' row
    numbers (ascending; default ``0..len-1``). Returns ``(offsets, rows)``: the
    examples of group ``g`` are ``rows[offsets[g]:offsets[g + 1]]``, ascending.
    """
    m = len(groups)
    if m == 0:
        return np.zeros(n_groups + 1, np.int64), np.zeros(0, np.int64)
    first = first_rows(groups, n_groups, group_counts)
    present = np.flatnonzero(first < m)
    spread = np.arange(0, m, max(1, m // sample), dtype=np.int64)
    candidates = np.unique(np.concatenate((first[present], spread)))
    cand_groups = groups[candidates]
    order = np.argsort(cand_groups, kind="stable")
    candidates, cand_groups = candidates[order], cand_groups[order]
    per_group = np.bincount(cand_groups, minlength=n_groups)
    starts = np.concatenate(([0], np.cumsum(per_group)[:-1]))
    rank = np.arange(len(candidates)) - starts[cand_groups]
    keep = np.flatnonzero(rank < k)
    chosen_groups = cand_groups[keep]
    offsets = np.concatenate(([0], np.cumsum(np.bincount(chosen_groups, minlength=n_groups))))
    chosen = candidates[keep]
    return offsets.astype(np.int64), chosen if positions is None else positions[chosen]


def name_matrix(groups, n_groups, codes, n_names, group_counts=None):
    """How many keys of each group have each code: an (n_groups, n_names) int64 matrix."""
    if n_names == 1:
        if group_counts is None:
            group_counts = np.bincount(groups, minlength=n_groups)
        return np.asarray(group_counts, np.int64).reshape(n_groups, 1)
    matrix = np.zeros(n_groups * n_names, np.int64)
    groups, codes = kernels.as_ids(groups), np.asarray(codes)
    kernels.ids.count_pairs(groups, codes.astype(groups.dtype, copy=False), n_names, matrix)  # no combined codes
    return matrix.reshape(n_groups, n_names)


def present_names(matrix, names):
    """For each row of a count matrix, the ``names`` with a count, most frequent first, as list<string>."""
    n_groups = matrix.shape[0]
    group_of, name_of = np.nonzero(matrix)
    order = np.lexsort((name_of, -matrix[group_of, name_of], group_of))
    group_of, name_of = group_of[order], name_of[order]
    offsets = np.concatenate(([0], np.cumsum(np.bincount(group_of, minlength=n_groups))))
    values = pa.array(np.asarray(names, dtype=object)[name_of] if len(name_of) else [], pa.string())
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), values)


def text_lists(offsets, texts):
    """list<string> from offsets and a flat list of strings."""
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), pa.array(texts, pa.string()))


def masked(values, valid, typ):
    """A pyarrow array of ``values`` with nulls where ``valid`` is False."""
    return pa.array(values, typ, mask=~np.asarray(valid, dtype=bool))


def dense_ids(*codes):
    """Number the distinct combinations of several small non-negative int code arrays.

    Returns ``(ids, combos, counts)``: ``ids`` per row (``0..len(combos)-1``; int64,
    or the int32 codes themselves when there is one array of them and every
    code occurs), ``combos`` an int64 array of shape (n_ids, len(codes)) in
    ascending order, and the rows of each id.
    Linear time: codes are combined into one dense index, never sorted.
    """
    sizes = [int(c.max()) + 1 if len(c) else 1 for c in codes]
    if len(codes) == 1:
        dense = np.asarray(codes[0])
        if dense.dtype not in (np.int32, np.int64):
            dense = dense.astype(np.int64)
    else:
        dense = np.asarray(codes[0], dtype=np.int64) * sizes[1]
        dense += codes[1]
        for c, size in zip(codes[2:], sizes[2:], strict=True):
            dense *= size
            dense += c
    total = int(np.prod(sizes, dtype=np.int64))
    per_combo = kernels.count_ids(dense, total)
    present = np.flatnonzero(per_combo)
    combos = np.array(np.unravel_index(present, sizes)).T.reshape(len(present), len(codes))
    if len(present) == total:
        return dense, combos, per_combo
    lookup = np.full(total, -1, dtype=np.int64)
    lookup[present] = np.arange(len(present), dtype=np.int64)
    return lookup[dense], combos, per_combo[present]


def first_per_group(groups, n_groups, k, rows=None, counts=None):
    """Rows of the first ``k`` keys of each group, ascending (``groups``: a group per key).

    With ``rows`` (ascending), only those keys count, and the result is positions in ``rows``.
    ``counts``: the keys of each group (of ``rows``), when known: the scan then stops at the last row to take.
    """
    groups = kernels.as_ids(groups)
    seen = np.zeros(n_groups, np.int64)
    out = np.empty(_most_first(len(groups) if rows is None else len(rows), n_groups, k, counts), np.int64)
    if rows is None:
        return out[:kernels.group_rows.first_rows(groups, _NO_MARKS, k, seen, out)]
    rows = np.ascontiguousarray(rows, np.int64)
    return out[:kernels.group_rows.first_rows_of(groups, rows, k, seen, out)]


def first_unmarked_per_group(groups, n_groups, k, marked, counts=None):
    """``first_per_group`` of the keys whose ``marked`` (bool per key) is False: rows, ascending;
    ``counts``: the unmarked keys of each group, when known."""
    seen = np.zeros(n_groups, np.int64)
    out = np.empty(_most_first(len(groups), n_groups, k, counts), np.int64)
    marked = np.ascontiguousarray(marked, np.bool_).view(np.uint8)
    return out[:kernels.group_rows.first_rows(kernels.as_ids(groups), marked, k, seen, out)]


#: No row marked, for ``kernels.group_rows.first_rows``.
_NO_MARKS = np.zeros(0, np.uint8)


def _most_first(n_rows, n_groups, k, counts):
    """Rows :func:`first_per_group` takes at most: all there are when ``counts`` says how many a group has."""
    if counts is not None:
        return int(np.minimum(counts, k).sum())
    return min(n_rows, n_groups * k)


def largest_per_group(values, groups, threshold, k):
    """Rows whose value is over their group's ``threshold``, and the first ``k`` of each group equal to
    it, ascending: with the ``k``-th largest value of each group as threshold, its ``k`` largest keys
    (ties: the earliest rows)."""
    values = np.ascontiguousarray(values, np.uint64)
    threshold = np.ascontiguousarray(threshold, np.uint64)
    out = np.empty(len(values), np.int64)
    tied = np.zeros(len(threshold), np.int64)
    return out[:kernels.group_rows.largest_rows(values, kernels.as_ids(groups), threshold, k, tied, out)].copy()


def merge_counted(parts, n_groups):
    """Several lists of counted values merged into one, sorted by group then value, equal entries added.

    ``parts``: ``(group, value, first, second, new_group)`` each: entries sorted by their group, then
    value (non-negative integers), with a weight ``first`` and an optional second one (None); their
    group ``g`` is ``new_group[g]`` of ``0..n_groups-1`` in the result (several may share one).
    Returns ``(group, value, first, second)`` (int64, then uint64; ``second`` None where not given).
    """
    in_slots = _merged_in_slots(parts, n_groups)
    if in_slots is not None:
        return in_slots
    starts, ends, run_groups, columns = [], [], [], []
    offset = 0
    for group, value, first, second, new_group in parts:
        if len(group) == 0:
            continue
        bounds = np.flatnonzero(group[1:] != group[:-1]) + 1
        run_start = np.concatenate(([0], bounds))
        starts.append(run_start + offset)
        ends.append(np.append(bounds, len(group)) + offset)
        run_groups.append(np.asarray(new_group, np.int64)[group[run_start]])
        columns.append((value, first, second))
        offset += len(group)
    with_second = bool(parts) and parts[0][3] is not None
    if not columns:
        nothing = np.zeros(0, np.uint64)
        return np.zeros(0, np.int64), nothing, nothing, nothing if with_second else None

    def joined(i):  # one copy, converted as it is made
        return np.concatenate([c[i] for c in columns], dtype=np.uint64, casting="unsafe")

    run_group = np.concatenate(run_groups)
    run_of = np.argsort(run_group, kind="stable")
    group_runs = np.searchsorted(run_group[run_of], np.arange(n_groups + 1)).astype(np.int64)
    out_group = np.empty(offset, np.int64)
    out_value, out_first = np.empty(offset, np.uint64), np.empty(offset, np.uint64)
    out_second = np.empty(offset if with_second else 0, np.uint64)
    n = kernels.runs.merge_runs(joined(0), joined(1), joined(2) if with_second else out_second,
                                np.concatenate(starts), np.concatenate(ends), group_runs, run_of.astype(np.int64),
                                np.empty(len(run_of), np.int64), np.empty(len(run_of), np.int64),
                                np.empty(len(run_of), np.uint64), out_group, out_value, out_first, out_second)
    return out_group[:n], out_value[:n], out_first[:n], out_second[:n] if with_second else None


#: Slots per entry up to which the entries of :func:`merge_counted` are added up in a slot per (group, value)
#: rather than their sorted runs merged.
MERGE_SLOTS_PER_ENTRY = 2


def _merged_in_slots(parts, n_groups):
    """:func:`merge_counted` of parts whose values span a range narrow enough to add each entry into a slot
    of its (group, value), read back in order: linear in the entries, where merging runs compares them;
    None when the range is too wide."""
    present = [part for part in parts if len(part[0])]
    if not present:
        return None
    entries = sum(len(part[0]) for part in present)
    low = min(int(part[1].min()) for part in present)
    width = max(int(part[1].max()) for part in present) - low + 1
    slots = n_groups * width
    if slots > min(MERGE_SLOTS_PER_ENTRY * entries, 1 << 22):
        return None
    with_second = parts[0][3] is not None
    count, first = np.zeros(slots, np.int64), np.zeros(slots, np.uint64)
    second = np.zeros(slots if with_second else 0, np.uint64)
    for group, value, weight, other, new_group in present:
        value = np.ascontiguousarray(value)
        kernels.slot_counts.add_pairs_into(
            np.ascontiguousarray(group, np.int64), np.ascontiguousarray(new_group, np.int64),
            value if value.dtype in (np.uint64, np.int64) else value.astype(np.uint64), _words(weight),
            _NONE if other is None else _words(other), low, width, count, first, second)
    most = min(entries, slots)
    out_group, out_value, hits = np.empty(most, np.int64), np.empty(most, np.int64), np.empty(most, np.int64)
    out_first, out_second = np.empty(most, np.uint64), np.empty(most if with_second else 0, np.uint64)
    n = kernels.slot_counts.take_pairs(count, first, second, n_groups, width, out_group, out_value, hits, out_first,
                                       out_second)
    return (out_group[:n], out_value[:n].astype(np.uint64) + np.uint64(low), out_first[:n],
            out_second[:n] if with_second else None)


#: Slots per key up to which keys are counted per slot in a :class:`SlotCounter` kept from call to call
#: rather than sorted: reading back the slots costs less than the sort.
KEPT_SLOTS_PER_KEY = 8


class SlotCounter:
    """Keys, and a weight summed, per slot of a dense range ``0..slots-1``, in counters kept from one
    call to the next (zeroed as they are read back: see ``kernels/_slot_counts.py``). One per thread."""

    def __init__(self):
        self._count = np.zeros(0, np.int64)
        self._total = np.zeros(0, np.uint64)

    def counted(self, slot, weight, slots):
        """``(slots hit ascending, keys of each, weight of each)`` of keys in ``slot`` (ints below
        ``slots``) with ``weight`` (non-negative integers)."""
        self._hold(slots)
        kernels.slot_counts.count_into(kernels.as_codes(slot), _words(weight), self._count, self._total)
        most = min(len(slot), slots)
        hit, count, total = np.empty(most, np.int64), np.empty(most, np.int64), np.empty(most, np.uint64)
        n = kernels.slot_counts.take_counted(self._count, self._total, slots, hit, count, total)
        return hit[:n], count[:n], total[:n]

    def counted_pairs(self, group, value, weight, n_groups, width, low=0):
        """``(group, value - low, keys, weight summed)`` of each (group, value) pair present, by group then
        value, of keys with a group below ``n_groups`` and a value from ``low`` to ``low + width - 1`` each;
        ``weight`` None: each key weighs its value (its pair's weight is then its keys times the value,
        modulo 2**64 as a sum is, and only the keys are counted)."""
        self._hold(n_groups * width)
        value = np.ascontiguousarray(value)
        if value.dtype not in (np.uint64, np.int64):
            value = value.astype(np.uint64)
        weights = _NONE if weight is None else _words(weight)
        kernels.slot_counts.count_pairs_into(kernels.as_codes(group), value, weights, low, width, self._count,
                                             self._total)
        most = min(len(group), n_groups * width)
        out_group, out_value = np.empty(most, np.int64), np.empty(most, np.int64)
        count, total = np.empty(most, np.int64), np.empty(most, np.uint64)
        n = kernels.slot_counts.take_pairs(self._count, self._total, _NONE, n_groups, width, out_group, out_value,
                                           count, total, _NONE)
        if weight is None:
            total[:n] = count[:n].astype(np.uint64) * (out_value[:n].astype(np.uint64) + np.uint64(low))
        return out_group[:n], out_value[:n], count[:n], total[:n]

    def counted_rounded(self, group, value, weight, present, precision, bits):
        """``(group, value, keys, weight summed)`` of each (group, value rounded down to ``precision``
        significant bits) present, by group then value, of keys with a group among ``present`` (the groups
        that have keys, ascending) and a value (uint64) below ``2 ** bits`` each: the rounded values are
        counted in a dense range of codes (see ``kernels/_slot_counts.count_rounded_into``),
        ``(bits - precision + 2) << (precision - 1)`` a group."""
        group = _indices(group)
        codes = (max(bits - precision, 0) + 2) << (precision - 1)
        base = np.zeros(int(present[-1]) + 1 if len(present) else 0, np.int64)
        base[present] = np.arange(len(present), dtype=np.int64) * codes
        slots = len(present) * codes
        self._hold(slots)
        kernels.slot_counts.count_rounded_into(group, np.ascontiguousarray(value, np.uint64), _words(weight), base,
                                               precision, self._count, self._total)
        most = min(len(group), slots)
        slot, count, total = np.empty(most, np.int64), np.empty(most, np.int64), np.empty(most, np.uint64)
        n = kernels.slot_counts.take_counted(self._count, self._total, slots, slot, count, total)
        rank, code = np.divmod(slot[:n], codes)
        shift = np.maximum(code >> (precision - 1), 1) - 1
        rounded = (code - (shift << (precision - 1))).astype(np.uint64) << shift.astype(np.uint64)
        return present[rank], rounded, count[:n], total[:n]

    def _hold(self, slots):
        """Counters for at least ``slots`` slots."""
        if len(self._count) < slots:
            self._count, self._total = np.zeros(slots, np.int64), np.zeros(slots, np.uint64)


#: An empty array, for a kernel's optional one.
_NONE = np.zeros(0, np.uint64)


def _indices(group):
    """``group`` as int32 or int64, contiguous, as the kernels read it."""
    group = np.ascontiguousarray(group)
    return group if group.dtype in (np.int32, np.int64) else group.astype(np.int64)


def _words(weight):
    """Integer weights as contiguous uint64 (int64 read as the same bits: non-negative by contract)."""
    weight = np.ascontiguousarray(weight)
    return weight.view(np.uint64) if weight.dtype == np.int64 else weight.astype(np.uint64, copy=False)
