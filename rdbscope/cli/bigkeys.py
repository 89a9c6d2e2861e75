"""rdbscope bigkeys: the largest keys, and the ones over the size thresholds."""

from enum import Enum
from typing import Annotated

import typer

from ..report import views
from ._analysis import analyze_input, exit_for_findings
from ._console import exits_on_bad_input
from ._formats import emit
from ._options import (AllocatorOption, CompressDepth, ConfigOption, Db, FailOn, FailOnOption, Format,
                       FormatOption, Input, Match, NoCrc, Quiet, Relaxed, Top, Type)


class Ranking(str, Enum):
    memory = "memory"
    length = "length"


@exits_on_bad_input
def bigkeys_command(
    dump: Input,
    by: Annotated[Ranking, typer.Option(
        "--by", help="Rank by memory, or by length (string bytes, element count).")] = Ranking.memory,
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
    """List the largest keys (this prints key names) with the BIG codes whose thresholds they pass.

    Thresholds (the Key Design chapter): strings over 10 KB; hashes, lists, sets and sorted sets
    over 5,000 elements; streams over 10,000 entries; any key over 1 MB of memory.
    Use --type to rank one type. --fail-on looks at BIG findings only.
    """
    res = analyze_input(dump, config=config, passes=["bigkeys"], db=db, types=type_, match=match, quiet=quiet,
                        no_crc=no_crc, relaxed_version=relaxed_version, allocator=allocator,
                        list_compress_depth=list_compress_depth)
    rows = views.big_key_rows(res, top, by.value)
    emit(rows, fmt, title=f"Largest {len(rows)} keys by {by.value}")
    if fmt == Format.table:
        findings = views.finding_rows(res, families=("BIG",))
        if len(findings):
            emit(findings, fmt, title="Big-key findings", columns=["severity", "code", "db", "pattern", "n_keys",
                                                                  "est_memory_bytes", "message"])
    exit_for_findings(res.finding_list, fail_on, ("BIG",))
