"""rdbscope bigkeys: the largest keys, and the ones over the size thresholds."""

from dataclasses import replace
from enum import Enum
from typing import Annotated

import typer

from ._analysis import analysis_command, analyze_input, exit_for_findings, settings
from ._formats import emit
from ._options import Format, Input


class Ranking(str, Enum):
    memory = "memory"
    length = "length"


@analysis_command()
def bigkeys_command(
    dump: Input,
    by: Annotated[Ranking, typer.Option(
        "--by", help="Rank by memory, or by length (string bytes, element count).")] = Ranking.memory,
    output=None,
    load=None,
):
    """List the largest keys (this prints key names) with the BIG codes whose thresholds they pass.

    Thresholds (the Key Design chapter): strings over 10 KB; hashes, lists, sets and sorted sets
    over 5,000 elements; streams over 10,000 entries; any key over 1 MB of memory.
    Use --type to rank one type. --fail-on looks at BIG findings only.
    """
    from ..report import views

    config = settings(output.config)
    if output.top and output.top > config.bigkeys.top_n:  # the chunks keep the largest top_n keys of each type
        config = replace(config, bigkeys=replace(config.bigkeys, top_n=output.top))
    res = analyze_input(dump, config, passes=["bigkeys"], load=load)
    rows = views.big_key_rows(res, output.top, by.value)
    emit(rows, output, title=f"Largest {len(rows)} key{'s' if len(rows) != 1 else ''} by {by.value}")
    if output.fmt == Format.table:
        findings = views.finding_rows(res, families=("BIG",))
        if len(findings):
            emit(findings, output, title="Big-key findings", columns=["severity", "code", "db", "pattern", "n_keys",
                                                                  "est_memory_bytes", "message"])
    exit_for_findings(res.finding_list, output.fail_on, ("BIG",))
