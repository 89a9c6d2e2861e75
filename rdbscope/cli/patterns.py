"""rdbscope patterns: which kinds of keys hold the memory."""

from enum import Enum
from typing import Annotated

import typer

from ..report import views
from ._analysis import analyze_input, exit_for_findings
from ._console import exits_on_bad_input
from ._formats import emit
from ._options import (AllocatorOption, CompressDepth, ConfigOption, Db, FailOn, FailOnOption, Format,
                       FormatOption, Input, Match, NoCrc, Quiet, Relaxed, Top, Type)


class PatternSort(str, Enum):
    memory = "memory"
    keys = "keys"
    rdb = "rdb"


TABLE_COLUMNS = ["db", "pattern", "n_keys", "share", "memory_bytes_sum", "memory_share", "memory_bytes_p50",
                 "memory_bytes_max", "ttl_share", "ttl_s_p50", "types", "encodings"]


@exits_on_bad_input
def patterns_command(
    dump: Input,
    sort: Annotated[PatternSort, typer.Option(
        "--sort", help="Order by memory, key count, or bytes in the dump (rdb).")] = PatternSort.memory,
    examples: Annotated[bool, typer.Option("--examples", help="Show example keys of each pattern.")] = False,
    top: Top = 20,
    fmt: FormatOption = Format.table,
    db: Db = None,
    type_: Type = None,
    match: Match = None,
    fail_on: FailOnOption = FailOn.never,
    config: ConfigOption = None,
    no_crc: NoCrc = False,
    relaxed_version: Relaxed = False,
    allocator: AllocatorOption = "jemalloc",
    list_compress_depth: CompressDepth = 0,
    quiet: Quiet = False,
):
    """Show the inferred key patterns (user:{id}:profile) with their keys, memory and TTL coverage.

    Largest memory first. --fail-on looks at every finding of the analysis.
    """
    res = analyze_input(dump, config=config, db=db, types=type_, match=match, quiet=quiet, no_crc=no_crc,
                        relaxed_version=relaxed_version, allocator=allocator,
                        list_compress_depth=list_compress_depth)
    rows = views.pattern_rows(res, top, sort.value)
    columns = TABLE_COLUMNS + (["examples"] if examples else [])
    emit(rows, fmt, title=f"Top {len(rows)} of {res.tables['patterns'].num_rows} patterns by {sort.value}",
         columns=columns)
    exit_for_findings(res.finding_list, fail_on)
