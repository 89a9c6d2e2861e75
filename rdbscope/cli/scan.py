"""rdbscope scan: a dump into a Parquet keys table."""

from pathlib import Path

import typer
from typing import Annotated

from ..rdb import scan
from ..report.parquet import write_keys_parquet
from ._console import exits_on_bad_input, err, out, progress_bar
from ._options import (AllocatorOption, CompressDepth, Db, Dump, Match, NoCrc, Quiet, Relaxed, Type,
                       scan_options)


@exits_on_bad_input
def scan_command(
    dump: Dump,
    output: Annotated[Path, typer.Option("--output", "-o", help="Parquet file to write.", dir_okay=False)],
    db: Db = None,
    type_: Type = None,
    match: Match = None,
    no_crc: NoCrc = False,
    relaxed_version: Relaxed = False,
    stop_on_damage: Annotated[bool, typer.Option(
        "--stop-on-damage", help="Keep the keys read before damage instead of failing.")] = False,
    allocator: AllocatorOption = "jemalloc",
    list_compress_depth: CompressDepth = 0,
    quiet: Quiet = False,
):
    """Scan DUMP into a Parquet table with one row per key."""
    options = scan_options(db, type_, match, no_crc, relaxed_version, allocator, list_compress_depth)
    with progress_bar(quiet, f"scanning {dump.name}") as on_progress:
        result = scan(dump, on_progress=on_progress, on_error="stop" if stop_on_damage else "raise", **options)
        rows = write_keys_parquet(result, output)
    if result.info.stopped_by is not None:
        err.print(f"warning: stopped at offset {result.info.truncated_at}: {result.info.stopped_by}")
    err.print(f"{rows} keys from {dump} ({result.info.magic} RDB {result.info.rdb_version})")
    out.print(str(output))
