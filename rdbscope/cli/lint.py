"""rdbscope lint: key-design findings of a dump (or of a keys Parquet file), grouped by rule."""

import json
import re
import time
from enum import Enum
from pathlib import Path
from typing import Annotated, List, Optional

import pyarrow.parquet as pq
import typer
from rich.text import Text

from .. import __version__
from ..config import load_config
from ..errors import ConfigError
from ..findings import Severity, format_bytes
from ..keys import KeyTable, load
from ..rdb import DumpInfo
from ..rdb.memory import LAYOUTS, MemoryModelInfo, choose_layout
from ..report.parquet import read_dump_metadata
from ..rules import DEPRECATED_PRESETS, FAMILIES, PRESETS, lint, preset_name
from ..rules.base import count
from ..rules.sarif import to_json, to_sarif
from ._console import err, exits_on_bad_input, out, progress_bar
from ._options import AllocatorOption, CompressDepth, NoCrc, Quiet, Relaxed, scan_options
from ._selection import ExtendSelect, Ignore, Masters, Select, with_masters, with_selection


class Format(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"


class FailOn(str, Enum):
    info = "info"
    warning = "warning"
    error = "error"
    never = "never"


Source = Annotated[Path, typer.Argument(
    help="The dump (dump.rdb or a compressed backup of one), or a keys Parquet file from `rdbscope scan`.",
    exists=True, dir_okay=False, readable=True)]


def _current_presets(names):
    """The presets named, by their current names; a former name works, with a note on stderr."""
    current = []
    for name in names or []:
        if name in DEPRECATED_PRESETS:
            err.print(f"note: preset {name} is now called {preset_name(name)}; the old name still works but is "
                      "deprecated", markup=False, soft_wrap=True)
        elif name not in PRESETS:
            raise typer.BadParameter(f"no preset {name!r} (presets: {', '.join(PRESETS)})", param_hint="--preset")
        current.append(preset_name(name))
    return current


@exits_on_bad_input
def lint_command(
    source: Source,
    select: Select = None,
    extend_select: ExtendSelect = None,
    ignore: Ignore = None,
    preset: Annotated[Optional[List[str]], typer.Option(
        "--preset", callback=_current_presets, metavar="NAME",
        help="Turn on the opt-in rules of a guide's convention: layered-names (the layered naming spec: no "
             "abbreviations, module:submodule:description:identifier), short-keys (Baidu Cloud's guidelines: "
             "keys within 30 bytes).")] = None,
    masters: Masters = None,
    output_format: Annotated[Format, typer.Option("--format", help="text, json or sarif.")] = Format.text,
    fail_on: Annotated[FailOn, typer.Option(
        "--fail-on", help="Exit 1 when a finding is this severe or more: info, warning, error, never.")]
        = FailOn.warning,
    config_path: Annotated[Optional[Path], typer.Option(
        "--config", help="rdbscope.toml or pyproject.toml to read (default: the nearest one).",
        exists=True, dir_okay=False)] = None,
    no_crc: NoCrc = False,
    relaxed_version: Relaxed = False,
    allocator: AllocatorOption = "jemalloc",
    list_compress_depth: CompressDepth = 0,
    quiet: Quiet = False,
):
    """Lint SOURCE's key design: naming, cluster slots and hash tags, encodings; findings grouped by rule."""
    config = _config(config_path, select, extend_select, ignore, preset, masters)
    started = time.perf_counter()
    keys = _load(source, quiet, no_crc, relaxed_version, allocator, list_compress_depth)
    result = lint(keys, config)
    seconds = time.perf_counter() - started
    if output_format is Format.json:
        out.print(to_json(result, str(source)), markup=False, emoji=False, highlight=False, soft_wrap=True)
    elif output_format is Format.sarif:
        sarif = json.dumps(to_sarif(result, str(source), __version__), indent=2, ensure_ascii=False)
        out.print(sarif, markup=False, emoji=False, highlight=False, soft_wrap=True)
    else:
        _print_text(result)
    _print_summary(result, seconds)
    if fail_on is not FailOn.never and any(f.severity >= Severity.parse(fail_on.value) for f in result.findings):
        raise typer.Exit(1)


def _config(path, select, extend_select, ignore, presets, masters):
    config = load_config(path) if path else load_config()
    extra = tuple(code for preset in presets or [] for code in PRESETS[preset])
    return with_masters(with_selection(config, select, extend_select, ignore, extra), masters)


def _load(source, quiet, no_crc, relaxed_version, allocator, list_compress_depth):
    with open(source, "rb") as handle:
        parquet = handle.read(4) == b"PAR1"
    if parquet:
        return _load_parquet(source, allocator, list_compress_depth)
    options = scan_options(None, None, None, no_crc, relaxed_version, allocator, list_compress_depth)
    with progress_bar(quiet, f"reading {source.name}") as on_progress:
        return load(source, on_progress=on_progress, **options)


def _load_parquet(path, allocator, list_compress_depth):
    """A keys table written by ``rdbscope scan``, with the dump's metadata it stores."""
    try:
        meta = read_dump_metadata(path)
        table = pq.read_table(path)
    except (OSError, KeyError, ValueError) as error:
        raise ConfigError(f"{path}: not a keys table written by rdbscope scan ({error})") from None
    info = DumpInfo(path=str(path), magic=meta.get("magic"), rdb_version=meta.get("rdb_version"),
                    aux=meta.get("aux") or {}, compression=meta.get("compression"))
    info.memory_model = _memory_model(info.aux, getattr(allocator, "value", allocator), list_compress_depth)
    return KeyTable(table.replace_schema_metadata(None), info)


def _memory_model(aux, allocator, list_compress_depth):
    valkey = re.match(r"(\d+)", aux.get("valkey-ver", ""))
    redis = re.match(r"(\d+)\.(\d+)", aux.get("redis-ver", ""))
    layout, exact = choose_layout(int(valkey.group(1)) if valkey else 0,
                                  int(redis.group(1)) * 100 + int(redis.group(2)) if redis else 0)
    name, servers = LAYOUTS[layout]
    return MemoryModelInfo(name, servers, allocator, list_compress_depth, exact, False)


#: Characters of an example key shown in text output (JSON and SARIF keep whole keys).
EXAMPLE_CHARS = 120

_UNPRINTABLE = {c: f"\\x{c:02x}" for c in [*range(0x20), *range(0x7F, 0xA0)]}
_UNPRINTABLE.update({0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"})


def printable(text, limit=None):
    """``text`` with control characters escaped, so a key cannot move the cursor or ring a bell;
    cut to ``limit`` characters when given."""
    text = text.translate(_UNPRINTABLE)
    return text if limit is None or len(text) <= limit else text[:limit - 1] + "…"


def _print_text(result):
    by_code = {}
    for finding in result.findings:
        by_code.setdefault(finding.code, []).append(finding)
    order = sorted(by_code, key=lambda code: (-by_code[code][0].severity, code))
    for code in order:
        findings = by_code[code]
        first = findings[0]
        n_keys = sum(f.n_keys for f in findings)
        memory = sum(f.est_memory_bytes for f in findings)
        header = Text(f"{code} {first.name}", style="bold")
        header.append(f" [{first.severity}] {count(len(findings), 'finding')}, {count(n_keys, 'key')}, "
                      f"{format_bytes(memory)}")
        out.print(header)
        for finding in findings:
            where = f"db{finding.db} " if finding.db is not None else ""
            out.print(Text(f"  {where}{printable(finding.message)}"))
            if finding.examples:
                shown = ", ".join(printable(e, EXAMPLE_CHARS) for e in finding.examples)
                out.print(Text(f"      e.g. {shown}", style="dim"))
        out.print()


def _print_summary(result, seconds):
    counts = {s: sum(1 for f in result.findings if f.severity == s) for s in reversed(Severity)}
    said = ", ".join(count(n, str(s), "info" if s == Severity.INFO else None)
                     for s, n in counts.items() if n) or "none"
    families = sorted({code[:3] for code in result.rules} & set(FAMILIES))
    err.print(f"{count(len(result.findings), 'finding')} ({said}) in {count(result.n_keys, 'key')}; "
              f"{count(len(result.rules), 'rule')} ({', '.join(families) or 'none'})"
              + (f" and passes {', '.join(result.passes)}" if result.passes else "")
              + f"; {seconds:.2f} s", markup=False, highlight=False)

