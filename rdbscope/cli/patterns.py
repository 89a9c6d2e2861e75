"""rdbscope patterns: which kinds of keys hold the memory."""

from enum import Enum
from typing import Annotated

import typer

from ._analysis import analyze_input, exit_for_findings, settings
from ._console import exits_on_bad_input
from ._formats import emit
from ._options import (ConfigOption, CsvSafe, FailOn, FailOnOption, Format, Input, Top, format_option,
                       takes_load_options)


class PatternSort(str, Enum):
    memory = "memory"
    keys = "keys"
    rdb = "rdb"


TABLE_COLUMNS = ["db", "pattern", "n_keys", "share", "memory_bytes_sum", "memory_share", "memory_bytes_p50",
                 "memory_bytes_max", "ttl_share", "ttl_s_p50", "types", "encodings"]


@exits_on_bad_input
@takes_load_options()
def patterns_command(
    dump: Input,
    sort: Annotated[PatternSort, typer.Option(
        "--sort", help="Order by memory, key count, or bytes in the dump (rdb).")] = PatternSort.memory,
    examples: Annotated[bool, typer.Option("--examples", help="Show example keys of each pattern.")] = False,
    top: Top = 20,
    fmt: format_option(Format.table, Format.json, Format.csv) = Format.table,
    csv_safe: CsvSafe = True,
    fail_on: FailOnOption = FailOn.never,
    config: ConfigOption = None,
    load=None,
):
    """Show the inferred key patterns (user:{id}:profile) with their keys, memory and TTL coverage.

    Largest memory first. --fail-on looks at every finding of the analysis.
    """
    from ..report import views

    res = analyze_input(dump, settings(config), load=load)
    rows = views.pattern_rows(res, top, sort.value)
    columns = TABLE_COLUMNS + (["examples"] if examples else [])
    emit(rows, fmt, title=f"Top {len(rows)} of {res.tables['patterns'].num_rows} patterns by {sort.value}",
         columns=columns, csv_safe=csv_safe)
    exit_for_findings(res.finding_list, fail_on)
