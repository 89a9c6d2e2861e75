"""rdbscope report: the whole analysis of one dump (or of a cluster's dumps), on the terminal, as HTML, as a
Parquet dataset."""

import datetime
import sys
from pathlib import Path
from typing import Annotated

import typer

from .. import __version__
from ._analysis import (
    analysis_command,
    analyze_input,
    check_writable,
    exit_for_findings,
    input_name,
    settings,
    where_to_run,
)
from ._console import message, stage
from ._formats import emit, records, write_json
from ._options import Format, Inputs, takes_parallel_options
from ._selection import ExtendSelect, Ignore, Masters, Select, with_masters

PATTERN_COLUMNS = ["db", "pattern", "library", "n_keys", "memory_bytes_sum", "memory_share", "ttl_share", "types"]
BIG_KEY_COLUMNS = ["db", "key", "source", "type", "encoding", "memory_bytes", "n_elements", "codes"]
TTL_COLUMNS = ["db", "pattern", "n_keys", "n_without_ttl", "share_without_ttl", "memory_bytes_without_ttl",
               "volatile_name"]
BURST_COLUMNS = ["scope", "db", "pattern", "start", "end", "n_keys", "memory_bytes", "share_of_ttl_keys"]
NODE_COLUMNS = ["source", "writer", "n_keys", "memory_bytes", "memory_share", "ttl_share", "slots"]
FINDING_COLUMNS = ["severity", "code", "db", "n_keys", "est_memory_bytes", "message"]  # the message names the pattern


@analysis_command(top=10, formats=(Format.table, Format.json, Format.csv, Format.openmetrics))
@takes_parallel_options()
def report_command(
    dump: Inputs,
    html: Annotated[Path | None, typer.Option(
        "--html", help="Also write a self-contained HTML report (plots embedded, no network) to this file.",
        metavar="FILE", dir_okay=False, show_default=False)] = None,
    out_dir: Annotated[str | None, typer.Option(
        "--out", metavar="DIR", help="Also write the Parquet report into this dataset directory "
                                     "(DIR/instance=NAME/date=YYYY-MM-DD/), or under this URL "
                                     "(s3://bucket/reports: see README, \"Where the dump lives\").",
        show_default=False)] = None,
    instance: Annotated[str, typer.Option(
        "--instance", metavar="NAME",
        help="Instance name of the --out partition (letters, digits, '.', '_', '-').")] = "default",
    date: Annotated[datetime.datetime | None, typer.Option(
        "--date", formats=["%Y-%m-%d"], metavar="YYYY-MM-DD", show_default=False,
        help="Date of the --out partition; default: the day (UTC) of the dump's ctime AUX field.")] = None,
    keys: Annotated[bool, typer.Option(
        "--keys", help="With --out, also write keys.parquet: every key with its pattern.")] = False,
    select: Select = None,
    extend_select: ExtendSelect = None,
    ignore: Ignore = None,
    masters: Masters = None,
    output=None,
    load=None,
    parallel=None,
):
    """Analyse DUMP: totals, top patterns by memory, big keys, TTL coverage, expiry incidents and findings.

    Several dumps (paths, a directory, a quoted glob) are one keyspace, a
    cluster's nodes: one report over them all, with a table of the nodes, and
    the cluster rules (CLU) weigh the real nodes. The summary goes to stdout (--format json: the whole
    report as one document; csv: the findings; openmetrics: totals, the --top patterns and an "(other)" row
    per db, finding counts per code). --html and --out write files as well; their paths go to
    stderr. The big-keys section prints key names. --fail-on looks at every finding
    that --select/--ignore (or the config's selection) keep.
    """
    from ..report import views

    check_writable(html, "'--html'")
    check_out(out_dir)
    config = with_masters(settings(output.config, select, extend_select, ignore), masters)
    with where_to_run(parallel) as where:
        # the keys of --out --keys are every key: read whole when they fit the budget
        res = analyze_input(dump, config, load=load, every_key=keys and out_dir is not None, **where)
    source = input_name(res.keys)
    if out_dir is not None:
        from ..report.dataset import write_report

        with stage(load.quiet, "writing the Parquet report"):
            written = write_report(res, out_dir, instance, date=date.date() if date else None, keys=keys,
                                   source=source, version=__version__)
        if not load.quiet:
            message(f"wrote {written}")
    if html is not None:
        from ..report.html import write_html

        with stage(load.quiet, "writing the HTML report"):
            write_html(res, html, source=source)
        if not load.quiet:
            message(f"wrote {html}")
    top, fmt = output.top, output.fmt
    sections = _sections(res, top)
    overview = views.overview(res, source)
    if fmt == Format.json:
        from ..report.triage import triage

        nodes = {"nodes": records(views.node_rows(res))} if res.keys.n_sources > 1 else {}
        write_json({"overview": overview.as_dict(), "summary": triage(res).as_dict(records), **nodes,
                    **{name: _plain(section) for name, section in sections.items()},
                    "findings": records(views.finding_rows(res))})
    elif fmt == Format.csv:
        emit(views.finding_rows(res), output)
    elif fmt == Format.openmetrics:
        from ..report.openmetrics import render_openmetrics

        sys.stdout.write(render_openmetrics(res, source, top))
    else:
        from ..report.triage import triage
        from ._console import out, print_wrapped
        from ._summary import summary_renderable, summary_text

        print_wrapped(_headline(overview))
        if out.is_terminal:
            out.print(summary_renderable(triage(res)), soft_wrap=False)
        else:
            sys.stdout.write(summary_text(triage(res), out.width))
        if res.keys.n_sources > 1:
            emit(views.node_rows(res), output, title="Nodes", columns=NODE_COLUMNS)
        titles = {"patterns": ("Top patterns by memory", PATTERN_COLUMNS),
                  "big_keys": ("Biggest keys", BIG_KEY_COLUMNS),
                  "ttl": ("Patterns with the most memory without TTL", TTL_COLUMNS),
                  "expiry": ("Expiry incidents", BURST_COLUMNS),
                  "activity": ("Cold and hot memory by pattern", None)}
        for name, (title, columns) in titles.items():
            frame = sections[name]["patterns"] if name == "ttl" else sections[name]
            frame = frame["bursts"] if name == "expiry" else frame
            frame = frame["patterns"] if name == "activity" else frame
            if frame is not None and len(frame):
                emit(frame, output, title=title, columns=columns)
        findings = views.finding_rows(res, top)
        if len(findings):
            emit(findings, output, title=f"Top findings ({len(findings)} of {len(res.finding_list)})",
                 columns=FINDING_COLUMNS)
    exit_for_findings(res.finding_list, output.fail_on)


def check_out(out_dir):
    """Exit 2 before the scan when --out cannot be written: a local directory as check_writable says; for a URL,
    its scheme's backend must be installed."""
    from ..sources import is_url, open_url_fs

    if out_dir is not None and is_url(out_dir):
        open_url_fs(out_dir, "writing")
    else:
        check_writable(Path(out_dir) if out_dir is not None else None, "'--out'", directory=True)


def _sections(res, top):
    from ..report import views

    return {
        "patterns": views.pattern_rows(res, top),
        "big_keys": views.big_key_rows(res, min(top, 10)),
        "ttl": {"overview": views.ttl_overview_rows(res), "patterns": views.ttl_pattern_rows(res, top)},
        "expiry": {"bursts": views.expiry_burst_rows(res, top)},
        "activity": _activity_section(res, top),
    }


def _activity_section(res, top):
    from ..report.triage import activity_rows

    note, frame = activity_rows(res, top)
    return {"note": note, "patterns": frame}


def _plain(section):
    if isinstance(section, dict):
        return {name: _plain(part) for name, part in section.items()}
    return records(section) if section is not None and not isinstance(section, str) else section


def _headline(o):
    """The totals as a few lines of text."""
    from rich.text import Text

    from ..findings import count, format_bytes, format_share

    lines = Text()
    lines.append(f"{o.source}", style="bold")
    if o.n_sources > 1:
        lines.append(" read as one keyspace (each in the Nodes table)")
    else:
        lines.append(f": {o.magic} RDB {o.rdb_version}")
        if o.writer:
            lines.append(f", written by {o.writer}")
        if o.ctime:
            lines.append(f" at {o.ctime:%Y-%m-%d %H:%M:%S}Z")
    lines.append("\n")
    memory = "estimated memory" if o.memory_basis == "est_memory_bytes" else "in the dump (no memory estimates)"
    lines.append(count(o.n_keys, "key"), style="bold")
    lines.append(f" in {count(o.n_dbs, 'db')}, {count(o.n_patterns, 'pattern')}; ")
    lines.append(format_bytes(o.memory_bytes), style="bold")
    lines.append(f" {memory}")
    extras = []
    if o.est_total_memory_bytes is not None:
        extras.append(f"with key tables {format_bytes(o.est_total_memory_bytes)}")
    if o.used_mem_bytes is not None:
        extras.append(f"used-mem {format_bytes(o.used_mem_bytes)}")
    extras.append(f"dump {format_bytes(o.rdb_bytes)}")
    lines.append(f" ({', '.join(extras)})\n")
    if o.memory_model and o.memory_basis == "est_memory_bytes":
        lines.append(f"Memory model: {o.memory_model}\n", style="dim")
    if o.n_keys:
        ttl_share = format_share(o.n_with_ttl / o.n_keys)
        lines.append(f"TTL: {count(o.n_with_ttl, 'key')} ({ttl_share}) {'has' if o.n_with_ttl == 1 else 'have'} one")
        if o.n_expired:
            lines.append(f", {o.n_expired:,} had already expired when the dump was written")
        lines.append("\n")
    counts = ", ".join(count(n, name, "info" if name == "info" else None)
                       for name, n in o.n_findings.items() if n) or "none"
    lines.append(f"Findings: {counts}")
    return lines
