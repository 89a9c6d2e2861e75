"""The calls front ends make: ``load()`` a dump, ``analyze()`` or ``lint()`` it.

Both run one pipeline: the analysis passes and the rules pass in dependency order,
then the findings the config enables. ``lint`` is ``analyze`` with lint's default
selection and without the pattern tables it does not report.
"""

import dataclasses
import functools
import os
import time
from types import MappingProxyType

import numpy as np
import pyarrow as pa

from .codes import CODES
from .config import Config, load_config
from .findings import sort_findings
from .keys import KeyTable, load
from .keyspace.columns import KeyColumns, memory_basis
from .keyspace.groups import PatternGroups
from .passes import PASSES, PatternGroupsPass, dependency_order, run_passes
from .passes.values import ValuesPass
from .result import Result
from .rules import FAMILIES, RulesPass
from .rules.context import RuleContext
from .rules.rules_pass import run_rules, several_sources
from .rules.settings import RuleSettings

__all__ = ["load", "analyze", "lint", "PIPELINE"]

#: Every pass of the pipeline, the rules last.
PIPELINE = (*PASSES, RulesPass)


def analyze(keys, config=None, *, passes=None, memory_budget=None, chunk_keys=None, jobs=1, client=None,
            combine=False, values=True, **scan_options) -> Result:
    """Run the analysis passes and the lint rules over a :class:`~rdbscope.KeyTable`, or over dumps.

    Every run is one engine: the keys are measured chunk by chunk, the measures merged, and the passes
    finish from the merged measures; the chunking does not change the answers.

    Args:
        keys: what :func:`load` returned (measured in chunks of its rows; the result's ``keys`` is
            that table, each key with its pattern), or what it reads: a dump's path or URL (``"-"``,
            a live server, a compressed dump too), or several dumps (a list, a directory, a glob) read
            as one keyspace; dumps are read chunk by chunk (see :func:`~rdbscope.scale.planning.plan_run`).
            Or the :class:`~rdbscope.scale.planning.RunPlan` that ``plan_run`` made of them: inputs
            expanded and sizes read once (its budget, chunking and processes then hold, not the
            arguments here).
        config: a :class:`~rdbscope.config.Config`, the path of an ``rdbscope.toml``
            or ``pyproject.toml``, or None for the defaults.
        passes: ids of the passes to run (the ones they require run too);
            default: all of them, and the lint rules (id ``"rules"``).
        memory_budget: for dumps given by path, the memory the analysis may use (bytes or
            text such as ``"2GB"``); default: 1 GB, at most half the available memory. It sets
            the chunks' size; the result's ``bounded`` is True and its ``keys`` hold only the keys
            the tables and findings name. A check that needs every key in memory (``GRO001``)
            reads dumps that fit the budget whole, and is listed in ``skipped`` for larger ones.
        chunk_keys: keys per chunk (default: from the budget), of dumps or of a table; for dumps,
            giving it keeps them chunked even when GRO001 would read them whole.
        jobs, client: in a bounded run, read several dumps on ``jobs`` local processes, or
            on the workers of a ``dask.distributed.Client``, each returning its dump's partial
            aggregate; one large dump is measured on ``jobs`` processes, each taking every
            ``jobs``-th chunk. The budget is shared among the processes.
        combine: read several dumps as one keyspace even when they are not the nodes of one
            cluster (see :func:`load`).
        values: read a bounded sample of each pattern's values again from the dump (the ``values``
            pass); False reads no value.
        scan_options: for dumps given by path, the options of :func:`rdbscope.scan`.

    Raises:
        ConfigError: the config file or an option in it is invalid.
        InputError, RdbError: as :func:`load`.
    """
    from .scale.planning import RunPlan, plan_run

    config = _as_config(config)
    if not values:
        passes = [p for p in (passes if passes is not None else [p.id for p in PIPELINE]) if p != ValuesPass.id]
    if isinstance(keys, KeyTable):
        from .scale import budget

        limit = budget.budget_of(memory_budget)
        threads = budget.measure_threads()
        return _run_table(keys, config, passes, chunk_keys or budget.chunk_keys_for(limit, 1, threads),
                          budget.sample_keys_for(limit), threads, limit)
    if not isinstance(keys, (str, os.PathLike, list, tuple, RunPlan)):
        raise TypeError(f"expected a KeyTable (from rdbscope.load) or the path of a dump, "
                        f"got {type(keys).__name__}")
    plan = keys if isinstance(keys, RunPlan) else \
        plan_run(keys, memory_budget, chunk_keys, jobs, client, every_key=needs_every_key(config, passes))
    return _run_plan(plan, config, passes, client, combine, scan_options)


def _run_plan(plan, config, passes, client, combine, scan_options):
    """:func:`analyze` of the inputs a :class:`~rdbscope.scale.planning.RunPlan` names, as it says."""
    from .keys import join_tables, load_one
    from .scale.planning import STREAM, TABLE

    source = plan.source
    in_memory = functools.partial(_run_table, config=config, wanted=passes, chunk_keys=plan.chunk_keys,
                                  sample_keys=plan.sample_keys, threads=plan.threads, budget=plan.budget)
    if plan.mode == TABLE:
        if client is not None:
            from .scale.executors import load_on

            tables = load_on(client, plan.paths, **scan_options)
        else:
            tables = [load_one(path, **scan_options) for path in plan.paths]
        return in_memory(tables[0] if len(tables) == 1 else join_tables(tables, list(plan.paths), any_dumps=combine))
    if plan.mode == STREAM:
        from .scale.streams import read_within

        held, overflow = read_within(source, plan.in_memory_up_to, plan.chunk_keys, **scan_options)
        if overflow is None:
            return in_memory(held)
        return _run_bounded(overflow, config, passes, plan.chunk_keys, plan.sample_keys, threads=plan.threads,
                            budget=plan.budget)
    return _run_bounded(source, config, passes, plan.chunk_keys, plan.sample_keys, scan_options, jobs=plan.jobs,
                        client=client, combine=combine, threads=plan.threads, budget=plan.budget)


def needs_every_key(config, passes=None):
    """True when a run of ``passes`` (default: all) with ``config`` holds a check that needs every key in
    memory (GRO001): dumps that fit the budget are then read whole."""
    wanted = [p.id for p in dependency_order(PIPELINE, passes)]
    if RulesPass.id not in wanted:
        return False
    return any(not rule.bounded for rule, _options in RulesPass.configure(_as_config(config)).enabled)


def lint(keys, config=None, **options) -> Result:
    """:func:`analyze` with lint's selection: the lint rules, and analysis codes only when selected.

    Without a ``select`` of its own, the config selects the rule families (NAM, CLU, ENC);
    ``extend_select = ["TTL002"]`` adds an analysis code. Only the passes whose codes are
    selected run (and what they require), so the result holds no pattern tables unless
    an analysis code needs them. ``keys`` and ``options`` are :func:`analyze`'s (a dump over
    ``memory_budget`` is linted in bounded memory).

    Raises:
        ConfigError: the config file or an option in it is invalid.
    """
    config, wanted = lint_selection(config)
    return analyze(keys, config, passes=wanted, **options)


def lint_selection(config):
    """``(config, passes)`` of a lint run with ``config``: see :func:`lint`."""
    config = _as_config(config)
    if not config.select:
        config = dataclasses.replace(config, select=tuple(FAMILIES))
    return config, [p.id for p in PIPELINE if any(_enabled(config, check) for check in p.checks)]


def _run_bounded(source, config, wanted, chunk_keys, sample_keys, scan_options=None, jobs=1, client=None,
                 combine=False, threads=1, budget=None):
    result, _columns, _groups = _run_chunks(source, config, wanted, chunk_keys, sample_keys, scan_options, jobs,
                                            client, combine, threads=threads, budget=budget)
    return result


def _run_chunks(source, config, wanted, chunk_keys, sample_keys, scan_options=None, jobs=1, client=None,
                combine=False, rule_rows=None, threads=1, budget=None):
    """The :class:`Result` of ``source`` read chunk by chunk, with the kept keys' columns and the pattern
    groups; ``rule_rows``: the rules' candidates kept at most (default: from ``chunk_keys``); ``threads``:
    chunks measured at once; ``budget``: the run's memory budget, which the passes that finish after the
    chunks may spend (the value sample)."""
    import shutil
    import tempfile

    from .scale.bounded import bounded_keys, plan_for
    wanted_all = [p.id for p in dependency_order(PIPELINE, wanted)]
    # the expiry pass reads what the chunks spilled here when it runs, after the scan
    spill_dir = tempfile.mkdtemp(prefix="rdbscope-") if "expiry" in wanted_all else None
    plan = plan_for(config, sample_keys, spill_dir, rule_rows=(rule_rows or chunk_keys) if "rules" in wanted_all
                    else None, passes=[p for p in PIPELINE if p.id in wanted_all], threads=threads)
    started = time.perf_counter()
    try:
        keys, columns, given, measures = bounded_keys(source, plan, chunk_keys, scan_options or {}, jobs=jobs,
                                                      client=client, combine=combine)
        read = time.perf_counter() - started
        result = _run(keys, config, wanted_all, columns=columns, given=given, measures=measures, budget=budget)
    finally:
        if spill_dir is not None:
            shutil.rmtree(spill_dir, ignore_errors=True)
    groups = given[PatternGroupsPass.id].shared
    stats = groups.stats
    errors = {name: counts.relative_error for name, counts in
              (("memory", stats.memory), ("rdb_bytes", stats.rdb_bytes), ("ttl", stats.ttl_s))
              if counts is not None and counts.relative_error}
    result = dataclasses.replace(result, bounded=True, key_count=columns.n_keys,
                                 percentile_error=MappingProxyType(errors),
                                 seconds={PatternGroupsPass.id: read, **result.seconds})
    return result, columns, groups


def _run_table(keys, config, wanted, chunk_keys, sample_keys, threads=1, budget=None):
    """:func:`analyze` of a :class:`KeyTable` in memory: measured chunk by chunk as a dump is read, every
    key given its pattern; the checks that need every key (GRO001) run beside, over the whole table."""
    if not dependency_order(PIPELINE, wanted):  # a selection of no pass: nothing to measure
        return _run(keys, config, wanted)
    result, kept, groups = _run_chunks(keys, config, wanted, chunk_keys, sample_keys, rule_rows=keys.num_rows,
                                       threads=threads, budget=budget)
    every_key = kept.every_key
    table = keys.to_arrow()
    names, name_of_group = np.unique(np.array(groups.pattern, object), return_inverse=True)
    patterns = pa.DictionaryArray.from_arrays(pa.array(name_of_group[every_key.group].astype(np.int32), pa.int32()),
                                              pa.array(names.tolist(), pa.string()))
    table = _with_column(table, "pattern", patterns)
    columns = KeyColumns(table, keys.info)
    if "slot" in result.keys.to_arrow().column_names:
        table = _with_column(table, "slot", pa.array(columns.slots, pa.uint16()))
    findings, checked, skipped = list(result.finding_list), set(result.checked), result.skipped
    beside = _every_key_rules(config, skipped)
    if beside.enabled:
        stats = groups.stats
        if stats is not None:
            stats = dataclasses.replace(stats, example_rows=every_key.rows[stats.example_rows])
        whole = PatternGroups(group=every_key.group, db=groups.db, pattern=groups.pattern, n_keys=groups.n_keys,
                              stats=stats)
        context = RuleContext(columns, whole, keys.info, sources=several_sources(keys))
        found, _seconds, _not_checked = run_rules(context, beside)
        findings.extend(f for f in found if _enabled(config, CODES[f.code]))
        ran = {rule.code for rule, _options in beside.enabled}
        checked |= ran
        skipped = tuple(code for code in skipped if code not in ran)
    return dataclasses.replace(result, keys=keys.with_table(table), finding_list=tuple(sort_findings(findings)),
                               checked=tuple(sorted(checked)), skipped=skipped, bounded=False, key_count=None)


def _every_key_rules(config, skipped):
    """The rules a chunked run skipped as they need every key (GRO001; CLU005 for a slot holding more keys
    than the dump's slot record says), with their options."""
    return RuleSettings(tuple((rule, options) for rule, options in RulesPass.configure(config).enabled
                              if rule.code in skipped))


def _run(keys, config, wanted, columns=None, given=None, measures=None, budget=None):
    outputs, seconds = run_passes(keys, config, PIPELINE, wanted=wanted, columns=columns, given=given,
                                  measures=measures, memory_budget=budget)
    by_id = {p.id: p for p in PIPELINE}
    table = keys.to_arrow()
    tables, findings = {}, []
    for output in outputs.values():
        for name, array in output.columns.items():
            table = _with_column(table, name, array)
        for name, result_table in output.tables.items():
            if name in tables:
                raise ValueError(f"two passes made a table named {name!r}")
            tables[name] = result_table
        findings.extend(f for f in output.findings if _enabled(config, CODES[f.code]))
    not_checked = tuple(code for output in outputs.values() for code in output.not_checked)
    sampled = outputs.get(ValuesPass.id)
    checked = tuple(sorted(check.code for pass_id in outputs for check in by_id[pass_id].checks
                           if _enabled(config, check) and check.code not in not_checked))
    return Result(
        keys=keys.with_table(table),
        tables=tables,
        finding_list=tuple(sort_findings(findings)),
        memory_basis=columns.memory_basis if columns is not None else memory_basis(table),
        config=config,
        seconds=seconds,
        ran=tuple(outputs),
        checked=checked,
        skipped=not_checked,
        values_not_read=sampled.shared.not_read if sampled is not None else None,
        value_samples=_value_samples(sampled, outputs),
    )


def _value_samples(sampled, outputs):
    """``{(db, pattern): samples}`` of the values pass's output (empty when it did not run)."""
    if sampled is None:
        return MappingProxyType({})
    groups = outputs[PatternGroupsPass.id].shared
    return MappingProxyType({(int(db), pattern): samples for db, pattern, samples
                             in zip(groups.db.tolist(), groups.pattern, sampled.shared.by_group, strict=True)
                             if samples})


def _enabled(config, check):
    return config.is_enabled(check.code, opt_in=not check.default)


def _as_config(config):
    if config is None:
        return Config()
    if isinstance(config, (str, os.PathLike)):
        return load_config(config)
    return config


def _with_column(table, name, array):
    if isinstance(array, pa.Array):
        array = pa.chunked_array([array])
    if name in table.column_names:
        return table.set_column(table.column_names.index(name), name, array)
    return table.append_column(name, array)
