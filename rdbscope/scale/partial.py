"""The partial aggregate of a chunk of keys, and how partials merge.

A chunk's keys are grouped by (db, pattern) with patterns inferred from the
chunk alone; what the passes need is kept per group as counts, sums and
:class:`~rdbscope.keyspace.value_counts.ValueCounts`, plus the few keys a pass
may name (examples, big and top keys) and a uniform sample of key names from
which the patterns of the whole are learned when the partials are finished.
"""

import functools
from dataclasses import dataclass, field, replace

import numpy as np
import pyarrow as pa

from .. import kernels
from ..keyspace.columns import KeyColumns
from ..keyspace.grouping import SlotCounter, first_per_group
from ..keyspace.measures import GroupStats
from ..keyspace.value_counts import ValueCounts
from ..passes import PASSES, grouped_passes, measured_passes
from ..passes.expiry_counts import spill_expiring
from ..passes.pattern_groups import group_by_pattern
from ..rules.chunk_rows import RuleRows, RulesPlan, chunk_rule_rows, merge_rule_rows
from ..rules.context import RuleContext

#: The passes that hold a chunk contract, by id.
_MEASURED = {pass_class.id: pass_class for pass_class in measured_passes(PASSES)}
#: The passes that hold the grouped chunk contract, by id.
_GROUPED = {pass_class.id: pass_class for pass_class in grouped_passes(PASSES)}

#: Column of the kept rows: their position among the keys read (of several dumps, in their order).
ROW = "row"
#: Column of the kept rows: their group in the partial.
GROUP = "group"
#: Column of the kept rows and of the sample: the key.
KEY = "key"
#: Column of the kept rows when rules run: True for the rows kept only as a rule's candidates.
RULES_ONLY = "rules_only"


@dataclass(frozen=True)
class Plan:
    """What every chunk is measured with (picklable: it travels to worker processes).

    Attributes:
        n_examples: example keys kept per group.
        sample_keys: keys in the uniform sample the patterns are learned from.
        spill_dir: where the chunks' per-millisecond expiry tallies are written (see
            :class:`~rdbscope.passes.expiry_counts.Spill`); None: not counted (no expiry pass).
        rules: the :class:`~rdbscope.rules.chunk_rows.RulesPlan` of the lint rules; None: no rules run.
        measured: ``(pass class, options)`` of the passes that measure every chunk themselves (their
            chunk contract: see :class:`~rdbscope.passes.base.Pass`).
        grouped: ``(pass class, options)`` of those that measure every chunk per group (the grouped
            contract).
        kept: ``(pass class, options)`` of the passes that run and name the rows of a chunk they may name
            (``kept_rows``): the engine keeps those keys.
        key_groups: keep each key's group (a chunk of a table in memory, whose every key gets its pattern).
        threads: chunks measured at once, each in a thread of its own (see :class:`~.chunks.InTurn`).
    """

    n_examples: int
    sample_keys: int = 1_000_000
    spill_dir: str | None = None
    rules: RulesPlan | None = None
    measured: tuple = ()
    grouped: tuple = ()
    kept: tuple = ()
    key_groups: bool = False
    threads: int = 1

    @property
    def rules_max_rows(self):
        return self.rules.max_rows if self.rules is not None else 0


@dataclass(frozen=True)
class Partial:
    """What a chunk (or several, merged) contributes to a bounded analysis.

    Attributes:
        groups: ``(db, pattern)`` of each group, patterns as the chunk inferred them.
        unwritten: of the patterns among them that show a constant number, the same with ``{id}`` there
            (see ``PatternGroups.unwritten``).
        stats: the groups' :class:`GroupStats`, values as ValueCounts (examples unused).
        pairs: the (type, encoding) pairs of the columns of ``stats.kinds``.
        rows: the kept keys (:data:`~rdbscope.rdb.KEYS_SCHEMA` plus ``row`` and ``group``), by ``row``.
        sample: ``(rank, key)`` table of the sampled keys: those ranked below ``sample_cutoff``.
        sample_cutoff: the rank every sampled key is below (see :func:`merge_samples`).
        sample_below: how many sampled keys rank below each cutoff ``2**k`` (see :func:`ranks_below`): the
            running total is asked every chunk.
        n_keys: keys of the chunk.
        memory_total: their memory (est_memory_bytes, falling back to rdb_bytes per key).
        has_estimates: whether any key has a memory estimate.
        spilled: the :class:`~rdbscope.passes.expiry_counts.SpillSegment` s of the keys expiring after ctime:
            their records, and their counts per second.
        rules: what the chunks kept for the lint rules (:class:`~rdbscope.rules.chunk_rows.RuleRows`), or None.
        type_totals: keys and memory per type (see ``KeyColumns.type_totals``).
        ttl_buckets: keys and memory per bucket of TTL left (see ``KeyColumns.ttl_buckets``); None when
            a chunk's dump has no ctime to measure them from.
        measures: ``{pass id: measure}`` of the passes the plan lists as ``measured``.
        group_measures: ``{pass id: measure}`` of those it lists as ``grouped``, in the partial's groups.
        key_groups: when the plan says so, ``(first row, group of each key, (db, pattern) of each group)``
            of every chunk, in the chunk's own groups.
    """

    groups: tuple
    stats: GroupStats
    pairs: tuple
    rows: pa.Table
    sample: pa.Table
    n_keys: int
    memory_total: int
    has_estimates: bool
    sample_cutoff: int = 1 << 64
    sample_below: np.ndarray | None = None
    spilled: tuple = ()
    rules: RuleRows | None = None
    type_totals: dict = field(default_factory=dict)
    ttl_buckets: tuple | None = None
    measures: dict = field(default_factory=dict)
    group_measures: dict = field(default_factory=dict)
    key_groups: tuple = ()
    unwritten: dict = field(default_factory=dict)


def chunk_partial(table, info, first_row, plan, salt=0, sample_cutoff=1 << 64, spill=None, counter=None):
    """The :class:`Partial` of one chunk: ``table`` holds keys ``first_row…`` of a dump described by ``info``;
    ``sample_cutoff`` is the cutoff the sample has reached so far (keys ranked above it are not sampled);
    the chunk's expiring keys go to ``spill`` (a :class:`~rdbscope.passes.expiry_counts.Spill`, or a
    ``ChunkSpill``). ``counter``: the :class:`~rdbscope.keyspace.grouping.SlotCounter` the chunks of one
    thread count values with."""
    counter = counter or SlotCounter()
    columns = KeyColumns(table, info)
    _inferred, groups = group_by_pattern(columns)
    pairs = tuple(zip(groups.db.tolist(), groups.pattern, strict=True))
    if spill is not None:
        spill_expiring(columns, groups.group, spill, pairs)
    stats = GroupStats.measure(groups.group, groups.n, columns, None, group_counts=groups.n_keys,
                               values_of=functools.partial(ValueCounts.of_keys, counter=counter))
    stats = replace(stats, example_offsets=None, example_rows=None)
    kept = _kept_rows(columns, replace(groups, stats=stats), plan)
    rules = None
    if plan.rules is not None:
        source_index = salt if plan.rules.several_sources else None
        rules = chunk_rule_rows(RuleContext(columns, groups, info, source_index=source_index), first_row, plan.rules)
        for_rules = (rules.all_rows() - np.uint64(first_row)).astype(np.int64)
        kept, rules_only = _with_rule_rows(kept, for_rules)
    sample, cutoff, below = _sample(columns.keys, first_row, plan.sample_keys, salt, sample_cutoff)
    rows = table.take(pa.array(kept, pa.int64()))
    rows = rows.append_column(ROW, pa.array(kept.astype(np.uint64) + np.uint64(first_row), pa.uint64()))
    rows = rows.append_column(GROUP, pa.array(groups.group[kept].astype(np.int64), pa.int64()))
    if rules is not None:
        rows = rows.append_column(RULES_ONLY, pa.array(rules_only, pa.bool_()))
    return Partial(
        groups=pairs,
        stats=stats,
        pairs=columns.type_encodings[1],
        rows=rows,
        sample=sample,
        sample_cutoff=cutoff,
        sample_below=below,
        n_keys=columns.n,
        memory_total=columns.memory_total,
        has_estimates=columns.memory_basis == "est_memory_bytes",
        rules=rules,
        type_totals=columns.type_totals,
        ttl_buckets=columns.ttl_buckets if columns.ctime_ms is not None else None,
        measures={pass_class.id: pass_class.measure(columns, options) for pass_class, options in plan.measured},
        group_measures={pass_class.id: pass_class.measure_groups(columns, groups, options)
                        for pass_class, options in plan.grouped},
        key_groups=((first_row, groups.group.astype(np.int32), pairs),) if plan.key_groups else (),
        unwritten=groups.unwritten,
    )


def _with_rule_rows(kept, for_rules):
    """``kept`` rows with ``for_rules`` added (ascending), and True for those the rules alone keep."""
    rows = np.union1d(kept, for_rules)
    return rows, ~np.isin(rows, kept, assume_unique=True)


def _kept_rows(columns, groups, plan):
    """Rows a pass may name: the first keys of each group, and the rows each pass that runs keeps
    (its ``kept_rows``)."""
    parts = [first_per_group(groups.group, groups.n, plan.n_examples, counts=groups.n_keys)]
    parts.extend(pass_class.kept_rows(columns, groups, options) for pass_class, options in plan.kept)
    return np.unique(np.concatenate([np.asarray(p, np.int64) for p in parts]))


def _sample(keys, first_row, size, salt, cutoff):
    """The sampled keys of a chunk (a rank per key, a hash of its row; the keys ranked below the
    cutoff, see :func:`merge_samples`), the cutoff, and their :func:`ranks_below`."""
    rank = np.empty(len(keys), np.uint64)
    kernels.ranks.fill_ranks(first_row, salt << 40, rank)
    below = ranks_below(rank)
    cutoff = _cutoff_for(below, size, cutoff)  # before the keys are taken: only those kept are
    below = _kept_below(below, cutoff)
    if cutoff >= 1 << 64:  # every key: the chunk's own column, not a copy
        return pa.table({"rank": pa.array(rank, pa.uint64()), KEY: keys}), cutoff, below
    return _ranked_below(rank, keys, cutoff), cutoff, below


def merge_samples(samples, cutoffs, belows, size):
    """The union of sample tables (``belows``: their :func:`ranks_below`), kept below the cutoff; returns
    ``(sample, cutoff, its ranks_below)``.

    A key is in the sample when its rank is below the largest cutoff ``2**64 >> j`` that leaves
    at most ``2 * size`` keys of all those read: a uniform sample that does not depend on how
    the keys were cut into chunks, and that merges by halving the cutoff while it holds too many.
    """
    cutoff = _cutoff_for(sum(belows), size, min(cutoffs))  # filtered once, at the lowest cutoff
    below = _kept_below(sum(belows), cutoff)
    kept = [sample if was == cutoff else _ranked_below(sample["rank"].to_numpy(), sample[KEY], cutoff)
            for sample, was in zip(samples, cutoffs, strict=True)]  # those at the cutoff already: not copied
    return pa.concat_tables(kept), cutoff, below


def _ranked_below(rank, keys, cutoff):
    """The ``(rank, key)`` table of the keys whose ``rank`` is below ``cutoff``."""
    chosen = np.flatnonzero(rank < np.uint64(cutoff))
    return pa.table({"rank": pa.array(rank[chosen], pa.uint64()), KEY: kernels.take_keys(keys, chosen)})


def union_cutoff(parts, size):
    """The cutoff the union of ``parts``' samples would have (see :func:`merge_samples`): keys ranked above
    it will not be in the final sample, so a chunk read next need not take them."""
    cutoff = min((p.sample_cutoff for p in parts), default=1 << 64)
    if sum(p.sample.num_rows for p in parts) <= 2 * size:
        return cutoff
    return _cutoff_for(sum(p.sample_below for p in parts), size, cutoff)


def ranks_below(rank):
    """How many of ``rank`` are below ``2**k``, for each ``k`` of 0..64: the cutoffs are powers of two."""
    counts = np.zeros(65, np.int64)
    kernels.ranks.count_bit_lengths(np.ascontiguousarray(rank, np.uint64), counts)
    return np.cumsum(counts)


def _kept_below(below, cutoff):
    """The :func:`ranks_below` of the ranks counted by ``below`` that are below ``cutoff``."""
    return np.minimum(below, below[cutoff.bit_length() - 1])


def _cutoff_for(below, size, cutoff):
    """The largest of ``cutoff``, ``cutoff / 2``, … below which at most ``2 * size`` of the ranks counted by
    ``below`` (:func:`ranks_below`) fall."""
    return _halved_while(lambda c: below[c.bit_length() - 1], size, cutoff)


def _halved_while(n_below, size, cutoff):
    """``cutoff`` halved while more than ``2 * size`` ranks fall below it (``n_below(cutoff)``)."""
    while cutoff > 1 and n_below(cutoff) > 2 * size:
        cutoff >>= 1
    return cutoff


def merge(parts, sample_keys):
    """One :class:`Partial` of several (their groups joined by (db, pattern) text)."""
    if len(parts) == 1:
        return parts[0]
    groups, pairs = {}, {}
    for part in parts:
        for g in part.groups:
            groups.setdefault(g, len(groups))
        for p in part.pairs:
            pairs.setdefault(p, len(pairs))
    ids = [np.array([groups[g] for g in part.groups], np.int64) for part in parts]
    stats = merge_stats([(part.stats, part_ids, [pairs[p] for p in part.pairs])
                         for part, part_ids in zip(parts, ids, strict=True)], len(groups), len(pairs))
    rows = pa.concat_tables([renumber_rows(part.rows, part_ids) for part, part_ids in zip(parts, ids, strict=True)])
    rules = None
    if parts[0].rules is not None:
        rules = merge_rule_rows([part.rules for part in parts], ids, len(groups))
        rows = _drop_unneeded(rows, rules)
    sample, cutoff, below = merge_samples([part.sample for part in parts], [part.sample_cutoff for part in parts],
                                          [part.sample_below for part in parts], sample_keys)
    return Partial(
        groups=tuple(groups), stats=stats, pairs=tuple(pairs), rows=rows,
        sample=sample, sample_cutoff=cutoff, sample_below=below,
        n_keys=sum(part.n_keys for part in parts), memory_total=sum(part.memory_total for part in parts),
        has_estimates=any(part.has_estimates for part in parts),
        spilled=tuple(segment for part in parts for segment in part.spilled),
        rules=rules,
        type_totals=_summed_totals([part.type_totals for part in parts]),
        ttl_buckets=None if any(part.ttl_buckets is None for part in parts) else
        tuple(sum(values) for values in zip(*(part.ttl_buckets for part in parts), strict=True)),
        measures={pass_id: _MEASURED[pass_id].merge(part.measures[pass_id] for part in parts)
                  for pass_id in parts[0].measures},
        group_measures=merge_group_measures([(part.group_measures, part_ids)
                                             for part, part_ids in zip(parts, ids, strict=True)], len(groups)),
        key_groups=tuple(chunk for part in parts for chunk in part.key_groups),
        unwritten={pattern: loose for part in parts for pattern, loose in part.unwritten.items()},
    )


def merge_group_measures(parts, n_groups):
    """``{pass id: measure}`` of ``({pass id: measure}, new group of each of its groups)`` parts, in
    ``n_groups`` groups (see the grouped contract of :class:`~rdbscope.passes.base.Pass`)."""
    return {pass_id: _GROUPED[pass_id].merge_groups([(measures[pass_id], ids) for measures, ids in parts], n_groups)
            for pass_id in parts[0][0]}


def _summed_totals(totals):
    """``{name: (keys, memory)}`` summed over ``totals``."""
    summed = {}
    for part in totals:
        for name, (n, memory) in part.items():
            had_n, had_memory = summed.get(name, (0, 0))
            summed[name] = (had_n + n, had_memory + memory)
    return summed


def _drop_unneeded(rows, rules):
    """``rows`` without those kept for rules that were dropped since."""
    if not rules.dropped:
        return rows
    rules_only = rows[RULES_ONLY].to_numpy(zero_copy_only=False)
    unneeded = rules_only & ~np.isin(rows[ROW].to_numpy(), rules.all_rows())
    return rows.filter(pa.array(~unneeded)) if unneeded.any() else rows


def shift_rows(partial, offset, place_offset):
    """``partial`` with its kept rows numbered from ``offset`` on, its spilled keys' places from
    ``place_offset`` (the dump after others)."""
    row = partial.rows[ROW].to_numpy() + np.uint64(offset)
    rows = partial.rows.set_column(partial.rows.column_names.index(ROW), ROW, pa.array(row, pa.uint64()))
    spilled = tuple(replace(s, place_offset=s.place_offset + place_offset) for s in partial.spilled)
    rules = partial.rules.shifted(offset) if partial.rules is not None else None
    key_groups = tuple((first + offset, group, pairs) for first, group, pairs in partial.key_groups)
    return replace(partial, rows=rows, spilled=spilled, rules=rules, key_groups=key_groups)


def renumber_rows(rows, new_group):
    """``rows`` with their ``group`` column renamed through ``new_group``."""
    group = new_group[rows[GROUP].to_numpy()] if rows.num_rows else np.zeros(0, np.int64)
    return rows.set_column(rows.column_names.index(GROUP), GROUP, pa.array(group, pa.int64()))


def merge_stats(parts, n_groups, n_pairs):
    """GroupStats of ``n_groups`` groups from ``(stats, new group of each of its groups, new pair of each
    of its kind columns)`` parts; groups with the same new number are summed."""
    def total(name, dtype):
        out = np.zeros(n_groups, dtype)
        for stats, ids, _pairs in parts:
            values = getattr(stats, name)
            if values is not None:
                np.add.at(out, ids, np.asarray(values).astype(dtype))
        return out

    def value_counts(name):
        present = [(getattr(stats, name), ids) for stats, ids, _p in parts if getattr(stats, name) is not None]
        if not present:
            return None
        return ValueCounts.merge([vc for vc, _ids in present], n_groups, [ids for _vc, ids in present])

    kinds = np.zeros((n_groups, n_pairs), np.int64)
    for stats, ids, pair_ids in parts:
        for column, pair in enumerate(pair_ids):
            np.add.at(kinds[:, pair], ids, stats.kinds[:, column])
    with_ctime = all(stats.n_expired is not None for stats, _ids, _p in parts)
    oldest = [stats.oldest_expire_ms for stats, _ids, _p in parts if stats.oldest_expire_ms is not None]
    memory = value_counts("memory")
    return GroupStats(
        n_keys=total("n_keys", np.int64), memory=memory, rdb_bytes=value_counts("rdb_bytes"), kinds=kinds,
        n_with_ttl=total("n_with_ttl", np.int64),
        n_expired=total("n_expired", np.int64) if with_ctime else None,
        memory_with_ttl=total("memory_with_ttl", np.uint64),
        ttl_s=value_counts("ttl_s") if with_ctime else None,
        example_offsets=None, example_rows=None,
        memory_expired=total("memory_expired", np.uint64) if with_ctime else None,
        n_with_field_ttl=total("n_with_field_ttl", np.int64),
        oldest_expire_ms=min(oldest) if oldest else None,
    )
