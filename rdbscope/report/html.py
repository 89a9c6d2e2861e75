"""One self-contained HTML page of a :class:`~rdbscope.Result`: no scripts, no network.

Figures are embedded as base64 SVG images; styles are inline. Every text from
the dump (patterns, keys, messages) is HTML-escaped.
"""

import base64
import datetime
import html
import io
import os

from .atomic import atomic_path
from .cells import cell_text, label, is_numeric_column
from .plots import FIGURES, PlotAccessor
from .views import (big_key_rows, expiry_burst_rows, finding_rows, overview, pattern_rows, ttl_overview_rows,
                    ttl_pattern_rows)

__all__ = ["render_html", "write_html", "figure_data_uri"]

_FIGURE_CAPTIONS = {
    "memory_by_pattern": "Memory by pattern",
    "treemap": "Memory by pattern (treemap)",
    "key_sizes": "Key size distribution",
    "types": "Types and encodings",
    "ttl": "TTL distribution",
    "expiry": "Expiry timeline",
}

_STYLE = """
body { font-family: -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif; margin: 0;
       color: #222; background: #f6f7f9; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 32px 0 10px; }
.sub { color: #555; margin: 0 0 18px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(170px, 1fr)); gap: 10px; }
.card { background: #fff; border: 1px solid #e2e4e8; border-radius: 6px; padding: 10px 14px; }
.card b { display: block; font-size: 20px; } .card span { color: #555; font-size: 12px; }
figure { background: #fff; border: 1px solid #e2e4e8; border-radius: 6px; margin: 0 0 14px; padding: 8px; }
figure img { width: 100%; max-width: 940px; height: auto; display: block; margin: 0 auto; }
figcaption { color: #555; font-size: 12px; padding: 4px 6px 0; }
table { border-collapse: collapse; background: #fff; font-size: 12.5px; width: 100%;
        border: 1px solid #e2e4e8; }
th, td { padding: 4px 8px; border-bottom: 1px solid #eceef1; text-align: left; vertical-align: top; }
th { background: #f0f2f5; font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
td.key, td.keys { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12px; }
td.key { white-space: nowrap; } td.keys { overflow-wrap: anywhere; min-width: 220px; }
.sev { border-radius: 3px; padding: 1px 6px; color: #fff; font-size: 11px; }
.sev-error { background: #c62828; } .sev-warning { background: #ef8f00; } .sev-info { background: #607d8b; }
footer { color: #777; font-size: 12px; margin-top: 36px; }
"""

_KEY_COLUMNS = {"pattern": "key", "key": "key", "examples": "keys"}


def render_html(res, source=None, top=25, title=None):
    """The report as one HTML document (a string).

    Args:
        res: a :class:`~rdbscope.Result`.
        source: the dump's file name, shown in the title.
        top: rows per table.
        title: the page title (default: ``rdbscope report: SOURCE``).
    """
    o = overview(res, source)
    title = title or f"rdbscope report: {o.source or 'dump'}"
    parts = [f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
             f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
             f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body><main>",
             f"<h1>{_e(title)}</h1>", f"<p class=\"sub\">{_e(_subtitle(o))}</p>", _cards(o)]
    findings = finding_rows(res)
    parts.append(f"<h2>Findings ({len(findings)})</h2>")
    parts.append(_table(findings.head(top * 2), ["severity", "code", "db", "pattern", "n_keys", "est_memory_bytes",
                                                 "message"]) if len(findings) else "<p>No findings.</p>")
    plots = PlotAccessor(res)
    parts.append("<h2>Memory</h2>")
    parts += [_figure(plots, name) for name in ("memory_by_pattern", "treemap")]
    parts.append(f"<h2>Top patterns by memory</h2>")
    parts.append(_table(pattern_rows(res, top), ["db", "pattern", "n_keys", "share", "memory_bytes_sum",
                                                 "memory_share", "memory_bytes_p50", "memory_bytes_max",
                                                 "ttl_share", "types", "encodings", "examples"]))
    parts += [_figure(plots, name) for name in ("key_sizes", "types")]
    parts.append("<h2>Biggest keys</h2>")
    parts.append(_table(big_key_rows(res, min(top, 20)), ["db", "key", "pattern", "type", "encoding",
                                                          "memory_bytes", "rdb_bytes", "n_elements", "expire_at",
                                                          "codes"]))
    parts.append("<h2>TTL coverage</h2>")
    parts.append(_figure(plots, "ttl"))
    parts.append(_table(ttl_overview_rows(res), None))
    parts.append("<p></p>")
    parts.append(_table(ttl_pattern_rows(res, top), ["db", "pattern", "n_keys", "n_without_ttl",
                                                     "share_without_ttl", "memory_bytes_without_ttl",
                                                     "volatile_name", "ttl_s_p50", "ttl_s_max"]))
    parts.append("<h2>Expiry cliffs</h2>")
    parts.append(_figure(plots, "expiry"))
    bursts = expiry_burst_rows(res, top)
    parts.append(_table(bursts, ["scope", "db", "pattern", "window_s", "start", "n_keys", "expected_keys",
                                 "share_of_ttl_keys"]) if len(bursts) else "<p>No expiry cliffs.</p>")
    generated = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    parts.append(f"<footer>Written by rdbscope {_e(_version())} on {generated}. Memory figures are "
                 f"{'estimates of MEMORY USAGE' if o.memory_basis == 'est_memory_bytes' else 'sizes in the dump'}"
                 f". TTLs are measured from the dump's ctime.</footer>")
    parts.append("</main></body></html>\n")
    return "\n".join(parts)


def write_html(res, path, source=None, top=25):
    """Write :func:`render_html` to ``path`` atomically (a temporary file, then a rename)."""
    document = render_html(res, source=source, top=top)
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(document)
        os.chmod(tmp, 0o666 & ~_umask())  # the temporary file was private; a report is shared
    return path


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def figure_data_uri(fig):
    """A matplotlib Figure as a ``data:image/svg+xml;base64,...`` URI."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None})
    return "data:image/svg+xml;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _figure(plots, name):
    fig = getattr(plots, name)()
    caption = _FIGURE_CAPTIONS[name]
    return (f"<figure><img alt=\"{_e(caption)}\" src=\"{figure_data_uri(fig)}\">"
            f"<figcaption>{_e(caption)}</figcaption></figure>")


def _table(frame, columns):
    columns = [c for c in (columns or list(frame.columns)) if c in frame.columns]
    numeric = {c: is_numeric_column(frame[c]) for c in columns}
    head = "".join(f"<th class=\"{'num' if numeric[c] else ''}\">{_e(label(c))}</th>" for c in columns)
    rows = []
    for row in frame[columns].itertuples(index=False):
        cells = []
        for column, value in zip(columns, row):
            text = cell_text(column, value)
            if column == "severity" and text:
                cells.append(f"<td><span class=\"sev sev-{_e(text)}\">{_e(text)}</span></td>")
            else:
                css = "num" if numeric[column] else _KEY_COLUMNS.get(column, "")
                cells.append(f"<td class=\"{css}\">{_e(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _cards(o):
    from .cells import cell_text as fmt

    cards = [(f"{o.n_keys:,}", f"keys in {o.n_dbs} db{'s' if o.n_dbs != 1 else ''}"),
             (fmt("memory_bytes", o.memory_bytes),
              "estimated memory of the keys" if o.memory_basis == "est_memory_bytes" else "bytes of keys in the dump")]
    if o.used_mem_bytes is not None:
        cards.append((fmt("used_mem_bytes", o.used_mem_bytes), "used-mem when saved"))
    cards.append((f"{o.n_patterns:,}", "patterns"))
    if o.n_keys:
        cards.append((fmt("share", o.n_with_ttl / o.n_keys), f"of keys have a TTL ({o.n_with_ttl:,})"))
    counts = ", ".join(f"{n} {s}" for s, n in o.n_findings.items() if n) or "none"
    cards.append((f"{sum(o.n_findings.values())}", f"findings: {counts}"))
    return "<div class=\"cards\">" + "".join(
        f"<div class=\"card\"><b>{_e(value)}</b><span>{_e(label)}</span></div>" for value, label in cards) + "</div>"


def _subtitle(o):
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
