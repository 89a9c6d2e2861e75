"""rdbscope info: what a dump holds, at a glance."""

import contextlib
from dataclasses import asdict
from typing import Annotated

from ._console import exits_on_bad_input, out, print_wrapped, scan_progress
from ._formats import write_json
from ._options import Dump, Format, JsonAlias, format_option, takes_load_options


@exits_on_bad_input
@takes_load_options(filters=False)
def info_command(
    dump: Dump,
    fmt: Annotated[Format, format_option(Format.table, Format.json)] = Format.table,
    as_json: JsonAlias = False,
    load=None,
):
    """Show DUMP's format version, AUX fields, databases, key counts and estimated memory.

    The table form prints the header, AUX fields and RESIZEDB hints as soon as
    they are read, then the counts when the scan ends; numbers are for people
    (1,234 keys, 1.5 MB, ctime in UTC). --format json gives raw numbers (ctime
    as the epoch the dump stores).
    """
    from ..sources import check_dump, scanning, shown_name, without_password
    from ..summary import SummaryCounter

    fmt = Format.json if as_json else fmt
    load = load.with_config()
    counter = SummaryCounter()
    with contextlib.ExitStack() as stack:
        # The bar starts after the header, so the two do not share a line of the terminal.
        shown = without_password(dump)
        header = _HeaderPrinter(shown, lambda: stack.enter_context(
            scan_progress(load.quiet, f"reading {shown_name(dump)}")), show=fmt == Format.table)
        keys = stack.enter_context(scanning(check_dump(dump), on_progress=header.on_progress,
                                            **load.scan_options()))
        header.scan = keys
        for batch in keys:
            counter.add(batch)
        header.print()
    info = keys.info
    summary = counter.summary(info)
    if fmt == Format.json:
        write_json({
            "path": shown,
            "magic": info.magic,
            "rdb_version": info.rdb_version,
            "writer": info.writer,
            "compression": info.compression,
            "checksum_verified": info.checksum_verified,
            "aux": info.aux,
            "resizedb": {str(db): list(v) for db, v in info.resizedb.items()},
            "functions": [asdict(f) for f in info.functions],
            "module_aux": info.module_aux,
            # which layout and allocator the estimates assume, and why (memory.model says it in words)
            "memory_model": asdict(info.memory_model) if info.memory_model else None,
            **asdict(summary),
        })
    else:
        _print_counts(summary, info)


class _HeaderPrinter:
    """Prints the header, AUX fields and RESIZEDB hints once the scanner has read them.

    They come before the first key, so the first progress call has them: a
    large dump shows what it is at once, not after the whole scan. Printed
    whether or not stdout is a terminal, so the output reads the same piped.
    """

    def __init__(self, dump, start_bar, show):
        self.dump, self.start_bar, self.show = dump, start_bar, show
        self.scan, self.done, self.bar = None, False, None

    def on_progress(self, done, total):
        self.print()
        if self.bar is None:
            self.bar = self.start_bar() or (lambda _done, _total: None)
        self.bar(done, total)

    def print(self):
        if self.done or not self.show or self.scan is None:
            return
        self.done = True
        from rich.table import Table
        from rich.text import Text

        info = self.scan.info

        from ..rdb.keytext import printable

        out.print(Text.assemble((printable(self.dump), "bold"), f": {info.magic} RDB {info.rdb_version}"
                                + (f", written by {info.writer}" if info.writer else "")
                                + (f", {info.compression}-compressed" if info.compression else "")), soft_wrap=True)
        if info.aux:
            table = Table("aux field", "value", title="AUX fields", title_justify="left")
            for name, value in info.aux.items():
                table.add_row(name, _aux_value(name, value))
            out.print(table)
        if info.resizedb:
            print_wrapped(Text("RESIZEDB hints: " + "; ".join(
                f"db{db} {keys:,} keys, {expires:,} with expiry" for db, (keys, expires) in info.resizedb.items())))


def _aux_value(name, value):
    """AUX values for people: ctime as ISO 8601 UTC (raw, saying so, when no clock could have written it),
    used-mem in MB."""
    if name == "ctime" and value.removeprefix("-").isdigit():
        from ..rdb.instants import ctime_seconds, iso_ms

        seconds = ctime_seconds({"ctime": value})
        return value + " (out of range)" if seconds is None else iso_ms(seconds * 1000)
    if not value.isdigit():
        return value
    if name == "used-mem":
        from ..findings import format_bytes

        return format_bytes(int(value))
    return value


def _print_counts(summary, info):
    from rich.table import Table
    from rich.text import Text

    from ..findings import count, format_bytes

    out.print(f"{count(summary.n_keys, 'key')}, {format_bytes(summary.rdb_bytes)} of entries; checksum "
              + ("verified" if info.checksum_verified else "not verified"))
    memory = summary.memory
    if memory.model:
        used = f"; the dump's used-mem is {format_bytes(memory.used_mem_bytes)}" if memory.used_mem_bytes else ""
        print_wrapped(Text(f"estimated memory: {format_bytes(memory.total_bytes)} ({format_bytes(memory.keys_bytes)} "
                           f"in keys, {format_bytes(memory.overhead_bytes)} in key tables){used}"))
        print_wrapped(Text(f"memory model: {memory.model}"))
    out.print(_groups("db", summary.by_db, {str(db): v for db, v in info.resizedb.items()}))
    out.print(_groups("type", summary.by_type))
    out.print(_groups("type/encoding", summary.by_encoding))
    if info.functions:
        table = Table("library", "engine", "functions", title="Functions", title_justify="left")
        for lib in info.functions:
            table.add_row(lib.name, lib.engine, ", ".join(lib.functions))
        out.print(table)
    if info.module_aux:
        print_wrapped(Text("module aux data: " + ", ".join(info.module_aux)))


def _groups(title, groups, hints=None):
    from rich.table import Table

    from ..findings import format_bytes

    table = Table(title, "keys", "with TTL", "rdb bytes", "est. memory", title=f"By {title}", title_justify="left")
    for column in table.columns[1:]:
        column.justify = "right"
    if hints is not None:
        table.add_column("RESIZEDB hint: keys / expires", justify="right")
    for g in groups:
        row = [g.name, f"{g.n_keys:,}", f"{g.n_with_ttl:,}", format_bytes(g.rdb_bytes),
               format_bytes(g.est_memory_bytes)]
        if hints is not None:
            hint = hints.get(g.name)
            row.append(f"{hint[0]:,} / {hint[1]:,}" if hint else "")
        table.add_row(*row)
    return table
