"""rdbscope patterns: which kinds of keys hold the memory."""

from enum import Enum
from typing import Annotated

import typer

from ._analysis import analysis_command, analyze_input, exit_for_findings, settings
from ._formats import emit
from ._options import Input


class PatternSort(str, Enum):
    memory = "memory"
    keys = "keys"
    rdb = "rdb"


TABLE_COLUMNS = ["db", "pattern", "library", "key_kind", "n_keys", "share", "memory_bytes_sum", "memory_share",
                 "memory_bytes_p50", "memory_bytes_max", "ttl_share", "ttl_s_p50", "types", "encodings"]


@analysis_command()
def patterns_command(
    dump: Input,
    sort: Annotated[PatternSort, typer.Option(
        "--sort", help="Order by memory, key count, or bytes in the dump (rdb).")] = PatternSort.memory,
    examples: Annotated[bool, typer.Option("--examples", help="Show example keys of each pattern.")] = False,
    output=None,
    load=None,
):
    """Show the inferred key patterns (user:{id}:profile) with their keys, memory and TTL coverage.

    Largest memory first. --fail-on looks at every finding of the analysis.
    """
    from ..report import views

    res = analyze_input(dump, settings(output.config), load=load)
    rows = views.pattern_rows(res, output.top, sort.value)
    columns = TABLE_COLUMNS + (["examples"] if examples else [])
    emit(rows, output, title=f"Top {len(rows)} of {res.tables['patterns'].num_rows} patterns by {sort.value}",
         columns=columns)
    exit_for_findings(res.finding_list, output.fail_on)
