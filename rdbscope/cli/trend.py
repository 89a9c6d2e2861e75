"""rdbscope trend: per-pattern history across a report dataset."""

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ._console import exits_on_bad_input, message
from ._formats import emit, records, write_json
from ._options import FailOn, Format, takes_load_options, takes_output_options
from .diff import growth_option


class Metric(str, Enum):
    memory = "memory"
    keys = "keys"


METRIC_COLUMNS = {Metric.memory: "memory_bytes_sum", Metric.keys: "n_keys"}


@exits_on_bad_input
@takes_load_options(reading=False)
@takes_output_options(Format.table, Format.json, Format.csv, top=20, config=False)
def trend_command(
    directory: Annotated[str, typer.Argument(
        metavar="DIR", help="A report dataset written by 'rdbscope report --out DIR': a directory, or a URL "
             "(s3://bucket/reports).", show_default=False)],
    instance: Annotated[str | None, typer.Option(
        "--instance", metavar="NAME", help="Only this instance (default: every instance).", show_default=False)] = None,
    metric: Annotated[Metric, typer.Option("--metric", help="What to follow: memory or key count.")] = Metric.memory,
    last: Annotated[int, typer.Option(
        "--last", min=1, metavar="N", help="How many of the latest dates to show as columns.")] = 7,
    fail_on_growth: Annotated[object, growth_option(
        "--fail-on-growth",
        "Exit with code 1 when an instance's total memory (of the patterns --match/--db/--type keep) grew by "
        "more than this between its two latest dates: a percentage (20%) or a size (50MB; 1024-based, as "
        "every size).")] = None,
    fail_if_growth: Annotated[object, growth_option("--fail-if-growth", "", hidden=True)] = None,
    output=None,
    load=None,
):
    """Show each pattern's memory (or key count) day by day across a report dataset.

    The table has one column per date (the --last dates) and the change over
    them, for the --top largest patterns of each instance on its latest date;
    --match is a glob over pattern names. JSON and CSV give the long form: one
    row per instance, date and pattern. --fail-on looks at the findings of each
    instance's latest date; --fail-on-growth at each instance's total memory on its two latest dates.
    """
    from ..report.compare import pivot_trend, trend_rows

    _check_dataset(directory)
    rows = trend_rows(directory, instance, db=list(load.db) or None, types=list(load.types) or None,
                      match=load.match)
    column = METRIC_COLUMNS[metric]
    top = output.top
    if output.fmt == Format.json:
        write_json(records(rows))
    elif output.fmt == Format.csv:
        emit(rows, output)
    else:
        table = pivot_trend(rows, column, top=top, last=last)
        unit = "memory" if metric == Metric.memory else "keys"
        emit(_with_units(table, metric), output, title=f"{unit} per pattern by date (top {top} per instance)")
    limit = fail_on_growth if fail_on_growth is not None else fail_if_growth  # the older name, still accepted
    grown = _grown_instances(rows, limit) if limit is not None else False
    if output.fail_on != FailOn.never:
        _exit_for_latest_findings(directory, instance, output.fail_on)
    if grown:
        raise typer.Exit(1)


def _check_dataset(directory):
    from ..errors import InputError
    from ..sources import is_url

    if is_url(directory):
        return
    if not Path(directory).exists():
        raise InputError(f"{directory}: no such directory")
    if not Path(directory).is_dir():
        raise InputError(f"{directory}: a file, not a report dataset (a directory written by 'report --out')")


def _grown_instances(rows, limit):
    """Say on stderr which instances grew by more than ``limit`` between their two latest dates; True if any."""
    from ..report.compare import format_change, latest_memory_changes

    grown = False
    for name, old_date, new_date, change in latest_memory_changes(rows):
        if limit.exceeded_by(change):
            message(f"instance {name}: total memory grew by {format_change(change).lstrip('+')} from {old_date} to "
                    f"{new_date}, more than --fail-on-growth {limit.text}")
            grown = True
    return grown


def _with_units(table, metric):
    """Name the date columns so the formatter shows bytes for memory."""
    if metric != Metric.memory:
        return table
    renamed = {c: f"{c} bytes" for c in table.columns if c not in ("instance", "db", "pattern", "grew_each_date")}
    renamed["change"] = "change bytes"
    return table.rename(columns=renamed)


def _exit_for_latest_findings(directory, instance, fail_on):
    from ..findings import Severity, count
    from ..report.dataset import read_table

    findings = read_table(directory, "findings", instance).to_pandas()
    if findings.empty:
        return
    findings["instance"] = findings["instance"].astype(str)
    findings["date"] = findings["date"].astype(str)
    latest = findings.groupby("instance")["date"].transform("max")
    current = findings[findings["date"] == latest]
    level = Severity.parse(fail_on.value)
    failing = [s for s in current["severity"] if Severity.parse(s) >= level]
    if failing:
        message(f"{count(len(failing), 'finding')} at or above {fail_on.value} on the latest dates")
        raise typer.Exit(1)
