"""rdbscope expiry: what will expire all at once."""

from typing import Annotated

import typer

from ._analysis import analysis_command, analyze_input, exit_for_findings, settings
from ._formats import emit, records, write_json
from ._options import Format, Input


@analysis_command()
def expiry_command(
    dump: Input,
    timeline: Annotated[bool, typer.Option(
        "--timeline", help="Also show the expiry timeline: keys expiring per bucket from the dump's ctime.")] = False,
    output=None,
    load=None,
):
    """Show expiry incidents: where far more keys expire together than their spread predicts.

    Windows of 1 s, 1 min and 1 h are counted per pattern and for the dump;
    adjacent busy windows are one incident (its start, end, keys and memory).

    An incident is a cache stampede waiting to happen; the fix is random TTL jitter.
    JSON gives {"bursts": [...], "timeline": [...], "findings": [...]} ("bursts" are the
    incidents); CSV gives the incident rows (the timeline with --timeline). --fail-on looks at EXP findings only.
    """
    from ..report import views

    res = analyze_input(dump, settings(output.config), passes=["expiry"], load=load)
    bursts = views.expiry_burst_rows(res, output.top)
    findings = views.finding_rows(res, output.top, families=("EXP",))
    if output.fmt == Format.json:
        write_json({"bursts": records(bursts), "timeline": records(views.expiry_timeline_rows(res)),
                    "findings": records(findings)})
    elif output.fmt == Format.csv:
        emit(views.expiry_timeline_rows(res) if timeline else bursts, output)
    else:
        emit(bursts, output, title=f"Expiry incidents ({len(bursts)})")
        if len(findings):
            emit(findings, output, title="Expiry findings", columns=["severity", "code", "db", "pattern", "n_keys",
                                                                 "est_memory_bytes", "message"])
        if timeline:
            rows = views.expiry_timeline_rows(res)
            emit(rows[rows["n_keys"] > 0], output, title="Expiry timeline (buckets with expiring keys)",
                 columns=["bucket_start", "bucket_end", "n_keys", "memory_bytes", "n_keys_cumulative"])
    exit_for_findings(res.finding_list, output.fail_on, ("EXP",))
