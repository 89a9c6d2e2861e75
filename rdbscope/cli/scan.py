"""rdbscope scan: a dump into a Parquet keys table."""

import sys
from pathlib import Path
from typing import Annotated

import typer

from ._analysis import check_writable, nothing_kept, with_url_db
from ._console import exits_on_bad_input, message, scan_progress, waiting_for
from ._options import Dump, takes_load_options


@exits_on_bad_input
@takes_load_options()
def scan_command(
    dump: Dump,
    output: Annotated[Path, typer.Option(
        "--output", "-o", metavar="FILE", dir_okay=False, show_default=False,
        help="Parquet file to write; '-' writes it to standard output, which must not be a terminal.")],
    stop_on_damage: Annotated[bool, typer.Option(
        "--stop-on-damage", help="Keep the keys read before damage instead of failing.")] = False,
    load=None,
):
    """Scan DUMP into a Parquet table with one row per key; prints the file's name on stdout (unless the
    table goes there: -o -)."""
    from ..findings import count
    from ..report.parquet import write_keys_parquet
    from ..sources import check_dump, scanning, shown_name, without_password

    to_stdout = str(output) == "-"
    if to_stdout and sys.stdout.isatty():
        raise typer.BadParameter("'-' writes Parquet to standard output, which is a terminal here: pipe it "
                                 "into a file or a program, or name a file", param_hint="'--output'")
    if not to_stdout:
        check_writable(output, "'--output'")
    load = with_url_db(load.with_config(), [dump])
    with scan_progress(load.quiet, f"scanning {shown_name(dump)}", waiting_for(dump)) as on_progress, \
            scanning(check_dump(dump), on_progress=on_progress, on_error="stop" if stop_on_damage else "raise",
                     **load.scan_options()) as scanned:
        result = _SomeKeys(scanned, load)
        rows = write_keys_parquet(result, sys.stdout.buffer if to_stdout else output)
    if result.info.stopped_by is not None:
        message(f"warning: stopped at offset {result.info.truncated_at}: {result.info.stopped_by}")
    if not load.quiet:
        message(f"{count(rows, 'key')} from {without_password(dump)} "
                f"({result.info.magic} RDB {result.info.rdb_version})")
        if not to_stdout:
            print(output)


class _SomeKeys:
    """A scan that fails at its end when the filters kept no key, before the file replaces the old one."""

    def __init__(self, scan, load):
        self._scan, self._load = scan, load

    @property
    def info(self):
        return self._scan.info

    def __iter__(self):
        rows = 0
        for batch in self._scan:
            rows += batch.num_rows
            yield batch
        if self._load.filtered and rows == 0:
            raise nothing_kept(self.info, self._load)
