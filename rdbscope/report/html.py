"""One self-contained HTML page of a :class:`~rdbscope.Result`: no network, one small inline script.

The page leads with the overview and memory, then the findings grouped by code
(each group a collapsible ``<details>``), keys, TTL and expiry. Figures are
embedded as base64 SVG images; styles are inline; the only script sorts a table
when its header is clicked, and the page reads the same without it. Every text
from the dump (patterns, keys, messages) is HTML-escaped.
"""

import base64
import datetime
import html
import io
import os

import pandas as pd

from ..passes.bigkeys import SHOWN_KEYS
from .atomic import atomic_path
from .cells import cell_text, is_numeric_column, label, printable
from .plots import PlotAccessor
from .triage import triage
from .views import (
    big_key_rows,
    expiry_burst_rows,
    finding_rows,
    node_rows,
    overview,
    pattern_rows,
    ttl_overview_rows,
    ttl_pattern_rows,
)

__all__ = ["figure_data_uri", "render_html", "write_html"]

_FIGURE_CAPTIONS = {
    "memory_by_pattern": "Memory by pattern",
    "treemap": "Memory by pattern (treemap)",
    "key_sizes": "Key size distribution",
    "key_sizes_memory": "Memory by key size",
    "types": "Types and encodings",
    "ttl": "TTL distribution",
    "ttl_memory": "TTL distribution by memory",
    "expiry": "Expiry timeline",
}

#: The sections, in page order: (id, heading).
SECTIONS = (("overview", "Overview"), ("summary", "Summary"), ("memory", "Memory"), ("findings", "Findings"),
            ("keys", "Biggest keys"), ("ttl", "TTL coverage"), ("expiry", "Expiry incidents"),
            ("activity", "Cold and hot memory"))
#: The section a report of several dumps (a cluster's nodes) has after the overview: one row per dump.
NODES_SECTION = ("nodes", "Nodes")

# Key names hold any text: after the Latin fonts come CJK and colour-emoji faces, so
# `emoji:🍕:orders` or `用户:资料` show their glyphs rather than empty boxes.
_CJK_FONTS = '"Noto Sans CJK SC", "Noto Sans CJK JP", "PingFang SC", "Hiragino Sans", "Microsoft YaHei"'
_EMOJI_FONTS = '"Noto Color Emoji", "Apple Color Emoji", "Segoe UI Emoji"'
SANS_FONTS = f'-apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, {_CJK_FONTS}, {_EMOJI_FONTS}, sans-serif'
MONO_FONTS = (f'"DejaVu Sans Mono", Menlo, Consolas, "Liberation Mono", "Noto Sans Mono CJK SC", {_CJK_FONTS}, '
              f'{_EMOJI_FONTS}, monospace')

_STYLE = f"""
body {{ font-family: {SANS_FONTS}; margin: 0; color: #222; background: #f6f7f9; }}
main {{ max-width: 1180px; margin: 0 auto; padding: 24px 28px 48px; }}
h1 {{ font-size: 22px; margin: 0 0 4px; }} h2 {{ font-size: 17px; margin: 32px 0 10px; }}
h3 {{ font-size: 14px; margin: 20px 0 8px; }}
.sub {{ color: #555; margin: 0 0 10px; }}
nav {{ font-size: 13px; margin: 0 0 16px; }} nav a {{ color: #1f5fa8; margin-right: 14px; text-decoration: none; }}
.pair {{ display: grid; grid-template-columns: repeat(auto-fit, minmax(440px, 1fr)); gap: 0 24px; }}
.pair > div {{ min-width: 0; }}
.pair td.key {{ max-width: 0; width: 50%; }} .pair td.key .clip {{ max-width: none; }}
ol.savings li {{ margin: 3px 0; }} ol.savings b {{ display: inline-block; min-width: 76px; }}
ol.savings .code {{ font-family: {MONO_FONTS}; font-size: 12px; color: #555; margin-left: 10px; }}
.cards {{ display: grid; grid-template-columns: repeat(auto-fit, minmax(170px, 1fr)); gap: 10px; }}
.card {{ background: #fff; border: 1px solid #e2e4e8; border-radius: 6px; padding: 10px 14px; }}
.card b {{ display: block; font-size: 20px; }} .card span {{ color: #555; font-size: 12px; }}
figure {{ background: #fff; border: 1px solid #e2e4e8; border-radius: 6px; margin: 0 0 14px; padding: 8px; }}
figure img {{ width: 100%; max-width: 940px; height: auto; display: block; margin: 0 auto; }}
figcaption {{ color: #555; font-size: 12px; padding: 4px 6px 0; }}
table {{ border-collapse: collapse; background: #fff; font-size: 12.5px; width: 100%;
        border: 1px solid #e2e4e8; }}
th, td {{ padding: 4px 8px; border-bottom: 1px solid #eceef1; text-align: left; vertical-align: top; }}
th {{ background: #f0f2f5; font-weight: 600; white-space: nowrap; cursor: pointer; user-select: none; }}
th[aria-sort=ascending]::after {{ content: " \\25B2"; font-size: 9px; }}
th[aria-sort=descending]::after {{ content: " \\25BC"; font-size: 9px; }}
td.num, th.num {{ text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }}
td.time {{ white-space: nowrap; font-variant-numeric: tabular-nums; }}
td.key, td.keys {{ font-family: {MONO_FONTS}; font-size: 12px; }}
td.key .clip {{ max-width: 30em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }}
td.keys {{ overflow-wrap: anywhere; min-width: 220px; }}
.sev {{ border-radius: 3px; padding: 1px 6px; color: #fff; font-size: 11px; }}
.sev-error {{ background: #c62828; }} .sev-warning {{ background: #ef8f00; }} .sev-info {{ background: #607d8b; }}
details {{ background: #fff; border: 1px solid #e2e4e8; border-radius: 6px; margin: 0 0 6px; }}
details > summary {{ cursor: pointer; padding: 7px 10px; font-size: 13px; }}
details > summary .code {{ font-family: {MONO_FONTS}; font-weight: 600; margin: 0 6px; }}
details > summary .name {{ color: #555; }} details > summary .stats {{ color: #555; float: right; }}
details > table {{ border: 0; border-top: 1px solid #e2e4e8; }}
details > table {{ table-layout: fixed; }} details th:nth-child(1) {{ width: 3em; }}
details th:nth-child(2) {{ width: 30%; }} details th:nth-child(3) {{ width: 5em; }}
details th:nth-child(4) {{ width: 6em; }}
footer {{ color: #777; font-size: 12px; margin-top: 36px; }}
"""

# Click a header to sort by it (numbers by their raw value, largest first; text A to Z);
# click again to reverse.
_SORT_SCRIPT = """
document.querySelectorAll("table.sortable th").forEach(function (th) {
  th.addEventListener("click", function () {
    var table = th.closest("table"), body = table.tBodies[0], column = th.cellIndex;
    var numeric = th.classList.contains("num");
    var current = th.getAttribute("aria-sort");
    var descending = current ? current === "ascending" : numeric;
    table.querySelectorAll("th").forEach(function (other) { other.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
    function value(row) {
      var cell = row.cells[column];
      if (!numeric) return cell.textContent;
      var raw = cell.getAttribute("data-value");
      return raw === null || raw === "" ? -Infinity : Number(raw);
    }
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = value(a), y = value(b);
      var order = numeric ? x - y : String(x).localeCompare(String(y));
      return descending ? -order : order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  });
});
"""

_KEY_COLUMNS = {"pattern": "key", "key": "key", "largest_key": "key", "examples": "keys"}
_NODE_COLUMNS = ["source", "writer", "n_keys", "memory_bytes", "memory_share", "n_with_ttl", "ttl_share", "slots"]
_FINDING_COLUMNS = ["db", "pattern", "n_keys", "est_memory_bytes", "message"]
_PATTERN_COLUMNS = ["db", "pattern", "library", "n_keys", "share", "memory_bytes_sum", "memory_share",
                    "memory_bytes_p50", "memory_bytes_max", "ttl_share", "types", "encodings", "value_format",
                    "examples"]


def render_html(res, source=None, top=25, title=None) -> str:
    """The report as one HTML document (a string).

    Args:
        res: a :class:`~rdbscope.Result`.
        source: the dump's file name, shown in the title.
        top: rows per table.
        title: the page title (default: ``rdbscope report: SOURCE``).
    """
    o = overview(res, source)
    title = title or f"rdbscope report: {o.source or 'dump'}"
    plots = PlotAccessor(res)
    findings = finding_rows(res)
    shown = [SECTIONS[0], NODES_SECTION, *SECTIONS[1:]] if o.n_sources > 1 else SECTIONS
    nav = "".join(f"<a href=\"#{id_}\">{_e(heading)}</a>" for id_, heading in shown)
    parts = [(f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
             f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
             f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body><main>"),
             f"<h1>{_e(title)}</h1>", f"<p class=\"sub\">{_e(_subtitle(o))}</p>", f"<nav>{nav}</nav>"]
    if res.skipped:
        parts.append(f"<p class=\"sub\">Not run: {_e(', '.join(res.skipped))} (they need every key in memory, more "
                     f"than the memory budget).</p>")
    sections: dict[str, list[str]] = {
        "overview": [_cards(o)],
        "summary": _summary(triage(res)),
        "memory": [_figure(plots, "memory_by_pattern"), _figure(plots, "treemap"),
                   "<h3>Top patterns by memory</h3>", _table(*_with_library(pattern_rows(res, top))),
                   _figure(plots, "key_sizes"), _figure(plots, "key_sizes_memory"), _figure(plots, "types")],
        "findings": _finding_groups(findings, top * 2) if len(findings) else ["<p>No findings.</p>"],
        "keys": [_table(big_key_rows(res, min(top, SHOWN_KEYS)), ["db", "key", "source", "pattern", "type", "encoding",
                                                          "memory_bytes", "rdb_bytes", "n_elements", "expire_at",
                                                          "codes"])],
        "ttl": [_figure(plots, "ttl"), _figure(plots, "ttl_memory"), _table(ttl_overview_rows(res), None), "<p></p>",
                _table(ttl_pattern_rows(res, top), ["db", "pattern", "n_keys", "n_without_ttl", "share_without_ttl",
                                                    "memory_bytes_without_ttl", "volatile_name", "ttl_s_p50",
                                                    "ttl_s_max"])],
        "expiry": [_figure(plots, "expiry"), _expiry_table(res)],
        "activity": _activity(res, top),
    }
    if o.n_sources > 1:
        sections["nodes"] = [_table(node_rows(res), _NODE_COLUMNS)]
    headings = dict(shown)
    headings["findings"] = f"Findings ({len(findings)})"
    for id_, _heading in shown:
        parts.append(f"<section id=\"{id_}\"><h2>{_e(headings[id_])}</h2>")
        parts += sections[id_]
        parts.append("</section>")
    generated = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    parts.append(f"<footer>Written by rdbscope {_e(_version())} on {generated}. Memory figures are "
                 f"{'estimates of MEMORY USAGE' if o.memory_basis == 'est_memory_bytes' else 'sizes in the dump'}"
                 f". TTLs are measured from the dump's ctime. Click a column header to sort.</footer>")
    parts.append(f"</main><script>{_SORT_SCRIPT}</script></body></html>\n")
    return "\n".join(parts)


def write_html(res, path: str | os.PathLike, source=None, top=25) -> str | os.PathLike:
    """Write :func:`render_html` to ``path`` atomically (a temporary file, then a rename)."""
    document = render_html(res, source=source, top=top)
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(document)
    return path


def figure_data_uri(fig) -> str:
    """A matplotlib Figure as a ``data:image/svg+xml;base64,...`` URI."""
    import matplotlib

    buffer = io.BytesIO()
    # the SVG's element ids from a fixed salt, not a random one: the same report gives the same bytes
    with matplotlib.rc_context({"svg.hashsalt": "rdbscope"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    return "data:image/svg+xml;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _figure(plots, name):
    caption = _FIGURE_CAPTIONS[name]
    # "<figure>_memory": the figure by memory rather than by keys.
    fig = getattr(plots, name.removesuffix("_memory"))(**({"by": "memory"} if name.endswith("_memory") else {}))
    return (f"<figure><img alt=\"{_e(caption)}\" src=\"{figure_data_uri(fig)}\">"
            f"<figcaption>{_e(caption)}</figcaption></figure>")


def _with_library(rows):
    """The pattern rows and columns: library and key kind in one column, there when a library owns a pattern."""
    if not rows["library"].notna().any():
        return rows, [c for c in _PATTERN_COLUMNS if c != "library"]
    owner = (rows["library"].fillna("") + ": " + rows["key_kind"].fillna("")).where(rows["library"].notna(), "")
    return rows.assign(library=owner), _PATTERN_COLUMNS


def _table(frame, columns):
    columns = [c for c in (columns or list(frame.columns)) if c in frame.columns]
    numeric = {c: is_numeric_column(frame[c]) for c in columns}
    times = {c: pd.api.types.is_datetime64_any_dtype(frame[c]) for c in columns}
    head = "".join(f"<th class=\"{'num' if numeric[c] else ''}\">{_e(label(c))}</th>" for c in columns)
    rows = []
    for row in frame[columns].itertuples(index=False):
        cells = []
        for column, value in zip(columns, row, strict=True):
            text = cell_text(column, value)
            if column == "severity" and text:
                cells.append(f"<td><span class=\"sev sev-{_e(text)}\">{_e(text)}</span></td>")
            elif numeric[column]:
                # The raw number, so that sorting "1.2 MB" against "900 KB" sorts bytes.
                raw = "" if text == "" else repr(value.item() if hasattr(value, "item") else value)
                cells.append(f"<td class=\"num\" data-value=\"{_e(raw)}\">{_e(text)}</td>")
            elif _KEY_COLUMNS.get(column) == "key":
                text = '""' if isinstance(value, str) and value == "" else text  # the empty key, not a blank
                # One line, cut with an ellipsis at the column's width; the whole name on hover.
                cells.append(f"<td class=\"key\"><div class=\"clip\" title=\"{_e(text)}\">{_e(text)}</div></td>")
            elif times[column]:
                cells.append(f"<td class=\"time\">{_e(text)}</td>")
            else:
                cells.append(f"<td class=\"{_KEY_COLUMNS.get(column, '')}\">{_e(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table class=\"sortable\"><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _finding_groups(findings, most):
    """One collapsible group per code, most severe first; errors start open."""
    groups = []
    for code, rows in findings.groupby("code", sort=False):
        severity, name = rows["severity"].iloc[0], rows["name"].iloc[0]
        stats = [f"{len(rows)} finding{'s' if len(rows) != 1 else ''}"]
        if rows["n_keys"].notna().any():
            n_keys = int(rows["n_keys"].sum())
            stats.append(f"{n_keys:,} key{'s' if n_keys != 1 else ''}")
        if rows["est_memory_bytes"].notna().any():
            stats.append(cell_text("memory_bytes", int(rows["est_memory_bytes"].sum())))
        more = f"<p class=\"sub\">… and {len(rows) - most} more</p>" if len(rows) > most else ""
        groups.append(
            f"<details id=\"finding-{_e(code)}\"{' open' if severity == 'error' else ''}><summary>"
            f"<span class=\"sev sev-{_e(severity)}\">{_e(severity)}</span><span class=\"code\">{_e(code)}</span>"
            f"<span class=\"name\">{_e(name)}</span><span class=\"stats\">{_e(' · '.join(stats))}</span>"
            f"</summary>{_table(rows.head(most), _FINDING_COLUMNS)}{more}</details>")
    return groups


def _summary(tri):
    """The triage summary: its parts two by two, then the savings as a numbered list."""
    def part(title, frame, columns=None, note=None):
        body = _table(frame, columns) if frame is not None and len(frame) else f"<p class=\"sub\">{_e(note)}</p>"
        return f"<div><h3>{_e(title)}</h3>{body}</div>"

    notes = tri.notes
    activity = tri.activity
    blocks = [
        part("Memory by type", tri.by_type, ["type", "n_keys", "memory_bytes", "memory_share", "avg_bytes",
                                              "largest_key", "largest_bytes"], notes.get("by_type")),
        part("Top patterns by memory", tri.top_patterns, None, "no patterns"),
        part("Memory freed over time (TTL left at save)", tri.ttl_buckets, None, notes.get("ttl_buckets")),
        part("Expiry incidents", _incidents_in_short(tri.incidents), ["pattern", "start", "for_s", "n_keys",
                                                                      "memory_bytes"],
             notes.get("incidents") or "None: no pattern's keys expire together."),
    ]
    cold = part("Cold and hot memory", None, note=notes.get("activity")) if activity is None else \
        (f"<div><h3>Cold and hot memory</h3><p class=\"sub\">{_e(activity.note)}</p>"
         f"{_table(activity.rows, None) if len(activity.rows) else ''}</div>")
    def actions(title, listed):
        items = "".join(f"<li><b>{_e(cell_text('bytes', s.bytes))}</b> {_e(printable(s.action))} <span class=\"code\">"
                        f"{_e(s.code)}</span></li>" for s in listed) or "<li>none found</li>"
        return f"<div><h3>{_e(title)}</h3><ol class=\"savings\">{items}</ol></div>"

    savings = actions("Largest savings", tri.savings)
    if tri.at_risk:
        savings += actions("Memory at risk: expiring at once (jitter spreads it, frees none)", tri.at_risk)
    return [f"<div class=\"pair\">{''.join(blocks)}{cold}{savings}</div>"]


def _incidents_in_short(incidents):
    """The summary's incidents as the terminal shows them: the whole dump's named so, how long each lasts."""
    if incidents is None or not len(incidents):
        return incidents
    whole = incidents["scope"] == "all"
    return incidents.assign(pattern=incidents["pattern"].where(~whole, "(whole dump)"),
                            for_s=(incidents["end"] - incidents["start"]).dt.total_seconds().astype("int64"))


def _activity(res, top):
    """Every pattern's idle memory and LFU counters, or why there are none."""
    from .triage import activity_rows

    note, frame = activity_rows(res, top)
    return [f"<p class=\"sub\">{_e(note)}</p>"] + ([_table(frame, None)] if frame is not None and len(frame) else [])


def _expiry_table(res):
    """Every incident: the timeline above marks each of them."""
    incidents = expiry_burst_rows(res)
    if not len(incidents):
        return "<p>No expiry incidents.</p>"
    return _table(incidents, ["scope", "db", "pattern", "start", "end", "n_keys", "memory_bytes",
                              "share_of_ttl_keys", "keys_in_batches"])


def _cards(o):
    from .cells import cell_text as fmt

    cards = [(f"{o.n_keys:,}", f"{'key' if o.n_keys == 1 else 'keys'} in {o.n_dbs} db{'s' if o.n_dbs != 1 else ''}"),
             (fmt("memory_bytes", o.memory_bytes),
              "estimated memory of the keys" if o.memory_basis == "est_memory_bytes" else "bytes of keys in the dump")]
    if o.used_mem_bytes is not None:
        cards.append((fmt("used_mem_bytes", o.used_mem_bytes), "used-mem when saved"))
    cards.append((f"{o.n_patterns:,}", "patterns"))
    if o.n_keys:
        cards.append((fmt("share", o.n_with_ttl / o.n_keys), f"of keys have a TTL ({o.n_with_ttl:,})"))
    counts = ", ".join(f"{n} {severity}{'s' if n != 1 and severity != 'info' else ''}"
                       for severity, n in o.n_findings.items() if n) or "none"
    cards.append((f"{sum(o.n_findings.values())}", f"findings: {counts}"))
    return "<div class=\"cards\">" + "".join(
        f"<div class=\"card\"><b>{_e(value)}</b><span>{_e(text)}</span></div>" for value, text in cards) + "</div>"


def _subtitle(o):
    if o.n_sources > 1:
        return f"{o.n_sources} dumps read as one keyspace: one row each under Nodes"
    text = f"{o.magic} RDB {o.rdb_version}"
    if o.writer:
        text += f", written by {o.writer}"
    if o.ctime:
        text += f" at {o.ctime:%Y-%m-%d %H:%M:%S} UTC"
    return text


def _version():
    from importlib import metadata

    try:
        return metadata.version("rdbscope")
    except metadata.PackageNotFoundError:
        return ""


def _e(text):
    return html.escape(str(text), quote=True)
