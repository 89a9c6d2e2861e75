"""--select, --extend-select and --ignore: which finding codes a command keeps, as in ruff."""

import dataclasses
import re
from typing import Annotated

import typer

Codes = list[str] | None
Select = Annotated[Codes, typer.Option(
    "--select", metavar="CODES", help="Codes or families to keep, comma-separated (replaces the config's selection). "
                     "lint checks the analysis codes (BIG, TTL, EXP) only when selected.")]
ExtendSelect = Annotated[Codes, typer.Option(
    "--extend-select", metavar="CODES", help="Codes or families to keep in addition to the selection.")]
Ignore = Annotated[Codes, typer.Option("--ignore", metavar="CODES", help="Codes or families to drop.")]
Masters = Annotated[int | None, typer.Option(
    "--masters", min=2, metavar="N", show_default=False,
    help="Simulate CLU001's cluster balance over this many masters (off unless given here or in the config).")]


def with_masters(config, masters):
    """``config`` with CLU001's ``masters`` set, when --masters was given."""
    if masters is None:
        return config

    return config.with_rule_options("CLU001", masters=masters)


def with_selection(config, select, extend_select, ignore, extra=()):
    """``config`` changed by the options: --select replaces its selection, the others add to it.

    ``extra`` are codes to select as well (lint's presets).
    """
    changes = {}
    if select:
        changes["select"] = parse_codes(select, "--select")
    added = (*parse_codes(extend_select or [], "--extend-select"), *extra)
    if added:
        changes["extend_select"] = (*config.extend_select, *added)
    if ignore:
        changes["ignore"] = (*config.ignore, *parse_codes(ignore, "--ignore"))
    return dataclasses.replace(config, **changes) if changes else config


def parse_codes(values, option):
    """Comma-separated codes or families, checked against the codes there are."""
    from ..codes import CODES

    known = list(CODES)
    codes = tuple(c.strip().upper() for value in values for c in value.split(",") if c.strip())
    for code in codes:
        if not re.fullmatch(r"[A-Z]{3}[0-9]{0,3}", code) or not any(k.startswith(code) for k in known):
            families = ", ".join(sorted({k[:3] for k in known}))
            raise typer.BadParameter(f"no code or family {code!r} (families: {families})", param_hint=option)
    return codes
