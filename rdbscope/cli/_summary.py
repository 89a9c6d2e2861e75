"""The triage summary on a terminal: one screen (120 x 40) of compact tables, two side by side."""

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from ..findings import format_bytes
from ..report.cells import cell_text, printable
from ._console import PLAIN

#: Widest a pattern or key name gets in the summary before it is cut with "…".
NAME_WIDTH = 22
#: Widest a saving's action gets: with its number, bytes and code, a line of 120 columns.
ACTION_WIDTH = 92


def summary_renderable(tri):
    """A rich renderable of a :class:`~rdbscope.report.triage.Triage`."""
    return Group(
        _side_by_side(_by_type(tri), _top_patterns(tri)),
        _side_by_side(_ttl_buckets(tri), Group(_incidents(tri), _activity(tri))),
        _savings(tri),
        *([_at_risk(tri)] if tri.at_risk else []),
    )


def summary_text(tri, width=120):
    """The summary as plain text ``width`` wide, without the spaces the side-by-side tables pad lines with
    (what a pipe or file gets: the terminal layout, not one stretched to the widest table)."""
    import io

    from rich.console import Console

    buffer = io.StringIO()
    Console(file=buffer, width=width, color_system=None, **PLAIN).print(summary_renderable(tri))
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines()) + "\n"


def _side_by_side(left, right):
    return _SideBySide(left, right)


class _SideBySide:
    """Two renderables side by side when the right one has room beside the left at its narrowest
    (on 120 columns), else one under the other (on 80)."""

    def __init__(self, left, right):
        self.left, self.right = left, right

    def __rich_console__(self, console, options):
        from rich.measure import Measurement

        left = Measurement.get(console, options, self.left).maximum
        right = Measurement.get(console, options, self.right).minimum
        if left + 2 + right > options.max_width:
            yield self.left
            yield self.right
            return
        grid = Table.grid(padding=(0, 2))
        grid.add_column(vertical="top")
        grid.add_column(vertical="top")
        grid.add_row(self.left, self.right)
        yield grid


def _table(title, columns):
    """A borderless table (a rule under the header) titled ``title`` (None: untitled)."""
    table = Table(title=f"\n{title}" if title else None, title_justify="left", title_style="bold",
                  header_style="bold", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
    for name, right in columns:
        table.add_column(name, justify="right" if right else "left", no_wrap=True,
                         max_width=NAME_WIDTH if not right else None, overflow="ellipsis")
    return table


def _missing(title, text):
    return Text.assemble(("\n" + title, "bold"), f"\n{text}")


def _name(text):
    return printable(str(text), NAME_WIDTH)


def _by_type(tri):
    title = "Memory by type"
    if tri.by_type is None:
        return _missing(title, tri.notes.get("by_type", ""))
    table = _table(title, [("type", False), ("keys", True), ("memory", True), ("avg", True),
                           ("largest key", False), ("its size", True)])
    for r in tri.by_type.itertuples(index=False):
        table.add_row(r.type, f"{r.n_keys:,}", format_bytes(r.memory_bytes), format_bytes(r.avg_bytes),
                      _name(r.largest_key), format_bytes(r.largest_bytes))
    return table


def _top_patterns(tri):
    title = "Top patterns by memory"
    if tri.top_patterns is None:
        return _missing(title, "the patterns pass did not run")
    table = _table(title, [("pattern", False), ("keys", True), ("memory", True), ("%", True)])
    for r in tri.top_patterns.itertuples(index=False):
        name = (f"db{r.db} " if r.db else "") + r.pattern
        table.add_row(_name(name), f"{r.n_keys:,}", format_bytes(r.memory_bytes_sum),
                      cell_text("share", r.memory_share))
    return table


def _ttl_buckets(tri):
    title = "Memory freed over time"
    if tri.ttl_buckets is None:
        return _missing(title, tri.notes.get("ttl_buckets", ""))
    table = _table(title, [("TTL left", False), ("keys", True), ("memory", True), ("%", True)])
    for r in tri.ttl_buckets.itertuples(index=False):
        table.add_row(r.expires, f"{r.n_keys:,}", format_bytes(r.memory_bytes), cell_text("share", r.memory_share))
    return table


def _incidents(tri):
    title = "Expiry incidents"
    if tri.incidents is None:
        return _missing(title, tri.notes.get("incidents", ""))
    if not len(tri.incidents):
        return _missing(title, "none: no pattern's keys expire together")
    table = _table(title, [("pattern", False), ("starts", False), ("for", True), ("keys", True),
                           ("memory", True)])
    for r in tri.incidents.itertuples(index=False):
        name = "(whole dump)" if r.scope == "all" else _name(r.pattern)
        seconds = int((r.end - r.start).total_seconds())
        table.add_row(name, f"{r.start:%Y-%m-%d %H:%M:%S}Z", cell_text("window_s", seconds), f"{r.n_keys:,}",
                      format_bytes(r.memory_bytes))
    return table


def _activity(tri):
    title = "Cold and hot memory"
    activity = tri.activity
    if activity is None:
        return _missing(title, tri.notes.get("activity", ""))
    heading = Text.assemble(("\n" + title, "bold"), f"\n{activity.note}")
    if activity.counter is None or not len(activity.rows):
        return heading
    rows = activity.rows.head(3)
    if activity.counter == "idle":
        idle = [c for c in rows.columns if c.startswith("memory_bytes_idle_over_")]
        columns = [("db", True), ("pattern", False), ("memory", True),
                   *[(f"idle > {c.rsplit('_', 1)[1]}", True) for c in idle]]
        cells = [[str(r.db), _name(r.pattern), format_bytes(r.memory_bytes),
                  *[format_bytes(getattr(r, c)) for c in idle]] for r in rows.itertuples(index=False)]
    else:
        columns = [("db", True), ("pattern", False), ("keys", True), ("memory", True), ("LFU mean", True),
                   ("LFU max", True), ("memory at 0", True)]
        cells = [[str(r.db), _name(r.pattern), f"{r.n_keys:,}", format_bytes(r.memory_bytes), f"{r.lfu_mean:.1f}",
                  str(r.lfu_max), format_bytes(r.memory_bytes_lfu_zero)] for r in rows.itertuples(index=False)]
    table = _table(None, columns)
    for row in cells:
        table.add_row(*row)
    return Group(heading, table)


def _savings(tri):
    heading = Text("\nLargest savings", style="bold")
    if not tri.savings:
        return Group(heading, Text("none found"))
    return Group(heading, _actions(tri.savings))


def _at_risk(tri):
    return Group(Text("\nMemory at risk: expiring at once (jitter spreads it, frees none)", style="bold"),
                 _actions(tri.at_risk))


def _actions(actions):
    """Numbered lines: the bytes, the action, its finding code."""
    lines = Text()
    for number, action in enumerate(actions, 1):
        lines.append(f"{number}. ")
        lines.append(f"{format_bytes(action.bytes):>9}", style="bold")
        lines.append(f"  {printable(action.action, ACTION_WIDTH)}  ")
        lines.append(f"({action.code})", style="dim")
        if number < len(actions):
            lines.append("\n")
    return lines
