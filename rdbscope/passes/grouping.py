"""Per-group statistics over millions of keys without a Python loop over keys.

A *grouping* is an int array with one group id per key (``-1``: not in any
group) and the number of groups. Percentiles come from one sort of
``group << b | value`` (numpy sorts 64-bit integers with SIMD), after which
each group's values are a sorted run.
"""

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

#: Percentiles reported everywhere, as (column suffix, quantile).
PERCENTILES = (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("max", 1.0))


@dataclass(frozen=True)
class SortedGroups:
    """The values of each group, sorted, as runs of one array.

    Attributes:
        values: uint64 values ordered by (group, value).
        starts: where each group's run begins in ``values``.
        counts: length of each group's run.
    """

    values: np.ndarray
    starts: np.ndarray
    counts: np.ndarray

    @classmethod
    def build(cls, groups, values, n_groups):
        """Sort ``values`` (unsigned, one per key) within ``groups`` (ids ≥ 0)."""
        groups = np.asarray(groups)
        values = np.asarray(values, dtype=np.uint64)
        counts = np.bincount(groups, minlength=n_groups).astype(np.int64) if len(groups) else \
            np.zeros(n_groups, np.int64)
        starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
        group_bits = max(1, int(max(n_groups - 1, 0)).bit_length())
        if group_bits >= 64:
            raise ValueError("too many groups")
        value_bits = 64 - group_bits
        # Values beyond the bits left (2**40 with 16M groups) are clipped; the
        # maxima reported stay exact because ranks, not values, pick them.
        limit = np.uint64((1 << value_bits) - 1)
        combined = np.minimum(values, limit) | (groups.astype(np.uint64) << np.uint64(value_bits))
        combined.sort()
        sorted_values = combined & limit
        return cls(sorted_values, starts, counts)

    def quantile(self, q):
        """Nearest-rank quantile ``q`` of each group: (uint64 array, valid mask)."""
        valid = self.counts > 0
        rank = np.ceil(q * self.counts).astype(np.int64) - 1
        position = self.starts + np.clip(rank, 0, None)
        position = np.where(valid, position, 0)
        if len(self.values) == 0:
            return np.zeros(len(self.counts), np.uint64), valid
        return self.values[position], valid

    def sums(self):
        """Sum of each group (uint64)."""
        cumulative = np.concatenate(([0], np.cumsum(self.values, dtype=np.uint64))).astype(np.uint64)
        return cumulative[self.starts + self.counts] - cumulative[self.starts]

    def top_sums(self, k):
        """Sum of the ``k`` largest values of each group (uint64)."""
        cumulative = np.concatenate(([0], np.cumsum(self.values, dtype=np.uint64))).astype(np.uint64)
        ends = self.starts + self.counts
        begins = np.maximum(ends - k, self.starts)
        return cumulative[ends] - cumulative[begins]


def counts(groups, n_groups, weights=None):
    """Keys per group (int64), or the sum of integer ``weights`` per group (uint64)."""
    if weights is None:
        return np.bincount(groups, minlength=n_groups).astype(np.int64)
    total = np.zeros(n_groups, np.uint64)
    np.add.at(total, groups, np.asarray(weights, dtype=np.uint64))
    return total


def present_names(groups, n_groups, codes, names):
    """Which of ``names`` occur in each group, most frequent first, as list<string>."""
    n_names = max(len(names), 1)
    matrix = np.bincount(groups.astype(np.int64) * n_names + codes, minlength=n_groups * n_names)
    matrix = matrix.reshape(n_groups, n_names)
    group_of, name_of = np.nonzero(matrix)
    order = np.lexsort((name_of, -matrix[group_of, name_of], group_of))
    group_of, name_of = group_of[order], name_of[order]
    offsets = np.concatenate(([0], np.cumsum(np.bincount(group_of, minlength=n_groups))))
    values = pa.array(np.asarray(names, dtype=object)[name_of] if len(name_of) else [], pa.string())
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), values)


def example_positions(groups, n_groups, k, positions=None, sample=100_000):
    """Up to ``k`` example keys per group: its first key plus keys spread over the dump.

    ``groups`` holds a group id per candidate; ``positions`` the candidates' row
    numbers (ascending; default ``0..len-1``). Returns ``(offsets, rows)``: the
    examples of group ``g`` are ``rows[offsets[g]:offsets[g + 1]]``, ascending.
    """
    m = len(groups)
    if positions is None:
        positions = np.arange(m, dtype=np.int64)
    if m == 0:
        return np.zeros(n_groups + 1, np.int64), np.zeros(0, np.int64)
    first = np.full(n_groups, m, dtype=np.int64)
    np.minimum.at(first, groups, np.arange(m, dtype=np.int64))
    present = np.flatnonzero(first < m)
    step = max(1, m // sample)
    spread = np.arange(0, m, step, dtype=np.int64)
    candidates = np.unique(np.concatenate((first[present], spread)))
    cand_groups = groups[candidates]
    order = np.argsort(cand_groups, kind="stable")
    candidates, cand_groups = candidates[order], cand_groups[order]
    per_group = np.bincount(cand_groups, minlength=n_groups)
    starts = np.concatenate(([0], np.cumsum(per_group)[:-1]))
    rank = np.arange(len(candidates)) - starts[cand_groups]
    keep = rank < k
    chosen_groups = cand_groups[keep]
    offsets = np.concatenate(([0], np.cumsum(np.bincount(chosen_groups, minlength=n_groups))))
    return offsets.astype(np.int64), positions[candidates[keep]]


def text_lists(offsets, texts):
    """list<string> from offsets and a flat list of strings."""
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), pa.array(texts, pa.string()))


def masked(values, valid, typ):
    """A pyarrow array of ``values`` with nulls where ``valid`` is False."""
    return pa.array(values, typ, mask=~np.asarray(valid, dtype=bool))


def dense_ids(*codes):
    """Number the distinct combinations of several small int code arrays.

    Returns ``(ids, combos)``: ``ids`` per row (int32, ``0..len(combos)-1``) and
    ``combos`` an int64 array of shape (n_ids, len(codes)) in ascending order.
    Linear time: codes are combined into one dense index, never sorted.
    """
    sizes = [int(c.max()) + 1 if len(c) else 1 for c in codes]
    dense = np.zeros(len(codes[0]), dtype=np.int64)
    for c, size in zip(codes, sizes):
        dense = dense * size + c
    total = int(np.prod(sizes, dtype=np.int64))
    seen = np.bincount(dense, minlength=total) > 0 if len(dense) else np.zeros(total, bool)
    present = np.flatnonzero(seen)
    lookup = np.full(total, -1, dtype=np.int32)
    lookup[present] = np.arange(len(present), dtype=np.int32)
    combos = np.array(np.unravel_index(present, sizes)).T.reshape(len(present), len(codes))
    return lookup[dense], combos
