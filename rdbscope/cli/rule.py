"""rdbscope rule: the documentation of a finding code, or the list of them all."""

import json
from dataclasses import asdict
from typing import Annotated

import typer

from ._console import err, out, print_wrapped
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
        _print_code_list(docs, out.width)
        return
    doc = find_doc(code)
    if doc is None:
        err.print(f"error: no finding code or name {code!r} (see `rdbscope rule --all`)", markup=False)
        raise typer.Exit(2)
    if as_json:
        out.print_json(json.dumps(asdict(doc), default=str))
    else:
        out.print(doc.markdown, markup=False, emoji=False, highlight=False)


#: Fewest columns the summary gets beside the other columns; on a narrower screen it goes under them.
SUMMARY_MIN_WIDTH = 50


def _print_code_list(docs, width):
    """Every code with its name, severity, when it is on and its summary: a table when the summary
    has room beside the rest (names are never cut), else each summary under its code, indented."""
    from rich.table import Table
    from rich.text import Text

    rows = [(doc.code, doc.name, doc.severity, _when_on(doc), doc.summary) for doc in docs]
    headers = ("code", "name", "severity", "on")
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    if sum(widths) + 2 * len(widths) + SUMMARY_MIN_WIDTH <= width:
        table = Table(box=None, pad_edge=False)
        for header in headers:
            table.add_column(header, no_wrap=True)
        table.add_column("summary")
        for row in rows:
            table.add_row(*row)
        out.print(table)
        return
    for code, name, severity, on, summary in rows:
        out.print(Text.assemble((code, "bold"), f"  {name}  {severity}, on: {on}"))
        print_wrapped(Text(summary), indent=len(code) + 2)


def _when_on(doc):
    if doc.kind != "rule":
        return "--select"
    return "default" if doc.default else ", ".join(doc.presets) or "opt-in"
