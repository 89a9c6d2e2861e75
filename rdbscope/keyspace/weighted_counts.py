"""How many keys, and how many bytes, have each value in each group: a histogram that merges.

The figures of key sizes and TTLs are drawn from these counts, whether the keys were read in one
chunk or many: counts of chunks add up. Past :data:`MAX_ENTRIES` distinct (group, value) pairs,
values are rounded down to fewer significant bits, one bit at a time, until they fit. The bits
kept depend only on the distinct values of the whole, so any chunking gives the same counts.
"""

from dataclasses import dataclass, replace

import numpy as np

from .grouping import SlotCounter, counting_limit
from .value_counts import EXACT, fitted, rounded_entries

#: Distinct (group, value) pairs kept before values are rounded: far more than a figure's bins.
MAX_ENTRIES = 1 << 16


@dataclass(frozen=True)
class WeightedCounts:
    """Keys and their summed weight per distinct (group, value), sorted by group, then value.

    Attributes:
        group: int64 group of each entry.
        value: uint64 value of each entry (rounded down to ``precision`` significant bits).
        count: int64 keys of each entry.
        weight: uint64 summed weight (bytes) of each entry's keys.
        precision: significant bits each value keeps; :data:`EXACT` when none was rounded.
    """

    group: np.ndarray
    value: np.ndarray
    count: np.ndarray
    weight: np.ndarray
    precision: int = EXACT

    @classmethod
    def of(cls, groups, values, weights):
        """The counts of keys with a group, a value and a weight each."""
        groups = np.asarray(groups, np.int64)
        values = np.asarray(values, np.uint64)
        if len(values):
            low, n_groups = int(values.min()), int(groups.max()) + 1
            width = int(values.max()) - low + 1
            if n_groups * width <= counting_limit(len(values)):  # few distinct values (sizes): count them
                group, value, count, weight = SlotCounter().counted_pairs(
                    groups, values - np.uint64(low), np.asarray(weights, np.uint64), n_groups, width)
                return fitted(cls(group, value.astype(np.uint64) + np.uint64(low), count, weight.astype(np.uint64)),
                              MAX_ENTRIES)
        order = _by_group_then_value(groups, values)
        group, value, weight = groups[order], values[order], np.asarray(weights, np.uint64)[order]
        return fitted(cls._summed(group, value, np.ones(len(group), np.int64), weight), MAX_ENTRIES)

    @classmethod
    def merge(cls, parts):
        """The counts of several parts together."""
        parts = list(parts)
        precision = min((p.precision for p in parts), default=EXACT)
        rounded = [p.rounded(precision) for p in parts]
        group = np.concatenate([p.group for p in rounded]) if rounded else np.zeros(0, np.int64)
        value = np.concatenate([p.value for p in rounded]) if rounded else np.zeros(0, np.uint64)
        order = np.lexsort((value, group))
        count = np.concatenate([p.count for p in rounded])[order] if rounded else np.zeros(0, np.int64)
        weight = np.concatenate([p.weight for p in rounded])[order] if rounded else np.zeros(0, np.uint64)
        merged = cls._summed(group[order], value[order], count, weight)
        return fitted(replace(merged, precision=precision), MAX_ENTRIES)

    def rounded(self, precision):
        """These counts with each value rounded down to ``precision`` significant bits."""
        if precision >= self.precision or len(self.value) == 0:
            return self if precision >= self.precision else replace(self, precision=precision)
        group, value, (count, weight) = rounded_entries(self.group, self.value, precision, (self.count, self.weight))
        return replace(self, group=group, value=value, count=count, weight=weight, precision=precision)

    def of_group(self, group):
        """``(values, counts, weights)`` of one group."""
        mine = self.group == group
        return self.value[mine], self.count[mine], self.weight[mine]

    @classmethod
    def _summed(cls, group, value, count, weight):
        """Entries of sorted ``group``/``value`` pairs with the equal ones summed."""
        if len(group) == 0:
            return cls(group, value, count, weight)
        starts = np.concatenate(([0], np.flatnonzero((group[1:] != group[:-1]) | (value[1:] != value[:-1])) + 1))
        return cls(group[starts], value[starts], np.add.reduceat(count, starts),
                   np.add.reduceat(weight, starts).astype(np.uint64))


def _by_group_then_value(groups, values):
    """The order of entries by group, then value: one sort of both in a word when they fit in one."""
    if len(groups) == 0:
        return np.zeros(0, np.int64)
    group_bits = max(1, int(groups.max()).bit_length())
    if int(groups.min()) >= 0 and int(values.max()) >> (64 - group_bits) == 0:
        return np.argsort((groups.astype(np.uint64) << np.uint64(64 - group_bits)) | values, kind="stable")
    return np.lexsort((values, groups))
