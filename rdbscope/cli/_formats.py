"""Data on stdout as a table, JSON or CSV; cells formatted by their column's unit (report.cells)."""

import sys

from ._console import PLAIN, message, out
from ._options import Format

#: Widest table written to a file or pipe.
MAX_FILE_WIDTH = 400
#: Narrowest a text column gets on a narrow terminal.
TEXT_MIN_WIDTH = {"pattern": 24, "key": 24, "message": 30, "examples": 24}

def emit(frame, output, *, title=None, columns=None):
    """Write one table to stdout as ``output`` (an OutputOptions) says; ``columns`` limits the
    terminal table's columns."""
    if output.fmt == Format.json:
        write_json(records(frame))
    elif output.fmt == Format.csv:
        write_csv(frame, safe=output.csv_safe)
    else:
        columns = [c for c in (columns or list(frame.columns)) if c in frame.columns]
        if out.is_terminal:
            shown = _fitting(frame, columns, out.width)
            if len(shown) < len(columns):
                from ..findings import count

                hidden = len(columns) - len(shown)
                message(f"({count(hidden, 'column')} of '{title.strip() if title else 'the table'}' "
                        f"{'does' if hidden == 1 else 'do'} not fit the terminal; --format csv or json gives them all)")
            columns = shown
        print_renderable(rich_table(frame, title=title, columns=columns))


def _fitting(frame, columns, width):
    """The leading columns (most important first) whose minimal widths fit ``width``."""
    from ..report.cells import is_numeric_column

    def needed(name):
        if is_numeric_column(frame[name]):
            return _longest(frame[name], name)
        return min(TEXT_MIN_WIDTH.get(name, 6), _longest(frame[name], name))

    shown = list(columns)
    while len(shown) > 2 and sum(needed(c) + 3 for c in shown) + 1 > width:
        shown.pop()
    return shown


def print_renderable(renderable):
    """Print to stdout; when stdout is not a terminal, as wide as the content needs (no folding)."""
    if out.is_terminal:
        out.print(renderable)
        return
    from rich.console import Console

    wide = Console(file=sys.stdout, width=MAX_FILE_WIDTH, soft_wrap=True, color_system=None, **PLAIN)
    wide.print(renderable)


def rich_table(frame, *, title=None, columns=None):
    """A rich Table of a DataFrame, cells formatted by column name."""
    from rich.table import Table
    from rich.text import Text

    from ..report.cells import cell_text, is_numeric_column, label

    columns = [c for c in (columns or list(frame.columns)) if c in frame.columns]
    table = Table(title=f"\n{title}" if title else None, title_justify="left", title_style="bold",
                  header_style="bold")
    for name in columns:
        numeric = is_numeric_column(frame[name])
        # On a narrow terminal rich squeezes the wrappable columns first: keep names readable.
        min_width = None if numeric else min(TEXT_MIN_WIDTH.get(name, 6), _longest(frame[name], name))
        table.add_column(label(name), justify="right" if numeric else "left", overflow="fold", no_wrap=numeric,
                         min_width=min_width)
    for row in frame[columns].itertuples(index=False):
        table.add_row(*(Text(cell_text(name, value)) for name, value in zip(columns, row, strict=True)))
    return table


def _longest(series, name):
    from ..report.cells import cell_text, label

    return max([len(label(name))] + [len(cell_text(name, v)) for v in series.head(200)])


def records(frame):
    """A DataFrame as a list of dicts of plain JSON values."""
    from ..report.cells import plain

    return [{name: plain(value) for name, value in zip(frame.columns, row, strict=True)}
            for row in frame.itertuples(index=False)]


def write_json(data):
    """JSON on stdout (indented), one document."""
    import json

    from ..rdb.keytext import json_safe
    from ..report.cells import plain

    sys.stdout.write(json_safe(json.dumps(plain(data), indent=2, ensure_ascii=False)) + "\n")


#: What makes a spreadsheet read a cell as a formula (OWASP "CSV injection"); tab and CR too.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def write_csv(frame, *, safe=True):
    """CSV on stdout with a header; lists as JSON arrays, times as ISO 8601; text with control,
    bidirectional and zero-width characters escaped as the tables show them (CSV has no escapes of its own).

    With ``safe``, a text cell that a spreadsheet would run as a formula gets a
    leading ``'`` (numbers are left alone: -5 is a number, not a formula).
    """
    import csv

    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(list(frame.columns))
    for row in frame.itertuples(index=False):
        writer.writerow([_csv_cell(v, safe) for v in row])


def _csv_cell(value, safe):
    import json

    from ..rdb.keytext import json_safe, printable
    from ..report.cells import plain

    value = plain(value)
    if value is None:
        return ""
    if isinstance(value, (list, dict)):
        value = json_safe(json.dumps(value, ensure_ascii=False))
    elif isinstance(value, str):
        value = printable(value)
    if safe and isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
