"""Per-group value counts: the mergeable form of :class:`~.grouping.SortedGroups`.

A bounded-memory analysis cannot keep every key's value, but it can keep how
many keys of each group have each distinct value: sizes fall on a few allocator
classes and TTLs on whole seconds, so the distinct (group, value) pairs are far
fewer than the keys. Counts of chunks add up, and every percentile, sum and
top-k sum is then exact, the same as from the sorted values themselves.

Where they are not far fewer (thousands of patterns with TTLs spread over days,
say), merged counts past :data:`MAX_ENTRIES` entries round their values down to
fewer significant bits, one bit at a time, until they fit: percentiles and top-k
sums are then within ``2 ** (1 - precision)`` of the exact value, below it
(values under ``2 ** precision`` stay exact). Counts and sums stay exact.
"""

from dataclasses import dataclass, replace

import numpy as np

from ..cached import cached_property
from .grouping import KEPT_SLOTS_PER_KEY, SlotCounter, SortedGroups, counting_limit, merge_counted

#: Entries (distinct group and value pairs) a merge may keep before it rounds values: 2M
#: entries, 48 MB.
MAX_ENTRIES = 1 << 21
#: Significant bits of exact values (all of a uint64).
EXACT = 64
#: The fewest significant bits rounding goes down to (relative error under 1/32).
MIN_PRECISION = 6


@dataclass(frozen=True)
class ValueCounts:
    """How many keys of each group have each value.

    Attributes:
        group: int64 group of each distinct (group, value) entry, ascending.
        value: uint64 value of each entry, ascending within its group.
        count: int64 keys of each entry.
        counts: int64 keys per group.
        sums: uint64 exact sum of each group's values.
        precision: significant bits each value keeps (values rounded down); :data:`EXACT` when
            no value was rounded.
    """

    group: np.ndarray
    value: np.ndarray
    count: np.ndarray
    counts: np.ndarray
    sums: np.ndarray
    precision: int = EXACT

    @property
    def relative_error(self):
        """Bound on how far below the exact value a percentile or top-k sum may be (0 when exact)."""
        return 0.0 if self.precision == EXACT else 2.0 ** (1 - self.precision)

    @classmethod
    def of_keys(cls, groups, values, n_groups, counts=None, counter=None):
        """The value counts of keys: a group (int64 ids ≥ 0) and a value (non-negative integers) each;
        ``counts``: keys per group, when known (the arguments of ``SortedGroups.build``). ``counter``: a
        :class:`~.grouping.SlotCounter` kept from call to call, which counts wider ranges of values
        than a fresh one would."""
        values = np.asarray(values)
        top = int(values.max()) if len(values) else 0
        width = top + 1
        most = counting_limit(len(values)) if counter is None else KEPT_SLOTS_PER_KEY * len(values)
        if len(values) and top < 1 << 62 and n_groups * width <= most:
            # a counter per (group, value) pair: no sort, and no sorted copy of the keys to count runs in
            counter = counter or SlotCounter()
            group, value, count, total = counter.counted_pairs(groups, values, None, n_groups, width)
            sums = np.zeros(n_groups, np.uint64)
            np.add.at(sums, group, total)
            if counts is None:
                counts = np.bincount(group, weights=count, minlength=n_groups)
            return cls(group, value.astype(np.uint64), count, np.asarray(counts).astype(np.int64), sums)
        return cls.of_sorted(SortedGroups.build(groups, values, n_groups, counts=counts))

    @classmethod
    def of_sorted(cls, sorted_groups):
        """The value counts of a :class:`~.grouping.SortedGroups` (same groups)."""
        combined = sorted_groups.combined
        n_groups = len(sorted_groups.counts)
        if len(combined) == 0:
            return cls.empty(n_groups)
        starts = np.concatenate(([0], np.flatnonzero(combined[1:] != combined[:-1]) + 1))
        count = np.diff(np.append(starts, len(combined))).astype(np.int64)
        first = combined[starts]
        group = (first >> first.dtype.type(sorted_groups.shift)).astype(np.int64)
        value = (first & sorted_groups.mask).astype(np.uint64)
        return cls(group, value, count, sorted_groups.counts.astype(np.int64), sorted_groups.sums.astype(np.uint64))

    @classmethod
    def empty(cls, n_groups):
        nothing = np.zeros(0, np.int64)
        return cls(nothing, nothing.astype(np.uint64), nothing, np.zeros(n_groups, np.int64),
                   np.zeros(n_groups, np.uint64))

    @classmethod
    def merge(cls, parts, n_groups, new_groups=None):
        """The counts of several parts, in groups ``0..n_groups-1``.

        ``new_groups``: per part, the new number of each of its groups (groups may merge);
        default: the parts' groups are numbered alike already.
        """
        precision = min((p.precision for p in parts), default=EXACT)
        merged = replace(cls._merged([p.rounded(precision) for p in parts], n_groups, new_groups),
                         precision=precision)
        return fitted(merged, MAX_ENTRIES)

    def rounded(self, precision):
        """These counts with each value rounded down to ``precision`` significant bits."""
        if precision >= self.precision or len(self.value) == 0:
            return self if precision >= self.precision else replace(self, precision=precision)
        group, value, (count,) = rounded_entries(self.group, self.value, precision, (self.count,))
        return replace(self, group=group, value=value, count=count, precision=precision)

    @classmethod
    def _merged(cls, parts, n_groups, new_groups):
        if new_groups is None:
            new_groups = [np.arange(len(p.counts), dtype=np.int64) for p in parts]
        counts = np.zeros(n_groups, np.int64)
        sums = np.zeros(n_groups, np.uint64)
        for p, ids in zip(parts, new_groups, strict=True):
            np.add.at(counts, ids, p.counts)
            np.add.at(sums, ids, p.sums)
        if not any(len(p.count) for p in parts):
            return cls.empty(n_groups)
        if len(parts) == 1 and np.all(np.diff(new_groups[0]) > 0):  # renumbered in order: still sorted, distinct
            part = parts[0]
            return cls(np.asarray(new_groups[0], np.int64)[part.group], part.value, part.count, counts, sums)
        group, value, count, _none = merge_counted(
            [(p.group, p.value, p.count, None, ids) for p, ids in zip(parts, new_groups, strict=True)], n_groups)
        return cls(group, value, count.astype(np.int64), counts, sums)

    @cached_property  # read by every quantile and top-k: computed once
    def _bounds(self):
        """(first entry, one past the last entry) of each group."""
        n_groups = len(self.counts)
        first = np.searchsorted(self.group, np.arange(n_groups), side="left")
        return first, np.searchsorted(self.group, np.arange(n_groups), side="right")

    @cached_property
    def _cumulative(self):
        return np.cumsum(self.count)

    def at_rank(self, groups, ranks):
        """The value of 0-based ``ranks`` (ascending order) within ``groups``."""
        groups = np.asarray(groups, np.int64)
        if len(groups) == 0 or len(self.count) == 0:
            return np.zeros(len(groups), np.uint64)
        first, _end = self._bounds
        cumulative = self._cumulative
        before = np.where(first[groups] > 0, cumulative[np.maximum(first[groups] - 1, 0)], 0)
        position = np.searchsorted(cumulative, before + np.asarray(ranks, np.int64), side="right")
        return self.value[np.minimum(position, len(self.value) - 1)]

    def quantile(self, q):
        """Nearest-rank quantile ``q`` of each group: (uint64 array, valid mask)."""
        valid = self.counts > 0
        rank = np.clip(np.ceil(q * self.counts).astype(np.int64) - 1, 0, None)
        values = np.zeros(len(self.counts), np.uint64)
        present = np.flatnonzero(valid)
        values[present] = self.at_rank(present, rank[present])
        return values, valid

    def top_sums(self, k):
        """Sum of the ``k`` largest values of each group (uint64)."""
        total = np.zeros(len(self.counts), np.uint64)
        for j in range(1, k + 1):
            has = np.flatnonzero(self.counts >= j)
            total[has] += self.at_rank(has, self.counts[has] - j)
        return total

    def kth_largest(self, groups, k):
        """The ``k``-th largest value of each of ``groups`` (the smallest when a group has fewer)."""
        groups = np.asarray(groups, np.int64)
        return self.at_rank(groups, np.maximum(self.counts[groups] - k, 0))

    def merged_quantiles(self, members, qs):
        """Nearest-rank quantiles of unions of groups (see ``SortedGroups.merged_quantiles``)."""
        n_unions, n_qs = len(members), len(qs)
        out = np.zeros((n_unions, n_qs), np.uint64)
        if n_unions == 0 or len(self.count) == 0:
            return out
        first, end = self._bounds
        for u, member in enumerate(members):
            entries = np.concatenate([np.arange(first[g], end[g]) for g in member])
            if len(entries) == 0:
                continue
            value = self.value[entries]
            order = np.argsort(value, kind="stable")
            value, cumulative = value[order], np.cumsum(self.count[entries][order])
            size = int(cumulative[-1])
            ranks = np.maximum(np.ceil(np.asarray(qs) * size).astype(np.int64), 1)
            out[u] = value[np.searchsorted(cumulative, ranks, side="left")]
        return out


def rounded_entries(group, value, precision, sums):
    """Entries sorted by group, then value, with each value rounded down to ``precision`` significant bits
    and the entries that became equal summed: ``(group, value, sums)``. Rounding down keeps them sorted."""
    value = _rounded(value, bit_length(value), precision)
    starts = np.concatenate(([0], np.flatnonzero((group[1:] != group[:-1]) | (value[1:] != value[:-1])) + 1))
    return group[starts], value[starts], tuple(np.add.reduceat(column, starts).astype(column.dtype)
                                               for column in sums)


def _rounded(value, bits, precision):
    shift = np.maximum(bits, np.uint64(precision)) - np.uint64(precision)
    return (value >> shift) << shift


def fitted(counts, most):
    """``counts`` (with ``group``, ``value``, ``precision`` and ``rounded``) rounded to the most significant
    bits that leave at most ``most`` entries, or to :data:`MIN_PRECISION` bits: the first that fits of one
    bit fewer at a time, from one below ``counts.precision`` (or the longest value's bits, if fewer).

    Entries left can only fall as bits are dropped (rounding down keeps the order and the bit length, and
    values equal at some precision stay equal at fewer bits), so the precision is found by bisection; the
    bit lengths are taken once, each precision tried only counts the entries it would leave, and the counts
    are rounded once."""
    if len(counts.value) <= most or counts.precision <= MIN_PRECISION:
        return counts
    bits = bit_length(counts.value)
    group_starts = counts.group[1:] != counts.group[:-1]

    def fits(precision):
        value = _rounded(counts.value, bits, precision)
        return 1 + np.count_nonzero(group_starts | (value[1:] != value[:-1])) <= most

    start = min(counts.precision, int(bits.max()))
    if start <= MIN_PRECISION:
        return counts.rounded(start)
    low, high = MIN_PRECISION, start - 1  # the answer: the largest of low+1..high that fits, else low
    if low < high and fits(high):  # most often one bit fewer is enough: the guess of a probe, or a merge's
        return counts.rounded(high)
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return counts.rounded(low)


def bit_length(values):
    """The bit length of each uint64 value (0 for 0)."""
    values = np.asarray(values, np.uint64)
    # the float's exponent is the bit length, or one more where the conversion rounded up to a power of 2
    bits = np.frexp(values.astype(np.float64))[1].astype(np.uint64)
    over = bits > 0
    over[over] = (values[over] >> (bits[over] - np.uint64(1))) == 0
    return bits - over.astype(np.uint64)
