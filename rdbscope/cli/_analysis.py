"""Read a command's input and analyse it, showing each stage on stderr."""

import contextlib
import errno
import os

import typer
from typer._click.exceptions import UsageError  # typer's own click

from ..errors import InputError
from ..sizes import format_size
from ._console import exits_on_bad_input, message, scan_progress, waiting_for
from ._options import Format, LoadOptions, takes_load_options, takes_output_options


def analysis_command(*, top=20, formats=(Format.table, Format.json, Format.csv)):
    """What a command that analyses its input is given: the loading options, --format (``formats``,
    table/json/csv by default), --top (``top`` by default), --csv-safe, --fail-on and --config; bad input
    exits 2 on one line."""
    def decorate(command):
        with_options = takes_output_options(*formats, top=top)(command)
        return exits_on_bad_input(takes_load_options(budget=True, values=True)(with_options))

    return decorate


def settings(config_path=None, select=None, extend_select=None, ignore=None, extra=()):
    """The Config of every command: ``--config``, else the nearest rdbscope.toml or
    pyproject.toml with [tool.rdbscope], changed by --select/--extend-select/--ignore.

    Every option in it is checked as it is read, before any dump is."""
    from ..config import load_config
    from ._selection import with_selection

    return with_selection(load_config(config_path), select, extend_select, ignore, extra)


def check_writable(path, option, *, directory=False):
    """Exit 2 unless ``path`` can be written (a file, or with ``directory`` a directory made if need be).

    Checked before the scan, so that a typo does not cost the whole analysis.
    """
    if path is None:
        return
    path = path.absolute()
    if directory:
        existing = next(p for p in (path, *path.parents) if p.exists())
        if existing == path and not path.is_dir():
            raise typer.BadParameter(f"{path} is a file, not a directory", param_hint=option)
    else:
        if path.is_dir():
            raise typer.BadParameter(f"{path} is a directory", param_hint=option)
        existing = path.parent
        if not existing.is_dir():
            raise typer.BadParameter(f"no directory {existing}", param_hint=option)
    if not os.access(existing, os.W_OK | os.X_OK) or not existing.is_dir():
        raise typer.BadParameter(f"cannot write in {existing}", param_hint=option)
    import tempfile

    try:  # what the access bits do not tell: root ignores them, /proc or a read-only mount refuse
        tempfile.TemporaryFile(dir=existing).close()
    except OSError as exc:
        raise typer.BadParameter(f"cannot write in {existing} ({exc.strerror or exc})", param_hint=option) from None


@contextlib.contextmanager
def where_to_run(parallel):
    """The ``jobs``/``client`` pair the analysis takes for ``parallel`` (a ParallelOptions): with
    --dask, a client of that cluster (one clear line and exit 2 when it cannot be had), closed after; and
    whether to ``combine`` dumps that are not one cluster's nodes."""
    if parallel.dask is None:
        yield {"jobs": parallel.jobs, "client": None, "combine": parallel.combine}
        return
    from ..scale.executors import connect

    with connect(parallel.dask) as client:
        yield {"jobs": parallel.jobs, "client": client, "combine": parallel.combine}


def input_name(keys):
    """What a report calls its input: the dump's file name, a running server's URL without its password
    (``redis://reader@10.0.0.5:6379``), or how many dumps for several."""
    from ..sources import is_live, without_password

    if keys.n_sources > 1:
        return f"{keys.n_sources} dumps"
    if not keys.info.path:
        return None
    path = str(keys.info.path)
    return without_password(path) if is_live(path) else os.path.basename(path)


def nothing_kept(info, load):
    """The usage error of filters that kept no key: nothing to analyse. It says what the dump has instead."""
    parts = []
    if load.types:
        parts.append("of type " + " or ".join(load.types))
    if load.match is not None:
        parts.append(f"matching {load.match!r}")
    if load.db:
        parts.append("in db " + ", ".join(map(str, load.db)))
    said = f"no keys {' '.join(parts)}"
    dbs = sorted(info.resizedb)
    if dbs:
        from ..findings import count

        in_dbs = f"{'db' if len(dbs) == 1 else 'dbs'} {', '.join(map(str, dbs))}"
        keys = sum(n_keys for n_keys, _expires in info.resizedb.values())
        said += f"; the dump has {in_dbs}" if load.db else f"; the dump has {count(keys, 'key')} in {in_dbs}"
    return UsageError(said)


def analyze_input(path, config, *, passes=None, load=None, jobs=1, client=None, combine=False, every_key=False):
    """Analyse ``path`` (one input or several, see :func:`load_keys`) with the passes (all, or ``passes``
    and what they need) and ``config`` (see :func:`settings`), planned once (see
    :func:`~rdbscope.scale.planning.plan_run`): chunk by chunk within ``--memory-budget``, several dumps
    on ``jobs`` processes or the ``client``'s Dask workers, each returning its partial aggregate.
    ``every_key``: the caller needs every key (``report --out --keys``), as GRO001 does: dumps that fit
    the budget are read whole."""
    from ..api import needs_every_key
    from ..scale.planning import plan_run

    load = (load or LoadOptions()).with_config(config)
    plan = plan_run(_input(path), load.memory_budget, jobs=jobs, client=client,
                    every_key=every_key or needs_every_key(config, passes))
    load = with_url_db(load, plan.paths)
    with _out_of_memory(plan.paths, load):
        return _analyze_plan(plan, config, passes, load, client, combine)


@contextlib.contextmanager
def _out_of_memory(paths, load):
    """Turn an allocation that failed (MemoryError, ENOMEM) into one line naming the dump and the budget: the
    process may have less memory than the budget assumes (a container's limit, ``ulimit -v``)."""
    try:
        yield
    except (MemoryError, OSError) as exc:
        if isinstance(exc, OSError) and exc.errno != errno.ENOMEM:
            raise
        budget = f"the{'' if load.memory_budget is None else ' given'} memory budget of {format_size(_budget(load))}"
        raise InputError(f"{_label(paths)}: out of memory within {budget} "
                         "(this process may have less: a container's limit, ulimit -v): give a smaller "
                         "--memory-budget") from None


def _analyze_plan(plan, config, passes, load, client, combine):
    from ..api import analyze
    from ..scale.planning import STREAM

    waiting = waiting_for(plan.paths[0]) if len(plan.paths) == 1 else None
    with scan_progress(load.quiet, f"reading {_label(plan.paths)}", waiting) as on_progress:
        res = analyze(plan, config=config, passes=passes, client=client, combine=combine, on_progress=on_progress,
                      values=not load.no_values, **load.scan_options())
    if plan.peak is not None:
        needed = f"about {format_size(plan.peak)}"
    elif plan.mode == STREAM:  # read in memory until it outgrew the budget
        needed = f"more than {format_size(plan.budget)}"
    else:
        needed = "an amount known only once they are read"
    return _checked(res, load, plan.budget, needed)


def _label(paths):
    """What a message calls the dumps ``paths``: one's name, or how many."""
    from ..sources import shown_name

    return shown_name(paths[0]) if len(paths) == 1 else f"{len(paths)} dumps"


def with_url_db(load, paths):
    """``load`` with the db a server's URL names (``redis://host:6379/2``) as its --db: the keys of the other
    dbs are left out (the scan does so), and a db without keys is the usage error --db gives."""
    from dataclasses import replace

    from ..rdb.replication import url_db
    from ..sources import is_live

    named = url_db(paths[0]) if len(paths) == 1 and is_live(paths[0]) else None
    return replace(load, db=(named,)) if named is not None and not load.db else load


def _checked(res, load, limit, needed):
    """``res`` of a chunked run (within ``limit``), once it is known to hold keys; says on stderr what it
    left out (the checks that need every key in memory, ``needed``) and rounded."""
    if load.filtered and res.n_keys == 0:
        raise nothing_kept(res.info, load)
    if res.bounded and res.skipped and not load.quiet:
        message(f"note: not run: {', '.join(res.skipped)} (they need every key in memory, {needed}, more than "
                f"the memory budget of {format_size(limit)})")
    if res.values_not_read and not load.quiet:
        message(f"note: no value sample: {res.values_not_read}")
    if res.percentile_error and not load.quiet:
        said = ", ".join(f"{name} up to {error:.1%}" for name, error in res.percentile_error.items())
        message(f"note: too many distinct values to count each one: percentiles are rounded down ({said})")
    return res


def _budget(load):
    from ..scale.budget import budget_of

    return budget_of(load.memory_budget)


def _input(path):
    """``path`` as :func:`rdbscope.sources.input_paths` takes it: several as a list, a single one checked
    to be one dump."""
    from ..sources import check_dump

    return list(path) if isinstance(path, (list, tuple)) else [check_dump(path)]


def exit_for_findings(findings, fail_on, families=None):
    """Exit with code 1 when a finding (of ``families``, if given) is at or above ``fail_on``."""
    from ..findings import count
    from ..report.views import findings_at_or_above

    if fail_on is None or fail_on.value == "never":
        return
    failing = findings_at_or_above(findings, fail_on.value, families)
    if failing:
        message(f"{count(len(failing), 'finding')} at or above {fail_on.value}")
        raise typer.Exit(1)
