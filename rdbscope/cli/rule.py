"""rdbscope rule: the documentation of a finding code, or the list of them all."""

import json
from dataclasses import asdict
from typing import Annotated

import typer

from ._console import err, out
from ._options import Format, JsonAlias, format_option


def rule_command(
    code: Annotated[str | None, typer.Argument(
        metavar="CODE", help="A code (NAM003) or name (special-character).")] = None,
    show_all: Annotated[bool, typer.Option("--all", help="List every code instead.")] = False,
    fmt: Annotated[Format, format_option(Format.table, Format.json)] = Format.table,
    as_json: JsonAlias = False,
):
    """Explain a finding code (like `ruff rule`): what it finds, why it matters, what to do, its options."""
    from ..codes import all_docs, find_doc

    as_json = as_json or fmt is Format.json
    if show_all or code is None:
        docs = all_docs()
        if as_json:
            out.print_json(json.dumps([asdict(d) for d in docs], default=str))
            return
        from rich.table import Table

        table = Table("code", "name", "severity", "on", "summary", box=None, pad_edge=False)
        for doc in docs:
            on = "default" if doc.default else (", ".join(doc.presets) or "opt-in") if doc.kind == "rule" \
                else "--select"
            table.add_row(doc.code, doc.name, doc.severity, on, doc.summary)
        out.print(table)
        return
    doc = find_doc(code)
    if doc is None:
        err.print(f"error: no finding code or name {code!r} (see `rdbscope rule --all`)", markup=False)
        raise typer.Exit(2)
    if as_json:
        out.print_json(json.dumps(asdict(doc), default=str))
    else:
        out.print(doc.markdown, markup=False, emoji=False, highlight=False)
