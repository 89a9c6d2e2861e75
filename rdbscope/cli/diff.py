"""rdbscope diff: what changed between two dumps or two reports."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer

from ._analysis import analysis_command, analyze_input, settings
from ._console import message
from ._formats import emit, print_renderable, records, write_json
from ._options import FailOn, Format

if TYPE_CHECKING:
    from ..report.compare import GrowthLimit


def growth_limit(text):
    """The --fail-on-growth/--fail-if-growth value: a GrowthLimit, or a usage error (exit 2)."""
    from ..errors import InputError
    from ..report.compare import parse_growth

    try:
        return parse_growth(text)
    except InputError as exc:
        raise typer.BadParameter(str(exc)) from None


def growth_option(name, help, hidden=False):
    """An option taking a size (50MB, 1.5GiB) or a percentage (20%) of memory growth."""
    return typer.Option(name, parser=growth_limit, metavar="SIZE|PERCENT", help=help, show_default=False,
                        hidden=hidden)


def side(name):
    """The argument OLD or NEW."""
    return typer.Argument(
        metavar=name, show_default=False,
        help="A dump, a keys Parquet file, or a report partition directory (DIR/instance=NAME/date=YYYY-MM-DD); "
             "'-' reads a dump from standard input, a URL (s3://...) a dump or a partition through fsspec.")


@analysis_command()
def diff_command(
    old: Annotated[str, side("OLD")],
    new: Annotated[str, side("NEW")],
    show_all: Annotated[bool, typer.Option("--all", help="Also list patterns that did not change.")] = False,
    fail_on_growth: Annotated[object, growth_option(
        "--fail-on-growth",
        "Exit with code 1 when the total memory grew by more than this from OLD to NEW: a size (50MB, "
        "1.5GiB; 1024-based, as every size) or a percentage of OLD's memory (20%).")] = None,
    output=None,
    load=None,
):
    """Compare OLD with NEW: patterns that grew, appeared or vanished, and findings that are new or resolved.

    Patterns are listed by the size of their memory change; one that moved less
    than 1% is unchanged. --match filters keys of dumps and patterns of reports.
    The header gives the change of the total memory. JSON gives {"old", "new", "memory_change",
    "patterns", "findings"}; CSV gives the pattern rows. --fail-on looks at the new findings only: gate a
    deploy on what got worse; --fail-on-growth gates on the total memory.
    """
    from ..findings import count, format_bytes
    from ..report.compare import diff_findings, diff_patterns, format_change, memory_change

    if old == new == "-":
        from ..errors import InputError

        raise InputError("standard input (-) can be read only once")
    config = settings(output.config)
    before, after = _snapshot(old, config, load), _snapshot(new, config, load)
    sides = (before, after)
    patterns = diff_patterns(before, after, include_unchanged=show_all)
    findings = diff_findings(before, after)
    totals = [{"source": s.label, "n_keys": s.n_keys, "memory_bytes": s.memory_bytes, "memory_basis": s.memory_basis}
              for s in sides]
    change = memory_change(before.memory_bytes, after.memory_bytes)
    top = output.top
    if output.fmt == Format.json:
        write_json({"old": totals[0], "new": totals[1], "memory_change": change.as_dict(),
                    "patterns": records(patterns.head(top)), "findings": records(findings)})
    elif output.fmt == Format.csv:
        emit(patterns.head(top), output)
    else:
        if not load.quiet:
            for name, side in zip(("old", "new"), totals, strict=True):
                message(f"{name}: {side['source']}: {count(side['n_keys'], 'key')}, "
                        f"{format_bytes(side['memory_bytes'])}")
            message(f"memory: {format_change(change)}")
        if len(patterns):
            shown = min(top, len(patterns))
            emit(patterns.head(top), output, title=f"Patterns that changed ({len(patterns)}; top {shown})")
        else:
            print_renderable("Patterns that changed: none")
        if len(findings):
            emit(findings, output, title="Findings new and resolved",
                 columns=["change", "severity", "code", "db", "pattern", "n_keys", "est_memory_bytes", "message"])
    failed = False
    if output.fail_on != FailOn.never:
        from ..findings import Severity

        level = Severity.parse(output.fail_on.value)
        failing = [s for s in findings[findings["change"] == "new"]["severity"] if Severity.parse(s) >= level]
        if failing:
            message(f"{count(len(failing), 'new finding')} at or above {output.fail_on.value}")
            failed = True
    limit = cast("GrowthLimit | None", fail_on_growth)  # typer parses the option into one (growth_limit)
    if limit is not None and limit.exceeded_by(change):
        message(f"total memory grew by {format_change(change).lstrip('+')}, "
                f"more than --fail-on-growth {limit.text}")
        failed = True
    if failed:
        raise typer.Exit(1)


def _snapshot(path, config, load):
    from ..report.compare import is_partition, snapshot_of_partition, snapshot_of_result
    from ..sources import STDIN, STDIN_NAME, is_local, is_url

    if not is_local(path):  # a dump from standard input or a URL, or a partition at a URL
        if is_url(path) and is_partition(path):
            return snapshot_of_partition(path, db=list(load.db) or None, types=list(load.types) or None,
                                         match=load.match)
        label = STDIN_NAME if path == STDIN else path.rsplit("/", 1)[-1]
        return snapshot_of_result(analyze_input(path, config, load=load), label)
    path = Path(path)
    if not path.exists():
        from ..errors import InputError

        raise InputError(f"{path}: no such file")
    if is_partition(path):
        return snapshot_of_partition(path, db=list(load.db) or None, types=list(load.types) or None,
                                     match=load.match)
    if path.is_dir():
        from ..errors import InputError

        raise InputError(f"{path}: a directory, but not a report partition (DIR/instance=NAME/date=YYYY-MM-DD)")
    res = analyze_input(path, config, load=load)
    return snapshot_of_result(res, path.name)
