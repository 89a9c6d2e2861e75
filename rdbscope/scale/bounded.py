"""Dumps read chunk by chunk, in bounded memory: scan in chunks, merge partial aggregates, finish with
the passes.

A run holds at most a few chunks of keys at a time: each chunk becomes a
:class:`~.partial.Partial`, and the partials are merged as they come, a few at a
time. When the dump is read, the patterns of the whole are learned from the
merged uniform sample, the chunks' patterns are mapped onto them, and every pass
finishes from the merged measures over the keys the chunks kept.
"""

import functools
import os
from dataclasses import replace

import numpy as np
import pyarrow as pa

from ..cached import cached_property
from ..keys import KeyTable
from ..keyspace.columns import KeyColumns
from ..keyspace.grouping import first_per_group
from ..keyspace.groups import PatternGroups
from ..passes import (
    PatternGroupsPass,
    PatternsPass,
    pass_options,
)
from ..passes.base import PassOutput
from ..passes.expiry_counts import CountedExpiring, Tally, places_end
from ..patterns import Thresholds, infer_patterns
from ..patterns.matching import PatternMatcher
from ..patterns.text import PLACEHOLDER, delimiter, segments
from ..rdb import KEYS_SCHEMA
from ..rules import RulesPass
from ..rules.chunk_rows import RulesPlan, merge_rule_rows
from ..sources import (
    SOURCE_FIELD,
    check_one_cluster,
    is_local,
    scanning,
    without_password,
)
from .ahead import read_ahead
from .chunks import partial_of_tables
from .partial import (
    GROUP,
    KEY,
    ROW,
    Plan,
    merge,
    merge_group_measures,
    merge_stats,
    renumber_rows,
    shift_rows,
)
from .planning import splits_one_dump
from .progress import WorkerProgress, stretch_progress

#: Keys the chunks may keep for the rules' candidates (all rules together), at the least: more when
#: a chunk holds more keys.
MIN_RULE_ROWS = 200_000


#: Keys per chunk when no budget says otherwise (about 1 GB of working memory).
DEFAULT_CHUNK_KEYS = 1_000_000


def plan_for(config, sample_keys=None, spill_dir=None, rule_rows=None, passes=(), threads=1):
    """The :class:`Plan` of chunks analysed with ``config``; ``spill_dir``: see :class:`Plan`;
    ``rule_rows``: the rule candidates kept at most (see :class:`~rdbscope.rules.chunk_rows.RulesPlan`), None: no rules;
    ``passes``: the passes that run (those with a chunk contract measure every chunk; those with
    ``kept_rows`` name the keys to keep); ``threads``: chunks measured at once."""
    rules = None
    if rule_rows is not None:
        enabled = tuple((rule, options) for rule, options in RulesPass.configure(config).enabled if rule.bounded)
        rules = RulesPlan(enabled, max(rule_rows, MIN_RULE_ROWS))
    with_options = [(pass_class, pass_options(pass_class, config)) for pass_class in passes
                    if pass_class is not RulesPass]
    plan = Plan(n_examples=pass_options(PatternsPass, config).n_examples, spill_dir=spill_dir, rules=rules,
                measured=tuple((p, options) for p, options in with_options if hasattr(p, "measure")),
                grouped=tuple((p, options) for p, options in with_options if hasattr(p, "measure_groups")),
                kept=tuple((p, options) for p, options in with_options if hasattr(p, "kept_rows")),
                threads=threads)
    return plan if sample_keys is None else replace(plan, sample_keys=sample_keys)


def partial_of_source(source, plan, chunk_keys=DEFAULT_CHUNK_KEYS, salt=0, measured_as=None, summarize=False,
                      share=(0, 1), log_keys=False, **scan_options):
    """Scan one dump chunk by chunk into one merged :class:`Partial`.

    ``measured_as``: the DumpInfo whose ctime the remaining TTLs are measured at (default: the
    dump's own; several dumps are all measured at the first one's, as a table of several is).

    ``share``: ``(j, n)`` measures only the chunks that start in the ``j``-th of ``n`` stretches of
    the dump (see :func:`share_bounds`): the chunks before it are only read past (where a chunk
    starts is known only once the chunks before it are read), and the scan stops after it; the
    partials of the ``n`` shares merge into the partial of the whole. The last share, which reads
    the dump to its end, checks the checksum and has the dump's whole info.

    ``log_keys``: spill the expiring keys even from a plain dump file (which the keys are otherwise
    read again from, for the few that a report shows): for a process whose files the caller cannot read.

    Returns ``(partial, info, summary)``: the dump's :class:`~rdbscope.DumpInfo` and, when
    ``summarize``, its :class:`~rdbscope.sources.SourceSummary` (summed over its chunks; else None).
    """
    mine, shares = share
    if shares > 1:
        size = os.path.getsize(source)
        bounds = share_bounds(size, shares)
        low, high = bounds[mine], bounds[mine + 1]
        scan_options = {**scan_options, "read_past": lambda _batch, offset: not low <= offset < high,
                        "on_progress": stretch_progress(scan_options.get("on_progress"), low, high)}
        if mine < shares - 1:
            scan_options["verify_crc"] = False
    with scanning(source, batch_rows=chunk_keys, **scan_options) as result:
        tables = read_ahead(pa.Table.from_batches([batch], schema=KEYS_SCHEMA) if isinstance(batch, pa.RecordBatch)
                            else batch for batch in result)
        try:
            rereadable = None if log_keys or not isinstance(source, (str, os.PathLike)) or not is_local(source) \
                else source
            done = partial_of_tables(tables, result, plan, salt, measured_as, summarize, stop_when_past=shares > 1,
                                     dump=rereadable, name=without_password(source)
                                     if isinstance(source, (str, os.PathLike)) else None)
        finally:
            tables.close()
    return done


#: What reading past a key costs, as a share of measuring it (on the VM of bench/README.md: about 30 ns,
#: and 10 of checksum, of 330): it sets how much more of the dump the first shares measure (see
#: :func:`share_bounds`).
READ_PAST_COST = 0.12


def share_bounds(size, shares, read_past_cost=READ_PAST_COST):
    """Where each of ``shares`` stretches of a dump of ``size`` bytes begins, and where the last ends
    (no chunk starts there: a dump ends with its EOF opcode and checksum): each process reads past
    the stretches before its own, so the first ones are longer, for every process to work about as
    long (stretch ``j``: the time of the first, less what reading past the ``j`` before it takes)."""
    r = read_past_cost
    first = r / (1 - (1 - r) ** shares)
    return [round(size * first * (1 - (1 - r) ** j) / r) for j in range(shares)] + [size]


def _share_task(share, source, plan, chunk_keys, scan_options):
    return partial_of_source(source, plan, chunk_keys, share=share, **scan_options)


def partial_of_dump_on_processes(source, plan, chunk_keys, jobs, **scan_options):
    """:func:`partial_of_source` of one dump on ``jobs`` processes, each measuring a stretch of it (and
    reading past the stretches before), their partials merged: the same partial, sooner."""
    from .executors import map_sources

    task = functools.partial(_share_task, source=os.path.abspath(source), plan=plan, chunk_keys=chunk_keys,
                             scan_options=_for_workers(scan_options))
    done = map_sources(task, [(j, jobs) for j in range(jobs)], jobs=jobs, on_progress=scan_options.get("on_progress"))
    partial = merge([part for part, _info, _summary in done], plan.sample_keys)
    return partial, done[-1][1], None  # the last share read the dump to its end


def _for_workers(scan_options):
    """The scan options a worker process gets: in place of the progress callback, which draws here, one
    that writes what the worker has read where this process reads it (see :mod:`.progress`)."""
    options = {k: v for k, v in scan_options.items() if k != "on_progress"}
    if scan_options.get("on_progress") is not None:
        options["on_progress"] = WorkerProgress()
    return options


def partial_of_sources(paths, plan, chunk_keys=DEFAULT_CHUNK_KEYS, *, jobs=1, client=None, **scan_options):
    """:func:`partial_of_source` of several dumps, merged in order; their rows are numbered on
    from one dump to the next. Returns ``(partial, infos, summaries)``.

    With ``jobs`` > 1 or a Dask ``client``, each dump is read by a worker (see
    :func:`~.executors.map_sources`), which returns its partial aggregate, never its keys.
    """
    task = functools.partial(_source_task, plan=plan, chunk_keys=chunk_keys, summarize=len(paths) > 1)
    items = list(enumerate(paths))
    if len(paths) > 1 and (client is not None or (jobs or 1) > 1):
        from .executors import map_sources

        # the workers start together: each needs the first dump's ctime before that dump is read
        task = functools.partial(task, measured_as=header_info(paths[0]),
                                 scan_options=_for_workers(scan_options), inline=client is not None)
        land = functools.partial(_landed, directory=plan.spill_dir) if plan.spill_dir is not None else None
        done = map_sources(task, items, jobs=jobs, client=client, then=land,
                           on_progress=scan_options.get("on_progress"))
    else:
        done = []
        for item in items:
            done.append(task(item, measured_as=done[0][1] if done else None, scan_options=scan_options))
    total, infos, summaries = None, [], []
    for (_salt, path), (part, info, summary) in zip(items, done, strict=True):
        if total is not None:
            part = shift_rows(part, total.n_keys, places_end(total.spilled))
        total = part if total is None else merge([total, part], plan.sample_keys)
        infos.append(info)
        summaries.append(replace(summary, path=str(path)) if summary is not None else None)
    return total, infos, summaries


def _source_task(item, plan, chunk_keys, measured_as, summarize, scan_options, inline=False):
    """:func:`partial_of_source` of one of several dumps; ``inline``: its spilled expiry tallies travel
    in the partial (a Dask worker's disk may be another machine's)."""
    salt, path = item
    partial, info, summary = partial_of_source(path, plan, chunk_keys, salt=salt, measured_as=measured_as,
                                               summarize=summarize, log_keys=inline, **scan_options)
    if inline:
        partial = replace(partial, spilled=tuple(segment.inline() for segment in partial.spilled))
    return partial, info, summary


def _landed(done, directory):
    """A worker's ``(partial, info, summary)`` with its inlined spill written to ``directory`` here."""
    partial, info, summary = done
    return replace(partial, spilled=tuple(s.landed(directory) for s in partial.spilled)), info, summary


def header_info(path):
    """The :class:`~rdbscope.DumpInfo` of a dump's header (AUX fields such as ctime), read alone."""
    with scanning(path, batch_rows=1) as result:
        next(iter(result), None)
    return result.info


def bounded_keys(source, plan, chunk_keys, scan_options, jobs=1, client=None, combine=False):
    """What a bounded run of ``source`` (a dump, or several) hands the pipeline (see :func:`finish`).

    Several dumps that are not the nodes of one cluster are refused unless ``combine`` (see
    :func:`~rdbscope.sources.check_one_cluster`)."""
    from ..sources import input_paths
    from .streams import Overflow

    if isinstance(source, Overflow):  # a stream, part read
        partial, info, _summary = partial_of_tables(source.tables(), source.result, plan)
        return finish(partial, info, plan, threads=jobs)
    if isinstance(source, KeyTable):
        from .tables import partial_of_keys

        partial = partial_of_keys(source, plan, chunk_keys)
        return finish(partial, source.info, plan, source.sources if source.n_sources > 1 else None, threads=jobs)
    if isinstance(source, (str, os.PathLike)) and os.path.isfile(source):
        paths = [source]
    else:
        paths = input_paths(source)
    if splits_one_dump(paths, jobs or 1, client):
        partial, info, _summary = partial_of_dump_on_processes(paths[0], plan, chunk_keys, jobs, **scan_options)
        return finish(partial, info, plan, threads=jobs)
    if len(paths) > 1 and plan.rules is not None:
        plan = replace(plan, rules=replace(plan.rules, several_sources=True))
    partial, infos, summaries = partial_of_sources(paths, plan, chunk_keys, jobs=jobs, client=client,
                                                   **scan_options)
    if not combine:
        check_one_cluster(summaries)
    return finish(partial, infos[0], plan, summaries if len(paths) > 1 else None, threads=jobs)


def finish(partial, info, plan, summaries=None, threads=1):
    """The pass outputs a bounded run gives to the pipeline: ``(keys, columns, given, measures)``.

    ``threads``: how many of the spilled expiry partitions are counted at once.

    ``keys`` holds the kept keys (with ``pattern``), ``columns`` reads them with the totals
    of all keys, ``given`` is the pattern groups with their merged measures, ``measures`` the merged
    measures of the passes with a chunk contract. With the
    ``summaries`` of several dumps, ``keys`` has their ``source`` column and summaries.
    """
    mapped = _global_patterns(partial)
    final = sorted(set(mapped))
    number = {g: i for i, g in enumerate(final)}
    new_group = np.array([number[g] for g in mapped], np.int64)
    stats = merge_stats([(partial.stats, new_group, list(range(len(partial.pairs))))], len(final),
                        len(partial.pairs))
    rows = renumber_rows(partial.rows, new_group)
    rows = rows.take(pa.array(np.argsort(rows[ROW].to_numpy(), kind="stable"), pa.int64()))
    group = rows[GROUP].to_numpy()
    examples = first_per_group(group, len(final), plan.n_examples)
    examples = examples[np.argsort(group[examples], kind="stable")]  # grouped, each group's rows ascending
    offsets = np.concatenate(([0], np.cumsum(np.bincount(group[examples], minlength=len(final)))))
    stats = replace(stats, example_offsets=offsets.astype(np.int64), example_rows=examples.astype(np.int64))
    db = np.array([d for d, _p in final], np.int32)
    patterns = tuple(p for _d, p in final)
    groups = PatternGroups(group=group, db=db, pattern=patterns, n_keys=stats.n_keys, stats=stats)
    table = rows.select(KEYS_SCHEMA.names)
    if SOURCE_FIELD.name in rows.column_names:  # a table of several dumps, in memory
        table = table.append_column(SOURCE_FIELD, rows[SOURCE_FIELD.name])
    elif summaries is not None:
        starts = np.cumsum([s.n_keys for s in summaries])
        source = np.searchsorted(starts, rows[ROW].to_numpy(), side="right").astype(np.int16)
        dictionary = pa.array([s.path for s in summaries], pa.string())
        table = table.append_column(SOURCE_FIELD, pa.DictionaryArray.from_arrays(pa.array(source, pa.int16()),
                                                                                 dictionary))
    pattern_column = pa.DictionaryArray.from_arrays(pa.array(group.astype(np.int32), pa.int32()),
                                                    pa.array(patterns, pa.string()))
    columns = KeptColumns(table, info, partial)
    if partial.key_groups:
        columns.every_key = EveryKey(_group_of_every_key(partial, new_group), rows[ROW].to_numpy())
    if partial.rules is not None:
        columns.rule_rows = merge_rule_rows([partial.rules], [new_group], len(final))
    index = {pair: i for i, pair in enumerate(partial.groups)}
    group_of = [new_group[np.array([index[pair] for pair in segment.groups], np.int64)]
                for segment in partial.spilled]
    spilled_seconds = [(segment.seconds, groups) for segment, groups in zip(partial.spilled, group_of, strict=True)]
    seconds = Tally.merge(spilled_seconds)
    columns.expiring = CountedExpiring(seconds, partial.spilled, group_of, columns.ctime_ms, len(final),
                                       threads=threads or 1)
    given = {PatternGroupsPass.id: PassOutput(columns={"pattern": pattern_column}, shared=groups)}
    measures = {**partial.measures, **merge_group_measures([(partial.group_measures, new_group)], len(final))}
    return KeyTable(table, info, summaries), columns, given, measures


def _group_of_every_key(partial, new_group):
    """The final group of every key of a partial that kept each key's group (see ``Plan.key_groups``)."""
    final = {pair: new_group[g] for g, pair in enumerate(partial.groups)}
    group = np.empty(partial.n_keys, np.int64)
    for first, chunk_group, pairs in partial.key_groups:
        of_pair = np.array([final[pair] for pair in pairs] or [0], np.int64)
        group[first:first + len(chunk_group)] = of_pair[chunk_group]
    return group


class EveryKey:
    """Of a run that kept each key's group: the final group of every key (``group``), and the row among
    all keys of each kept key (``rows``)."""

    def __init__(self, group, rows):
        self.group = group
        self.rows = rows


def _global_patterns(partial):
    """The (db, pattern) of the whole dump for each group of ``partial``.

    A chunk's pattern maps to the learned pattern that covers it. A pattern no learned one covers
    (too rare to be sampled) stands for its keys when it has a placeholder and more than one key: a
    chunk that held many of them inferred it, and the literal patterns other chunks found for fewer
    such keys map onto it (as do those a more specific one covers). What is left, literal and
    covered by nothing, is inferred again, in a further round, from the keys kept of it (each group
    keeps its first keys of every chunk), beside the kept keys of the flat patterns (``{*}``).
    """
    learned = _learned_patterns(partial.sample)
    return _rare_ids_any(_mapped_patterns(partial, learned), learned, partial)


def _rare_ids_any(mapped, learned, partial):
    """``mapped`` with the random ids of the families the sample did not learn shown as ``{*}``.

    Whether random ids are typed ``{b64}`` or ``{*}`` (url-safe ids holding ``-`` or ``_``), and split
    at such a character or not, depends on how many of them the inference sees together: the keys a
    chunk holds, which no longer say anything once the sample is smaller than the dump. A segment
    holding ``{b64}`` in a pattern inferred from chunks is then the one variable ``{*}``, whatever the
    chunking."""
    if partial.sample.num_rows >= partial.n_keys:  # the whole keyspace was learned: its own patterns
        return mapped
    return [(db, pattern if pattern in learned.learned or B64 not in pattern else _b64_segments_any(pattern))
            for db, pattern in mapped]


B64 = "{b64}"


def _b64_segments_any(pattern):
    cut = delimiter(pattern)
    parts = segments(pattern)
    shown = [("{{*}}" if part.startswith("{{") else "{*}") if B64 in part else part for part in parts]
    return cut.join(shown) if cut else shown[0]


def _mapped_patterns(partial, learned):
    """The learned or chunk-inferred (db, pattern) of each group of ``partial`` (see :func:`_global_patterns`)."""
    mapped = [(db, learned.map(pattern)) for db, pattern in partial.groups]
    whole = partial.sample.num_rows >= partial.n_keys
    if not whole:
        # a number constant in a family the sample missed shows as such only in a chunk that held ten of its
        # keys: it stays {id}, whatever the chunking
        mapped = [(db, pattern if pattern in learned.learned else partial.unwritten.get(pattern, pattern))
                  for db, pattern in mapped]
    by_chunks = PatternMatcher(pattern for g, (_db, pattern) in enumerate(mapped)
                               if pattern not in learned.learned and PLACEHOLDER.search(pattern)
                               and partial.stats.n_keys[g] >= MIN_SAMPLED_KEYS)
    mapped = [(db, pattern if pattern in learned.learned else
               by_chunks.narrower(pattern) if pattern in by_chunks.learned else by_chunks.map(pattern))
              for db, pattern in mapped]
    unmatched = np.array([pattern not in learned.learned and pattern not in by_chunks.learned
                          for _db, pattern in mapped], bool)
    if not unmatched.any():
        return mapped
    # the keys of the flat patterns learned (``{*}``, which covers no other pattern) are inferred again
    # beside them: a flat key a chunk saw alone joins the keys like it, as in one chunk
    flat = np.array([not PLACEHOLDER.sub("", pattern).strip() for _db, pattern in mapped], bool)
    group = partial.rows[GROUP].to_numpy()
    rows = np.flatnonzero((unmatched | flat)[group])
    thresholds = Thresholds() if whole else Thresholds(constant_min_keys=NEVER)
    inferred = infer_patterns(partial.rows[KEY].take(pa.array(rows, pa.int64())), thresholds)
    if isinstance(inferred, pa.ChunkedArray):
        inferred = inferred.combine_chunks()
    again = inferred.dictionary.to_pylist()
    codes = inferred.indices.to_numpy(zero_copy_only=False)
    first = {}
    for g, code in zip(group[rows].tolist(), codes.tolist(), strict=True):
        first.setdefault(g, again[code])
    return [(db, first.get(g, pattern)) if unmatched[g] else (db, pattern)
            for g, (db, pattern) in enumerate(mapped)]


NEVER = 1 << 62

#: Sampled keys a learned pattern needs: one key's pattern is its literal text, which says nothing of
#: the keys like it (they are inferred together in the further round instead).
MIN_SAMPLED_KEYS = 2


def _learned_patterns(sample):
    """A :class:`PatternMatcher` of the patterns inferred from the sampled keys."""
    if sample.num_rows == 0:
        return PatternMatcher(())
    inferred = infer_patterns(sample[KEY])
    if isinstance(inferred, pa.ChunkedArray):
        inferred = inferred.combine_chunks()
    sampled = np.bincount(inferred.indices.to_numpy(zero_copy_only=False), minlength=len(inferred.dictionary))
    names = inferred.dictionary.to_pylist()
    return PatternMatcher([names[i] for i in np.flatnonzero(sampled >= MIN_SAMPLED_KEYS)])


class KeptColumns(KeyColumns):
    """The columns of the keys a bounded run kept, with the totals of all the keys it read."""

    def __init__(self, table, info, partial):
        super().__init__(table, info)
        self._partial = partial
        #: the merged :class:`~rdbscope.rules.chunk_rows.RuleRows`, when the chunks measured for the rules
        self.rule_rows = None
        #: the :class:`EveryKey` of a table in memory (None for dumps)
        self.every_key = None

    @property
    def type_totals(self):
        return self._partial.type_totals

    @property
    def ttl_buckets(self):
        return self._partial.ttl_buckets

    def _per_slot(self, name):
        if self.rule_rows is None:
            raise RuntimeError(f"{name} of a bounded run is counted only for the rules")
        return getattr(self.rule_rows, name)

    slot_keys = property(lambda self: self._per_slot("slot_keys"))
    slot_memory = property(lambda self: self._per_slot("slot_memory"))
    slot_with_ttl = property(lambda self: self._per_slot("slot_with_ttl"))

    @property
    def n_keys(self):
        return self._partial.n_keys

    @cached_property
    def memory_total(self):
        return self._partial.memory_total

    @cached_property
    def memory_basis(self):
        return "est_memory_bytes" if self._partial.has_estimates else "rdb_bytes"

    @cached_property
    def type_encodings(self):
        """Codes of the kept keys into the (type, encoding) pairs of all the keys."""
        pairs = self._partial.pairs
        index = {p: i for i, p in enumerate(pairs)}
        type_codes, type_names = self.types
        encoding_codes, encoding_names = self.encodings
        codes = np.array([index[(type_names[t], encoding_names[e])] for t, e in zip(type_codes.tolist(),
                                                                                encoding_codes.tolist(),
                                                                                strict=True)], np.int16)
        return codes, pairs
