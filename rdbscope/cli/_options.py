"""The options the commands share, defined once.

This module is imported to build ``--help``: it must not import pyarrow, numpy
or pandas (nor anything of rdbscope that does).
"""

import dataclasses
import functools
import inspect
import os
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ..scale.budget import core_count

#: Where a dump can be: a path, ``-`` for standard input, or a URL (checked by rdbscope.sources, not click,
#: so that ``s3://b/k`` keeps its two slashes).
WHERE = ("; '-' reads it from standard input; a URL (s3://, gs://, az://, https://...) is read through fsspec "
         "(pip install \"rdbscope[s3]\", [gcs] or [azure]).")
Dump = Annotated[str, typer.Argument(help="The dump: dump.rdb, or a .gz/.zst/.lz4/.bz2/.xz backup of one" + WHERE,
                                     metavar="DUMP", show_default=False)]
Input = Annotated[str, typer.Argument(
    metavar="DUMP", help="A dump (dump.rdb, or a .gz/.zst/.lz4/.bz2/.xz backup of one), or a keys Parquet file "
         "written by 'rdbscope scan'" + WHERE,
    show_default=False)]
#: Several inputs read as one keyspace (a cluster's nodes); checked and expanded by rdbscope.sources.
Inputs = Annotated[list[str], typer.Argument(
    metavar="DUMP",
    help="A dump (dump.rdb, or a .gz/.zst/.lz4/.bz2/.xz backup of one) or a keys Parquet file written by "
         "'rdbscope scan'; or several dumps read as one keyspace (a cluster's nodes): several paths, a "
         "directory of dumps, or a quoted glob such as 'node-*.rdb' or 's3://bucket/nodes/*.rdb'" + WHERE,
    show_default=False)]


class Format(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"
    sarif = "sarif"
    openmetrics = "openmetrics"


#: Names accepted for a format without being offered (lint called the table "text").
FORMAT_ALIASES = {"text": "table"}


FORMAT_HELP = {Format.table: "table for people", Format.json: "json", Format.csv: "csv",
               Format.sarif: "sarif (for code-scanning tools)",
               Format.openmetrics: "openmetrics (for Prometheus: node_exporter's textfile collector)"}


def format_option(*formats):
    """The ``--format``/``-f`` option offering ``formats`` (the first is the default), for ``Annotated[Format, …]``."""
    names = [f.value for f in formats]

    def parse(value):
        if isinstance(value, Format):
            return value
        name = FORMAT_ALIASES.get(value, value)
        if name not in names:
            raise typer.BadParameter(f"{value!r} is not one of {', '.join(names)}")
        return Format(name)

    said = "; ".join(FORMAT_HELP[f] for f in formats)
    for_programs = [name for name in ("json", "csv") if name in names]
    if for_programs:
        verb = "are" if len(for_programs) > 1 else "is"
        said += f". {' and '.join(for_programs)} {verb} for programs: raw numbers, bytes as integers"
    return typer.Option("--format", "-f", parser=parse, metavar="[" + "|".join(names) + "]", help=f"{said}.")


#: ``--json``, the older spelling of ``--format json``, still accepted.
JsonAlias = Annotated[bool, typer.Option("--json", hidden=True)]


class FailOn(str, Enum):
    info = "info"
    warning = "warning"
    error = "error"
    never = "never"


FailOnOption = Annotated[FailOn, typer.Option(
    "--fail-on", help="Exit with code 1 when a finding of this severity or above is reported.")]
Top = Annotated[int, typer.Option("--top", min=1, metavar="N", help="Show at most this many rows per table.")]
ConfigOption = Annotated[Path | None, typer.Option(
    "--config", metavar="FILE",
    help="Thresholds and rules from this rdbscope.toml, or pyproject.toml (its [tool.rdbscope] table); default: the "
         "nearest one in this directory or its parents.",
    exists=True, dir_okay=False, show_default=False)]
CsvSafe = Annotated[bool, typer.Option(
    "--csv-safe/--csv-raw",
    help="--csv-safe (the default): CSV cells that begin with = + - @ (key names are anyone's input) "
         "get a leading ' so that spreadsheets show them as text instead of running them as formulas. "
         "--csv-raw writes them as they are (--format json keeps them exact either way).")]


class Allocator(str, Enum):
    jemalloc = "jemalloc"
    jemalloc_16 = "jemalloc-16"
    libc = "libc"


@dataclasses.dataclass(frozen=True)
class LoadOptions:
    """What the loading options of a command say: which keys to keep and how to read the dump."""

    db: tuple = ()
    types: tuple = ()
    match: str | None = None
    no_crc: bool = False
    relaxed_version: bool = False
    allocator: str | None = None  # None: not given, the scan assumes jemalloc and says so
    list_compress_depth: int = 0
    quiet: bool = False
    memory_budget: str | None = None
    save_dump: str | None = None
    timeout: float | None = None
    server_version: str | None = None  # --server-version; with_config() adds the config's
    no_values: bool = False

    def with_config(self, config=None):
        """These options with the config's ``server_version`` where --server-version was not given
        (``config``: a Config, or None for the nearest rdbscope.toml or pyproject.toml)."""
        if self.server_version is not None:
            return self
        if config is None:
            from ..config import load_config

            config = load_config()
        return dataclasses.replace(self, server_version=config.server_version)

    @property
    def filtered(self):
        return bool(self.db or self.types or self.match is not None)

    def scan_options(self):
        """The keyword arguments of rdbscope.scan/load that these options set."""
        return {
            "db": list(self.db) or None,
            "types": list(self.types) or None,
            "key_glob": self.match,
            "verify_crc": not self.no_crc,
            "relaxed_version": self.relaxed_version,
            **({"allocator": self.allocator} if self.allocator is not None else {}),
            "list_compress_depth": self.list_compress_depth,
            **({"save_dump": self.save_dump} if self.save_dump is not None else {}),
            **({"timeout": self.timeout} if self.timeout is not None else {}),
            **({"server_version": self.server_version} if self.server_version is not None else {}),
        }


def _split_types(values):
    """``--type hash --type set,zset`` -> ``("hash", "set", "zset")``."""
    return tuple(t.strip() for value in values or () for t in value.split(",") if t.strip())


def _check_types(types):
    """A usage error for a --type that is not a type of the keys table."""
    from ..rdb.format import TYPE_NAMES

    unknown = [t for t in types if t not in TYPE_NAMES]
    if unknown:
        raise typer.BadParameter(f"no type {unknown[0]!r} (types: {', '.join(TYPE_NAMES)})",
                                 param_hint="'--type'")


#: (parameter, annotation, default) of the options that choose keys.
FILTER_PARAMETERS = (
    ("db", Annotated[list[int] | None, typer.Option(
        "--db", "-n", metavar="N", help="Keep only this db (repeatable), as redis-cli -n. Filters that keep no key "
                           "exit 2, saying what the dump has.", show_default=False)], None),
    ("type_", Annotated[list[str] | None, typer.Option(
        "--type", metavar="TYPE", show_default=False,
        help="Keep only this type (repeatable, or comma-separated): string, list, set, zset, hash, stream, module...")],
     None),
    ("match", Annotated[str | None, typer.Option(
        "--match", metavar="GLOB", help="Keep only keys matching this glob (Redis KEYS syntax).",
        show_default=False)], None),
)
#: (parameter, annotation, default) of the options that say how to read a dump.
READ_PARAMETERS = (
    ("no_crc", Annotated[bool, typer.Option("--no-crc", help="Do not verify the CRC64 trailer.")], False),
    ("relaxed_version", Annotated[bool, typer.Option(
        "--relaxed-version", help="Read newer RDB versions with the newest rules.")], False),
    ("allocator", Annotated[Allocator, typer.Option(
        "--allocator",
        help="The allocator of the server the memory estimates are for (INFO memory: mem_allocator): "
             "jemalloc for Redis's and Valkey's own builds, jemalloc-16 for distribution packages "
             "(Debian, Ubuntu), libc for MALLOC=libc builds. A dump does not record it: without "
             "this option jemalloc is assumed.", show_default=False)], None),
    ("server_version", Annotated[str | None, typer.Option(
        "--server-version", metavar="X.Y",
        help="The release (e.g. 8.4, 7.4) an unstable server build corresponds to: a dump whose "
             "redis-ver or valkey-ver is 255.255.255 is then read with that release's memory layout and "
             "string encodings, not guessed from its RDB version. Also server_version in the config.",
        show_default=False)], None),
    ("list_compress_depth", Annotated[int, typer.Option(
        "--list-compress-depth", min=0, metavar="N",
        help="The server's list-compress-depth, for list memory estimates.")], 0),
    ("quiet", Annotated[bool, typer.Option(
        "--quiet", "-q", help="Print nothing on stderr (no progress, no 'wrote ...') unless something fails.")],
     False),
    ("save_dump", Annotated[str | None, typer.Option(
        "--save-dump", metavar="FILE",
        help="With a running server's URL (redis://...): also write the snapshot it sends to FILE "
             "(written whole under a temporary name, then renamed).", show_default=False)], None),
    ("timeout", Annotated[float | None, typer.Option(
        "--timeout", metavar="SECONDS", min=0.001,
        help="With a running server's URL: how long to wait for the connection, each reply and each part of "
             "the snapshot.", show_default="5 s to connect, then 60 s")], None),
    ("askpass", Annotated[bool, typer.Option(
        "--askpass", help="Ask for a running server's password on the terminal, as redis-cli --askpass does, "
                          "instead of taking it from the URL or REDISCLI_AUTH.")], False),
)

def _default_budget():
    from ..scale.budget import default_budget
    from ..sizes import format_size

    return format_size(default_budget())


#: (parameter, annotation, default) of the option that bounds an analysis's memory.
BUDGET_PARAMETERS = (
    ("memory_budget", Annotated[str | None, typer.Option(
        "--memory-budget", metavar="SIZE",
        help="Memory the analysis may use, e.g. 2GB or 512MB (1024-based, as every size; KiB/MiB/GiB too). "
             "Every dump is analysed chunk by chunk, in chunks that fit it; GRO001, which needs every key in "
             "memory, runs on dumps that fit it whole.",
        show_default=f"1 GB, at most half the available memory: {_default_budget()} here now")], None),
)

#: (parameter, annotation, default) of the option that turns the value sample off.
VALUES_PARAMETERS = (
    ("no_values", Annotated[bool, typer.Option(
        "--no-values",
        help="Do not read the bounded sample of each pattern's values (up to 32 keys a pattern, the first "
             "4 KB or 16 elements of each) again from the dump after the scan.")], False),
)


def adds_options(name, parameters, build):
    """A decorator giving a command the options ``parameters`` ((name, annotation, default) triples);
    the command receives ``build(**their values)`` as its parameter ``name``.

    The options are added to the command's signature after its own, so that typer
    shows them and every command spells them the same way.
    """
    names = [parameter for parameter, _, _ in parameters]

    def decorate(command):
        own = [p for p in inspect.signature(command).parameters.values() if p.name != name]
        added = [inspect.Parameter(parameter, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
                 for parameter, annotation, default in parameters]

        @functools.wraps(command)
        def wrapper(*args, **kwargs):
            kwargs[name] = build(**{parameter: kwargs.pop(parameter) for parameter in names})
            return command(*args, **kwargs)

        signature = inspect.Signature(own + added)
        wrapper.__signature__ = signature
        wrapper.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
        return wrapper

    return decorate


def _load_options(db=None, type_=None, match=None, no_crc=False, relaxed_version=False,
                  allocator=None, list_compress_depth=0, quiet=False, memory_budget=None,
                  save_dump=None, timeout=None, askpass=False, server_version=None, no_values=False):
    types = _split_types(type_)
    if types:
        _check_types(types)
    if memory_budget is not None:
        from ..errors import InputError
        from ..sizes import parse_size

        try:
            parse_size(memory_budget, "memory budget")
        except InputError as exc:
            raise typer.BadParameter(str(exc), param_hint="--memory-budget") from None
    if askpass:
        import getpass

        # the replication client reads it there (rdbscope.rdb.replication), as redis-cli does
        os.environ["REDISCLI_AUTH"] = getpass.getpass("Please input password: ")
    if allocator is not None:
        allocator = Allocator(allocator).value
    if server_version is not None:
        from ..rdb.memory import parse_server_version

        try:
            parse_server_version(server_version)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--server-version") from None
    return LoadOptions(db=tuple(db or ()), types=types, match=match, no_crc=no_crc, relaxed_version=relaxed_version,
                       allocator=allocator, list_compress_depth=list_compress_depth, quiet=quiet,
                       memory_budget=memory_budget, save_dump=save_dump, timeout=timeout,
                       server_version=server_version, no_values=no_values)


def takes_load_options(*, filters=True, reading=True, budget=False, values=False):
    """Give a command the options that choose keys (``filters``), say how to read a dump
    (``reading``), bound its memory (``budget``) and turn the value sample off (``values``); it receives
    them as ``load``, a :class:`LoadOptions`."""
    parameters = ((FILTER_PARAMETERS if filters else ()) + (READ_PARAMETERS if reading else ())
                  + (BUDGET_PARAMETERS if budget else ()) + (VALUES_PARAMETERS if values else ()))
    return adds_options("load", parameters, _load_options)


@dataclasses.dataclass(frozen=True)
class OutputOptions:
    """What the output options of a command say: the format, how many rows, when to fail."""

    fmt: Format = Format.table
    top: int | None = None
    csv_safe: bool = True
    fail_on: FailOn = FailOn.never
    config: Path | None = None


def takes_output_options(*formats, top=None, fail_on=FailOn.never, config=True):
    """Give a command --format (``formats``, the first the default), --top (when ``top``, its default),
    --csv-safe/--csv-raw (with csv), --fail-on and --config; it receives them as ``output``,
    an :class:`OutputOptions`."""
    parameters = [("fmt", Annotated[Format, format_option(*formats)], formats[0])]
    parameters += [("top", Top, top)] if top is not None else []
    parameters += [("csv_safe", CsvSafe, True)] if Format.csv in formats else []
    parameters += [("fail_on", FailOnOption, fail_on)]
    parameters += [("config", ConfigOption, None)] if config else []
    return adds_options("output", parameters, OutputOptions)


@dataclasses.dataclass(frozen=True)
class ParallelOptions:
    """Where the work over the dumps runs: ``jobs`` local processes, or the Dask cluster whose
    scheduler is at ``dask`` (an address, ``tcp://HOST:PORT``); ``combine``: read dumps that are not
    one cluster's nodes as one keyspace all the same."""

    jobs: int = 1
    dask: str | None = None
    combine: bool = False


#: (parameter, annotation, default) of the options that say where the work over several dumps runs.
PARALLEL_PARAMETERS = (
    ("jobs", Annotated[int, typer.Option(
        "--jobs", min=1, metavar="N",
        help="Read this many dumps at once, or stretches of one large dump, each in a process of its own "
             "that returns its partial aggregate (the memory budget is shared among them).",
        show_default=f"one per core, {core_count()} here")],
     core_count()),
    ("dask", Annotated[str | None, typer.Option(
        "--dask", metavar="ADDRESS",
        help="Read the dumps on the Dask cluster whose scheduler is at ADDRESS (tcp://HOST:PORT), one task "
             "per dump, instead of --jobs: its workers must be able to read the dumps at the paths the client "
             "sees (a shared mount). Dumps that fit in memory come back whole (the report is the local one); "
             "in a bounded run each task returns its dump's partial aggregate. Needs pip install "
             "\"rdbscope[dask]\".",
        show_default=False)], None),
    ("combine", Annotated[bool, typer.Option(
        "--combine",
        help="Read several dumps as one keyspace even when they are not the nodes of one cluster. Without it, "
             "dumps that hold keys of the same hash slot (one server's backups of several days, a master and "
             "its replica) or keys in a db other than 0 are refused: compare those with diff or trend.")],
     False),
)


def takes_parallel_options():
    """Give a command --jobs, --dask and --combine; it receives them as ``parallel``, a
    :class:`ParallelOptions`."""
    return adds_options("parallel", PARALLEL_PARAMETERS, ParallelOptions)
