"""rdbscope info: what a dump holds, at a glance."""

import json
from dataclasses import asdict

from ._console import exits_on_bad_input, out, scan_progress
from ._options import Dump, Format, JsonAlias, format_option, takes_load_options


@exits_on_bad_input
@takes_load_options(filters=False)
def info_command(
    dump: Dump,
    fmt: format_option(Format.table, Format.json) = Format.table,
    as_json: JsonAlias = False,
    load=None,
):
    """Show DUMP's format version, AUX fields, databases, key counts and estimated memory."""
    from ..keys import load as load_dump
    from ..summary import summarize

    as_json = as_json or fmt is Format.json
    with scan_progress(load.quiet, f"reading {dump.name}") as on_progress:
        keys = load_dump(dump, on_progress=on_progress, **load.scan_options())
    from rich.table import Table

    info = keys.info
    summary = summarize(keys)
    if as_json:
        out.print_json(json.dumps({
            "path": str(dump),
            "magic": info.magic,
            "rdb_version": info.rdb_version,
            "writer": info.writer,
            "compression": info.compression,
            "checksum_verified": info.checksum_verified,
            "aux": info.aux,
            "resizedb": {str(db): list(v) for db, v in info.resizedb.items()},
            "functions": [asdict(f) for f in info.functions],
            "module_aux": info.module_aux,
            **asdict(summary),
        }))
        return
    out.print(f"[bold]{dump}[/]: {info.magic} RDB {info.rdb_version}"
              + (f", written by {info.writer}" if info.writer else "")
              + (f", {info.compression}-compressed" if info.compression else ""))
    out.print(f"{summary.n_keys} keys, {summary.rdb_bytes} bytes of entries; checksum "
              + ("verified" if info.checksum_verified else "not verified"))
    if info.aux:
        table = Table("aux field", "value", title="AUX fields", title_justify="left")
        for name, value in info.aux.items():
            table.add_row(name, value)
        out.print(table)
    memory = summary.memory
    if memory.model:
        used = f"; the dump's used-mem is {memory.used_mem_bytes}" if memory.used_mem_bytes else ""
        out.print(f"estimated memory: {memory.total_bytes} bytes ({memory.keys_bytes} in keys, "
                  f"{memory.overhead_bytes} in key tables){used}")
        out.print(f"memory model: {memory.model}")
    out.print(_groups("db", summary.by_db, {str(db): v for db, v in info.resizedb.items()}))
    out.print(_groups("type", summary.by_type))
    out.print(_groups("type/encoding", summary.by_encoding))
    if info.functions:
        table = Table("library", "engine", "functions", title="Functions", title_justify="left")
        for lib in info.functions:
            table.add_row(lib.name, lib.engine, ", ".join(lib.functions))
        out.print(table)
    if info.module_aux:
        out.print("module aux data: " + ", ".join(info.module_aux))


def _groups(title, groups, hints=None):
    from rich.table import Table

    table = Table(title, "keys", "with TTL", "rdb bytes", "est. memory", title=f"By {title}", title_justify="left")
    if hints is not None:
        table.add_column("RESIZEDB hint")
    for g in groups:
        row = [g.name, str(g.n_keys), str(g.n_with_ttl), str(g.rdb_bytes), str(g.est_memory_bytes)]
        if hints is not None:
            hint = hints.get(g.name)
            row.append(f"{hint[0]} keys, {hint[1]} expires" if hint else "")
        table.add_row(*row)
    return table
