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
        "--timeline", help="Also show the expiry timeline: keys expiring per bucket from the dump's ctime on, "
                           "buckets on clock boundaries (a minute at :00, an hour at :00:00); with --top N, "
                           "the N busiest buckets, in time order.")] = False,
    output=None,
    load=None,
):
    """Show expiry incidents: where far more keys expire together than their spread predicts.

    Windows of 1 s, 1 min and 1 h are counted per pattern and for the dump;
    adjacent busy windows are one incident (its start, end, keys and memory).

    An incident is a cache stampede waiting to happen; the fix is random TTL jitter.
    JSON gives {"bursts": [...], "timeline": [...], "findings": [...]} ("bursts" are the
    incidents); CSV gives the incident rows (the timeline with --timeline). The timeline lists the buckets
    where keys expire; --top N keeps the N busiest, in time order. --fail-on looks at EXP findings only.
    """
    from ..report import views

    res = analyze_input(dump, settings(output.config), passes=["expiry"], load=load)
    bursts = views.expiry_burst_rows(res, output.top)
    findings = views.finding_rows(res, output.top, families=("EXP",))
    timeline_rows = views.expiry_timeline_rows(res, output.top)
    if output.fmt == Format.json:
        write_json({"bursts": records(bursts), "timeline": records(timeline_rows),
                    "findings": records(findings)})
    elif output.fmt == Format.csv:
        emit(timeline_rows if timeline else bursts, output)
    else:
        emit(bursts, output, title=f"Expiry incidents ({len(bursts)})")
        if len(findings):
            emit(findings, output, title="Expiry findings", columns=["severity", "code", "db", "pattern", "n_keys",
                                                                 "est_memory_bytes", "message"])
        if timeline:
            emit(timeline_rows, output, title=_timeline_title(res, timeline_rows),
                 columns=["bucket_start", "bucket_end", "n_keys", "n_keys_cumulative"])
    exit_for_findings(res.finding_list, output.fail_on, ("EXP",))


def _timeline_title(res, shown):
    """``Expiry timeline, buckets of 1w: the 8 busiest of 53 with expiring keys, in time order``."""
    from ..findings import count
    from ..report.cells import human_seconds

    table = res.tables["expiry_timeline"]
    if not table.num_rows:
        return "Expiry timeline (no key expires after the dump's ctime)"
    n_busy = int((table["n_keys"].to_numpy() > 0).sum())
    buckets = f"Expiry timeline, buckets of {human_seconds(table['bucket_s'][0].as_py())}"
    if len(shown) < n_busy:
        return f"{buckets}: the {len(shown)} busiest of {n_busy:,} with expiring keys, in time order"
    return f"{buckets}: {count(n_busy, 'bucket')} with expiring keys"
