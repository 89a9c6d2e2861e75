"""rdbscope diff: what changed between two dumps or two reports."""

from pathlib import Path
from typing import Annotated

import typer

from ._analysis import analysis_command, analyze_input, settings
from ._console import message
from ._formats import emit, records, write_json
from ._options import FailOn, Format

Side = Annotated[Path, typer.Argument(
    help="A dump, a keys Parquet file, or a report partition directory (DIR/instance=NAME/date=YYYY-MM-DD).",
    exists=True, readable=True, show_default=False)]


@analysis_command()
def diff_command(
    old: Side,
    new: Side,
    show_all: Annotated[bool, typer.Option("--all", help="Also list patterns that did not change.")] = False,
    output=None,
    load=None,
):
    """Compare OLD with NEW: patterns that grew, appeared or vanished, and findings that are new or resolved.

    Patterns are listed by the size of their memory change; one that moved less
    than 1% is unchanged. --match filters keys of dumps and patterns of reports.
    JSON gives {"old", "new", "patterns", "findings"}; CSV gives the pattern rows.
    --fail-on looks at the new findings only: gate a deploy on what got worse.
    """
    from ..findings import count
    from ..report.compare import diff_findings, diff_patterns

    config = settings(output.config)
    before, after = _snapshot(old, config, load), _snapshot(new, config, load)
    sides = (before, after)
    patterns = diff_patterns(before, after, include_unchanged=show_all)
    findings = diff_findings(before, after)
    totals = [{"source": s.label, "n_keys": s.n_keys, "memory_bytes": s.memory_bytes, "memory_basis": s.memory_basis}
              for s in sides]
    top = output.top
    if output.fmt == Format.json:
        write_json({"old": totals[0], "new": totals[1], "patterns": records(patterns.head(top)),
                    "findings": records(findings)})
    elif output.fmt == Format.csv:
        emit(patterns.head(top), output)
    else:
        for name, side in zip(("old", "new"), totals, strict=True) if not load.quiet else ():
            message(f"{name}: {side['source']}: {count(side['n_keys'], 'key')}")
        shown = min(top, len(patterns))
        emit(patterns.head(top), output, title=f"Patterns that changed ({len(patterns)}; top {shown})")
        if len(findings):
            emit(findings, output, title="Findings new and resolved",
                 columns=["change", "severity", "code", "db", "pattern", "n_keys", "est_memory_bytes", "message"])
    if output.fail_on != FailOn.never:
        from ..findings import Severity

        level = Severity.parse(output.fail_on.value)
        failing = [s for s in findings[findings["change"] == "new"]["severity"] if Severity.parse(s) >= level]
        if failing:
            message(f"{count(len(failing), 'new finding')} at or above {output.fail_on.value}")
            raise typer.Exit(1)


def _snapshot(path, config, load):
    from ..report.compare import is_partition, snapshot_of_partition, snapshot_of_result

    if is_partition(path):
        return snapshot_of_partition(path, db=list(load.db) or None, types=list(load.types) or None,
                                     match=load.match)
    if path.is_dir():
        from ..errors import InputError

        raise InputError(f"{path}: a directory, but not a report partition (DIR/instance=NAME/date=YYYY-MM-DD)")
    res = analyze_input(path, config, load=load)
    return snapshot_of_result(res, path.name)
