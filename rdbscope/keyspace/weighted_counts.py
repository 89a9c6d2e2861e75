"""How many keys, and how many bytes, have each value in each group: a histogram that merges.

The figures of key sizes and TTLs are drawn from these counts, whether the keys were read in one
chunk or many: counts of chunks add up. Past :data:`MAX_ENTRIES` distinct (group, value) pairs,
values are rounded down to fewer significant bits, one bit at a time, until they fit. The bits
kept depend only on the distinct values of the whole, so any chunking gives the same counts.
"""

import threading
from dataclasses import dataclass, replace

import numpy as np

from .. import kernels
from .grouping import COUNTING_MAX_PAIRS, SlotCounter, counting_limit, merge_counted
from .sorting import stable_order
from .value_counts import EXACT, MIN_PRECISION, fitted, rounded_entries

#: Distinct (group, value) pairs kept before values are rounded: far more than a figure's bins.
MAX_ENTRIES = 1 << 16
#: Slots a key up to which the rounded values of many keys are counted before the exact ones are sorted.
PROBE_SLOTS_PER_KEY = 2


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
    def of(cls, groups, values, weights=None):
        """The counts of keys with a group (small non-negative ints), a value and a weight each (``weights``
        None: each key weighs its value)."""
        groups = np.asarray(groups)
        values = np.asarray(values, np.uint64)
        if len(values):
            low, top, n_groups = int(values.min()), int(values.max()), int(groups.max()) + 1
            width = top - low + 1
            if n_groups * width <= counting_limit(len(values)):  # few distinct values (sizes): count them
                group, value, count, weight = _counter().counted_pairs(groups, values, weights, n_groups, width,
                                                                          low)
                return fitted(cls(group, value.astype(np.uint64) + np.uint64(low), count, weight), MAX_ENTRIES)
            probed = cls._probed(groups, values, values if weights is None else weights, n_groups,
                                 top.bit_length())
            if probed is not None:
                counts = fitted(probed, MAX_ENTRIES)
                _fitted_before()[top.bit_length()] = counts.precision
                return counts
        order = _by_group_then_value(groups, values)
        group, value = np.asarray(groups[order], np.int64), values[order]
        weight = value if weights is None else np.asarray(weights, np.uint64)[order]
        return fitted(cls._summed(group, value, np.ones(len(group), np.int64), weight), MAX_ENTRIES)

    def renumbered(self, new_group):
        """These counts with group ``g`` numbered ``new_group[g]`` (distinct numbers), sorted again."""
        group = np.asarray(new_group, np.int64)[self.group]
        order = np.argsort(group, kind="stable")  # each group's entries stay sorted by value
        return replace(self, group=group[order], value=self.value[order], count=self.count[order],
                       weight=self.weight[order])

    @classmethod
    def _probed(cls, groups, values, weights, n_groups, bits):
        """The counts of the keys with their values rounded to the most bits whose codes fit in a few slots a
        key, when those already hold more than :data:`MAX_ENTRIES` entries (None otherwise): the precision
        :func:`~.value_counts.fitted` would pick is then below it, and rounding these counts to it gives the
        counts it would give (rounding to fewer bits after more is rounding to fewer bits at once)."""
        if len(values) <= MAX_ENTRIES:
            return None
        present = np.flatnonzero(kernels.count_ids(groups, n_groups))
        room = min(COUNTING_MAX_PAIRS, PROBE_SLOTS_PER_KEY * len(values))
        precision = next((p for p in range(bits - 1, MIN_PRECISION, -1)
                          if len(present) * ((bits - p + 2) << (p - 1)) <= room), None)
        if precision is None:
            return None
        guess = _fitted_before().get(bits)
        if guess is not None and MIN_PRECISION < guess < precision - 1:
            # the keys of a chunk fit where the last ones of as many bits did, most often: counted one bit
            # above that, fewer slots to read back and fewer entries to fit; where they do not pass the cap
            # there, they are counted again below
            counted = cls._counted_rounded(groups, values, weights, present, guess + 1, bits)
            if counted is not None:
                return counted
        return cls._counted_rounded(groups, values, weights, present, precision, bits)

    @classmethod
    def _counted_rounded(cls, groups, values, weights, present, precision, bits):
        group, value, count, weight = _counter().counted_rounded(groups, values, weights, present, precision, bits)
        return cls(group, value, count, weight, precision) if len(value) > MAX_ENTRIES else None

    @classmethod
    def merge(cls, parts):
        """The counts of several parts together."""
        parts = list(parts)
        precision = min((p.precision for p in parts), default=EXACT)
        rounded = [p for p in (p.rounded(precision) for p in parts) if len(p.group)]
        if len(rounded) <= 1:
            merged = rounded[0] if rounded else cls(*_NOTHING)
        else:  # each sorted already: their runs merged (or added up in slots), not sorted again
            n_groups = max(int(p.group[-1]) for p in rounded) + 1
            same = np.arange(n_groups, dtype=np.int64)
            group, value, count, weight = merge_counted([(p.group, p.value, p.count, p.weight, same)
                                                         for p in rounded], n_groups)
            merged = cls(group, value, count.astype(np.int64), weight)
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


_THREAD = threading.local()
#: The columns of no entries.
_NOTHING = (np.zeros(0, np.int64), np.zeros(0, np.uint64), np.zeros(0, np.int64), np.zeros(0, np.uint64))


def _counter():
    """This thread's :class:`~.grouping.SlotCounter`: kept from chunk to chunk, its counters cost no page
    faults after the first (those of a probe span megabytes)."""
    counter = getattr(_THREAD, "counter", None)
    if counter is None:
        counter = _THREAD.counter = SlotCounter()
    return counter


def _fitted_before():
    """This thread's ``{bit length of the largest value: precision}`` of the last probed counts fitted: only a
    guess of where the next fit (see :meth:`WeightedCounts._probed`); any guess gives the same counts."""
    before = getattr(_THREAD, "fitted", None)
    if before is None:
        before = _THREAD.fitted = {}
    return before


def _by_group_then_value(groups, values):
    """The order of entries by group, then value: one radix sort of both in a word when they fit in one."""
    if len(groups) == 0:
        return np.zeros(0, np.int64)
    group_bits = max(1, int(groups.max()).bit_length())
    value_bits = int(values.max()).bit_length()
    if int(groups.min()) >= 0 and group_bits + value_bits <= 64:
        return stable_order((groups.astype(np.uint64) << np.uint64(value_bits)) | values)
    return np.lexsort((values, groups))
