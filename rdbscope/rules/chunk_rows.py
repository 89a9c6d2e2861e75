"""The lint rules' chunk contract: what each chunk keeps for them, and how that merges.

A rule that runs in bounded memory (``Rule.bounded``) names the keys it may read
(``candidates``) and what it sums per pattern over every key (``pattern_sums``).
Each chunk keeps those keys beside the ones the passes keep, and its sums and its
keys and memory per hash slot; merged, they let the rules run once over the kept
keys with every pattern's and every slot's totals, as they would over all keys.

Candidate keys are bounded too: when the rules' keys outgrow ``max_rows``, the rule
with the most is dropped (and said not run) rather than the budget broken.
"""

from dataclasses import dataclass, field, replace

import numpy as np

from ..rdb.cluster import N_SLOTS


@dataclass(frozen=True)
class RulesPlan:
    """What the chunks measure for the rules (picklable).

    Attributes:
        rules: ``((rule class, options), ...)``: the enabled rules that run in bounded memory.
        max_rows: keys the chunks may keep for the rules' candidates, all rules together.
        several_sources: whether the keys come from several dumps (a cluster's nodes), which rules
            weigh against each other; each chunk is then told which dump it is of.
    """

    rules: tuple
    max_rows: int
    several_sources: bool = False

    @property
    def codes(self):
        return tuple(rule.code for rule, _options in self.rules)


@dataclass(frozen=True)
class RuleRows:
    """What a chunk (or several, merged) keeps for the rules.

    Attributes:
        rows: ``{code: rows}``: positions among all keys read (uint64, ascending per part) of the keys
            each rule may read.
        sums: ``{code: {name: int64 per group of the partial}}``: each rule's pattern sums.
        slot_keys, slot_memory, slot_with_ttl: keys, memory and keys with a TTL per hash slot (16384 each).
        dropped: codes of the rules whose candidates outgrew ``max_rows``.
        max_rows: see :class:`RulesPlan`.
    """

    rows: dict = field(default_factory=dict)
    sums: dict = field(default_factory=dict)
    slot_keys: np.ndarray = field(default_factory=lambda: np.zeros(N_SLOTS, np.int64))
    slot_memory: np.ndarray = field(default_factory=lambda: np.zeros(N_SLOTS, np.float64))
    slot_with_ttl: np.ndarray = field(default_factory=lambda: np.zeros(N_SLOTS, np.int64))
    dropped: frozenset = frozenset()
    max_rows: int = 0

    def shifted(self, offset):
        """The same, its rows numbered from ``offset`` on (the dump after others)."""
        return replace(self, rows={code: r + np.uint64(offset) for code, r in self.rows.items()})

    @property
    def n_rows(self):
        """Rows kept for the rules, counted once per rule."""
        return sum(len(rows) for rows in self.rows.values())

    def all_rows(self):
        """Every row some rule keeps (uint64, ascending)."""
        parts = [np.asarray(r, np.uint64) for r in self.rows.values()]
        return np.unique(np.concatenate(parts)) if parts else np.zeros(0, np.uint64)


def chunk_rule_rows(ctx, first_row, plan):
    """The :class:`RuleRows` of one chunk: ``ctx`` is a :class:`~rdbscope.rules.context.RuleContext` of its
    keys (its own pattern groups), which are keys ``first_row…`` of all those read."""
    rows, sums = {}, {}
    for rule, options in plan.rules:
        found = np.asarray(rule.candidates(ctx, options), np.int64)
        if len(found):
            rows[rule.code] = found.astype(np.uint64) + np.uint64(first_row)
        counted = rule.pattern_sums(ctx, options)
        if counted:
            sums[rule.code] = {name: np.asarray(values, np.int64) for name, values in counted.items()}
    part = RuleRows(rows=rows, sums=sums, max_rows=plan.max_rows)
    if ctx.n_rows:
        part = replace(part, slot_keys=ctx.slot_keys.astype(np.int64), slot_memory=ctx.slot_memory,
                       slot_with_ttl=ctx.columns.slot_with_ttl)
    return within(part)


def merge_rule_rows(parts, ids, n_groups):
    """One :class:`RuleRows` of ``parts``, their groups renumbered through ``ids`` (one array per part)
    into ``n_groups`` groups."""
    dropped = frozenset().union(*(p.dropped for p in parts))
    rows = {}
    for part in parts:
        for code, found in part.rows.items():
            if code not in dropped:
                rows.setdefault(code, []).append(found)
    sums = {}
    for part, part_ids in zip(parts, ids, strict=True):
        for code, named in part.sums.items():
            into = sums.setdefault(code, {})
            for name, values in named.items():
                total = into.setdefault(name, np.zeros(n_groups, np.int64))
                np.add.at(total, part_ids, values)
    merged = RuleRows(rows={code: np.concatenate(found) for code, found in rows.items()}, sums=sums,
                      slot_keys=sum((p.slot_keys for p in parts), np.zeros(N_SLOTS, np.int64)),
                      slot_memory=sum((p.slot_memory for p in parts), np.zeros(N_SLOTS, np.float64)),
                      slot_with_ttl=sum((p.slot_with_ttl for p in parts), np.zeros(N_SLOTS, np.int64)),
                      dropped=dropped, max_rows=max(p.max_rows for p in parts))
    return within(merged)


def within(part):
    """``part`` with its rules' candidates at most ``max_rows`` in all: the rules with the most dropped."""
    rows, dropped = dict(part.rows), set(part.dropped)
    while sum(len(r) for r in rows.values()) > part.max_rows:
        largest = max(rows, key=lambda code: len(rows[code]))
        del rows[largest]
        dropped.add(largest)
    if len(rows) == len(part.rows):
        return part
    return replace(part, rows=rows, sums={c: s for c, s in part.sums.items() if c not in dropped},
                   dropped=frozenset(dropped))
