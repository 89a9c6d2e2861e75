"""rdbscope trend: per-pattern history across a report dataset."""

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ._console import exits_on_bad_input, message
from ._formats import emit, records, write_json
from ._options import FailOn, Format, takes_load_options, takes_output_options


class Metric(str, Enum):
    memory = "memory"
    keys = "keys"


METRIC_COLUMNS = {Metric.memory: "memory_bytes_sum", Metric.keys: "n_keys"}


@exits_on_bad_input
@takes_load_options(reading=False)
@takes_output_options(Format.table, Format.json, Format.csv, top=20, config=False)
def trend_command(
    directory: Annotated[Path, typer.Argument(
        help="A report dataset written by 'rdbscope report --out DIR'.", exists=True, file_okay=False,
        show_default=False)],
    instance: Annotated[str | None, typer.Option(
        "--instance", help="Only this instance (default: every instance).", show_default=False)] = None,
    metric: Annotated[Metric, typer.Option("--metric", help="What to follow: memory or key count.")] = Metric.memory,
    last: Annotated[int, typer.Option("--last", min=1, help="How many of the latest dates to show as columns.")] = 7,
    output=None,
    load=None,
):
    """Show each pattern's memory (or key count) day by day across a report dataset.

    The table has one column per date (the --last dates) and the change over
    them, for the --top largest patterns of each instance on its latest date;
    --match is a glob over pattern names. JSON and CSV give the long form: one
    row per instance, date and pattern. --fail-on looks at the findings of each
    instance's latest date.
    """
    from ..report.compare import pivot_trend, trend_rows

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
    if output.fail_on != FailOn.never:
        _exit_for_latest_findings(directory, instance, output.fail_on)


def _with_units(table, metric):
    """Name the date columns so the formatter shows bytes for memory."""
    if metric != Metric.memory:
        return table
    renamed = {c: f"{c} bytes" for c in table.columns if c not in ("instance", "db", "pattern")}
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
