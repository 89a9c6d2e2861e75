"""Options shared by the commands that read a dump."""

from enum import Enum
from pathlib import Path
from typing import Annotated, List, Optional

import typer

Dump = Annotated[Path, typer.Argument(help="The dump: dump.rdb, or a .gz/.zst/.lz4/.bz2/.xz backup of one.",
                                       exists=True, dir_okay=False, readable=True)]
Db = Annotated[Optional[List[int]], typer.Option("--db", help="Keep only this db (repeatable).")]
Type = Annotated[Optional[List[str]], typer.Option("--type", help="Keep only this type (repeatable).")]
Match = Annotated[Optional[str], typer.Option("--match", help="Keep only keys matching this glob.")]
NoCrc = Annotated[bool, typer.Option("--no-crc", help="Do not verify the CRC64 trailer.")]
Relaxed = Annotated[bool, typer.Option("--relaxed-version", help="Read newer RDB versions with the newest rules.")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]


class Allocator(str, Enum):
    jemalloc = "jemalloc"
    jemalloc_16 = "jemalloc-16"
    libc = "libc"


AllocatorOption = Annotated[Allocator, typer.Option(
    "--allocator",
    help="The allocator of the server the memory estimates are for (INFO memory: mem_allocator): "
         "jemalloc for Redis's and Valkey's own builds, jemalloc-16 for distribution packages "
         "(Debian, Ubuntu), libc for MALLOC=libc builds.")]
CompressDepth = Annotated[int, typer.Option(
    "--list-compress-depth", min=0, help="The server's list-compress-depth, for list memory estimates.")]


def scan_options(db, types, match, no_crc, relaxed, allocator=Allocator.jemalloc, list_compress_depth=0):
    """The keyword arguments of rdbscope.scan/load that these options set."""
    return {
        "db": db or None,
        "types": types or None,
        "key_glob": match,
        "verify_crc": not no_crc,
        "relaxed_version": relaxed,
        "allocator": Allocator(allocator).value,
        "list_compress_depth": list_compress_depth,
    }


Input = Annotated[Path, typer.Argument(
    help="A dump (dump.rdb, or a .gz/.zst/.lz4/.bz2/.xz backup of one), or a keys Parquet file "
         "written by 'rdbscope scan'.",
    exists=True, dir_okay=False, readable=True, show_default=False)]


class Format(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


class FailOn(str, Enum):
    info = "info"
    warning = "warning"
    error = "error"
    never = "never"


FormatOption = Annotated[Format, typer.Option(
    "--format", "-f", help="table for people; json or csv for programs (raw numbers, bytes as integers).")]
Top = Annotated[int, typer.Option("--top", "-n", min=1, help="Show at most this many rows per table.")]
FailOnOption = Annotated[FailOn, typer.Option(
    "--fail-on", help="Exit with code 1 when a finding of this severity or above is reported.")]
ConfigOption = Annotated[Optional[Path], typer.Option(
    "--config", help="Thresholds from this rdbscope.toml or pyproject.toml ([tool.rdbscope]).",
    exists=True, dir_okay=False, show_default=False)]
