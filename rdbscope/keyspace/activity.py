"""Per group: how long its keys had been idle and how often read, from the access data a dump holds.

Counts, sums and extremes only, so the measures of chunks merge into those of the whole
(:meth:`ActivityCounts.merge`): the activity pass reads them the same way in memory and in a
bounded run.
"""

from dataclasses import dataclass

import numpy as np

from .grouping import counts

_NEVER = np.iinfo(np.uint64).max


@dataclass(frozen=True)
class ActivityCounts:
    """Idle times (LRU) and LFU counters per group, as numpy arrays indexed by group.

    Attributes:
        idle_thresholds_s: the idle times counted, ascending; ``cold_idle_s``: what is cold.
        n_with_idle, n_with_lfu: keys with an idle time, with an LFU counter.
        n_idle_over, memory_idle_over: (n_groups, n_thresholds): keys and memory idle longer than each.
        n_cold, memory_cold: keys without a TTL idle longer than ``cold_idle_s``, and their memory.
        min_idle_s, max_idle_s: extremes of the idle times (meaningless where ``n_with_idle`` is 0).
        lfu_sum, lfu_max: sum and largest LFU counter; n_lfu_zero, memory_lfu_zero: keys at counter 0.
    """

    idle_thresholds_s: tuple
    cold_idle_s: int
    n_with_idle: np.ndarray
    n_idle_over: np.ndarray
    memory_idle_over: np.ndarray
    n_cold: np.ndarray
    memory_cold: np.ndarray
    min_idle_s: np.ndarray
    max_idle_s: np.ndarray
    n_with_lfu: np.ndarray
    lfu_sum: np.ndarray
    lfu_max: np.ndarray
    n_lfu_zero: np.ndarray
    memory_lfu_zero: np.ndarray

    @classmethod
    def measure(cls, group, n_groups, columns, idle_thresholds_s, cold_idle_s):
        """Measure the keys read by ``columns`` (a KeyColumns), ``group`` being each key's group."""
        if not (recorded(columns.table, "idle_s") or recorded(columns.table, "lfu_freq")):
            return cls.none(n_groups, idle_thresholds_s, cold_idle_s)  # most dumps: no per-key work
        idle, has_idle = nullable(columns.table, "idle_s", np.uint64)
        lfu, has_lfu = nullable(columns.table, "lfu_freq", np.uint8)
        memory = columns.memory
        n_over, memory_over = [], []
        for threshold in idle_thresholds_s:
            rows = np.flatnonzero(has_idle & (idle > threshold))
            n_over.append(counts(group[rows], n_groups))
            memory_over.append(counts(group[rows], n_groups, memory[rows]))
        cold = cold_rows(columns, idle, has_idle, cold_idle_s)
        zero = np.flatnonzero(has_lfu & (lfu == 0))
        with_idle, with_lfu = np.flatnonzero(has_idle), np.flatnonzero(has_lfu)
        return cls(
            tuple(idle_thresholds_s), cold_idle_s,
            n_with_idle=counts(group[with_idle], n_groups),
            n_idle_over=_columns(n_over, n_groups, np.int64),
            memory_idle_over=_columns(memory_over, n_groups, np.uint64),
            n_cold=counts(group[cold], n_groups), memory_cold=counts(group[cold], n_groups, memory[cold]),
            min_idle_s=_extreme(np.minimum, _NEVER, group[with_idle], idle[with_idle], n_groups),
            max_idle_s=_extreme(np.maximum, 0, group[with_idle], idle[with_idle], n_groups),
            n_with_lfu=counts(group[with_lfu], n_groups),
            lfu_sum=counts(group[with_lfu], n_groups, lfu[with_lfu].astype(np.uint64)),
            lfu_max=_extreme(np.maximum, 0, group[with_lfu], lfu[with_lfu], n_groups),
            n_lfu_zero=counts(group[zero], n_groups), memory_lfu_zero=counts(group[zero], n_groups, memory[zero]),
        )

    @classmethod
    def none(cls, n_groups, idle_thresholds_s, cold_idle_s):
        """The counts of groups whose keys have neither idle times nor LFU counters."""
        zeros = np.zeros(n_groups, np.int64)
        over = np.zeros((n_groups, len(idle_thresholds_s)), np.int64)
        return cls(tuple(idle_thresholds_s), cold_idle_s, zeros, over, over.astype(np.uint64), zeros,
                   zeros.astype(np.uint64), np.full(n_groups, _NEVER, np.uint64), zeros.astype(np.uint64), zeros,
                   zeros.astype(np.uint64), zeros.astype(np.uint64), zeros, zeros.astype(np.uint64))

    @classmethod
    def merge(cls, parts, n_groups):
        """The counts of ``(counts, new group of each of its groups)`` parts, in ``n_groups`` groups."""
        first = parts[0][0]

        def summed(name, dtype):
            out = np.zeros((n_groups,) + getattr(first, name).shape[1:], dtype)
            for part, ids in parts:
                np.add.at(out, ids, getattr(part, name).astype(dtype))
            return out

        def extreme(name, ufunc, start):
            out = np.full(n_groups, start, np.uint64)
            for part, ids in parts:
                ufunc.at(out, ids, getattr(part, name))
            return out

        return cls(
            first.idle_thresholds_s, first.cold_idle_s,
            n_with_idle=summed("n_with_idle", np.int64), n_idle_over=summed("n_idle_over", np.int64),
            memory_idle_over=summed("memory_idle_over", np.uint64), n_cold=summed("n_cold", np.int64),
            memory_cold=summed("memory_cold", np.uint64), min_idle_s=extreme("min_idle_s", np.minimum, _NEVER),
            max_idle_s=extreme("max_idle_s", np.maximum, 0), n_with_lfu=summed("n_with_lfu", np.int64),
            lfu_sum=summed("lfu_sum", np.uint64), lfu_max=extreme("lfu_max", np.maximum, 0),
            n_lfu_zero=summed("n_lfu_zero", np.int64), memory_lfu_zero=summed("memory_lfu_zero", np.uint64),
        )


def recorded(table, name):
    """True when some key has a value in the column ``name`` (``idle_s``, ``lfu_freq``)."""
    return name in table.column_names and table[name].null_count < table.num_rows


def nullable(table, name, dtype):
    """A nullable column as (numpy values with nulls as 0, numpy validity)."""
    if name not in table.column_names:
        return np.zeros(table.num_rows, dtype), np.zeros(table.num_rows, bool)
    column = table[name]
    valid = column.is_valid().to_numpy(zero_copy_only=False)
    values = column.fill_null(0).to_numpy(zero_copy_only=False).astype(dtype, copy=False)
    return values, valid


def cold_rows(columns, idle, has_idle, cold_idle_s):
    """Rows of the keys without a TTL idle longer than ``cold_idle_s``."""
    return np.flatnonzero(has_idle & (idle > cold_idle_s) & ~columns.has_ttl)


def _columns(arrays, n_groups, dtype):
    return np.stack(arrays, axis=1).astype(dtype) if arrays else np.zeros((n_groups, 0), dtype)


def _extreme(ufunc, start, group, values, n_groups):
    out = np.full(n_groups, start, np.uint64)
    ufunc.at(out, group, values.astype(np.uint64))
    return out
