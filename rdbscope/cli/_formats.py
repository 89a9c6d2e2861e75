"""Data on stdout as a table, JSON or CSV; cells formatted by their column's unit (report.cells)."""

import sys

from ._console import message, out
from ._options import Format

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
        shown, widths = _fitting(frame, columns, out.width)
        if len(shown) < len(columns):
            from ..findings import count

            hidden = len(columns) - len(shown)
            where = "the terminal" if out.is_terminal else f"{out.width} columns (set COLUMNS for more)"
            message(f"({count(hidden, 'column')} of '{title.strip() if title else 'the table'}' "
                    f"{'does' if hidden == 1 else 'do'} not fit {where}; --format csv or json gives them all)")
        print_renderable(rich_table(frame, title=title, columns=shown, widths=widths))


def _fitting(frame, columns, width):
    """The leading columns (most important first) that fit ``width``, and the width of each: numbers
    and times whole, text columns cut down alike (the widest first), none below its minimum."""
    longest = {name: _longest(frame[name], name) for name in columns}
    floor = {name: longest[name] if _kept_whole(frame[name]) else _narrowest(frame[name], name) for name in columns}
    shown = list(columns)
    while True:
        # A box table: one rule between columns and at each edge, one space of padding each side.
        room = width - 3 * len(shown) - 1
        cap = _text_cap([longest[n] for n in shown], [floor[n] for n in shown], room)
        if cap is not None or len(shown) <= 2:
            break
        shown.pop()
    if cap is None:  # even two columns do not fit: let rich fold them
        return shown, None
    return shown, {name: max(floor[name], min(longest[name], cap)) for name in shown}


def _text_cap(longest, floor, room):
    """The largest width ``cap`` such that columns ``max(floor, min(longest, cap))`` wide fit ``room``;
    None when even their floors do not."""
    def total(cap):
        return sum(max(f, min(n, cap)) for n, f in zip(longest, floor, strict=True))

    if total(0) > room:
        return None
    low, high = 0, max(longest, default=0)
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if total(middle) <= room else (low, middle - 1)
    return low


def _kept_whole(series):
    """Numbers and times are never wrapped in a terminal table."""
    import pandas as pd

    from ..report.cells import is_numeric_column

    return is_numeric_column(series) or pd.api.types.is_datetime64_any_dtype(series)


def print_renderable(renderable):
    """Print to stdout as wide as the terminal, or to a pipe or file as wide as COLUMNS or PIPE_WIDTH;
    text wraps between words."""
    out.print(renderable)


def rich_table(frame, *, title=None, columns=None, widths=None):
    """A rich Table of a DataFrame, cells formatted by column name; ``widths`` fixes the width of
    each column (text folds inside it)."""
    from rich.table import Table
    from rich.text import Text

    from ..report.cells import cell_text, is_numeric_column, label

    columns = [c for c in (columns or list(frame.columns)) if c in frame.columns]
    table = Table(title=f"\n{title}" if title else None, title_justify="left", title_style="bold",
                  header_style="bold")
    for name in columns:
        whole = _kept_whole(frame[name])
        # Without widths, on a narrow terminal rich squeezes the wrappable columns first: keep names readable.
        min_width = None if whole else _narrowest(frame[name], name)
        table.add_column(label(name), justify="right" if is_numeric_column(frame[name]) else "left",
                         overflow="fold", no_wrap=whole, min_width=min_width,
                         width=widths[name] if widths else None)
    for row in frame[columns].itertuples(index=False):
        table.add_row(*(Text(cell_text(name, value)) for name, value in zip(columns, row, strict=True)))
    return table


def _narrowest(series, name):
    """The narrowest a text column gets: its TEXT_MIN_WIDTH (6 if not listed), the longest word of its
    header, at most its widest cell."""
    from ..report.cells import label

    return max(min(TEXT_MIN_WIDTH.get(name, 6), _longest(series, name)), *map(len, label(name).split()))


def _longest(series, name):
    """The widest cell of a column (its header included), in terminal cells."""
    from rich.cells import cell_len

    from ..report.cells import cell_text, label

    return max([cell_len(label(name))] + [cell_len(cell_text(name, v)) for v in series])


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
