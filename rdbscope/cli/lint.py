"""rdbscope lint: key-design findings of a dump (or of a keys Parquet file), grouped by rule."""

import json
import time
from typing import Annotated

import typer

from .. import __version__
from ._analysis import analyze_input, settings, where_to_run
from ._console import err, exits_on_bad_input, out, print_wrapped
from ._options import WHERE, FailOn, Format, JsonAlias, takes_load_options, takes_output_options, takes_parallel_options
from ._selection import ExtendSelect, Ignore, Masters, Select, with_masters

#: The names of rules.PRESETS and rules.DEPRECATED_PRESETS, spelled here so that --help does not import
#: the rules (a test ties them).
PRESETS = ("layered-names", "short-keys", "growth")
DEPRECATED_PRESETS = {"seed-001": "layered-names", "seed-002": "short-keys"}

Source = Annotated[list[str], typer.Argument(
    metavar="SOURCE",
    help="The dump (dump.rdb or a compressed backup of one), or a keys Parquet file from `rdbscope scan`; "
         "or several dumps linted as one keyspace (a cluster's nodes): several paths, a directory of dumps, "
         "or a quoted glob such as 'node-*.rdb'" + WHERE,
    show_default=False)]


def _current_presets(names):
    """The presets named, by their current names; a former name works, with a note on stderr."""
    current = []
    for name in names or []:
        if name in DEPRECATED_PRESETS:
            err.print(f"note: preset {name} is now called {DEPRECATED_PRESETS[name]}; the old name still works "
                      "but is deprecated", markup=False, soft_wrap=True)
        elif name not in PRESETS:
            raise typer.BadParameter(f"no preset {name!r} (presets: {', '.join(PRESETS)})", param_hint="--preset")
        current.append(DEPRECATED_PRESETS.get(name, name))
    return current


@exits_on_bad_input
@takes_load_options(budget=True)
@takes_output_options(Format.table, Format.json, Format.sarif, fail_on=FailOn.warning)
@takes_parallel_options()
def lint_command(
    source: Source,
    select: Select = None,
    extend_select: ExtendSelect = None,
    ignore: Ignore = None,
    preset: Annotated[list[str] | None, typer.Option(
        "--preset", callback=_current_presets, metavar="NAME",
        help="Turn on the opt-in rules of a guide's convention: layered-names (the layered naming spec: no "
             "abbreviations, module:submodule:description:identifier), short-keys (Baidu Cloud's guidelines: "
             "keys within 30 bytes), growth (key families numbered by a growing counter, without TTL).")] = None,
    masters: Masters = None,
    as_json: JsonAlias = False,
    output=None,
    load=None,
    parallel=None,
):
    """Lint SOURCE's key design: naming, cluster slots and hash tags, encodings; findings grouped by rule.

    The findings go to stdout, a one-line summary to stderr (not with --quiet).
    """
    from ..api import lint_selection
    from ..findings import Severity
    from ..rdb.keytext import json_safe
    from ..report.sarif import to_json, to_sarif
    from ..rules import PRESETS as RULE_PRESETS
    from ..sources import without_password

    fmt = Format.json if as_json else output.fmt
    extra = tuple(code for name in preset or [] for code in RULE_PRESETS[name])
    config, passes = lint_selection(with_masters(settings(output.config, select, extend_select, ignore, extra),
                                                 masters))
    started = time.perf_counter()
    with where_to_run(parallel) as where:
        result = analyze_input(list(source), config, passes=passes, load=load, **where)
    seconds = time.perf_counter() - started
    keys = result.keys
    named = ", ".join(s.path for s in keys.sources) if keys.n_sources > 1 else without_password(source[0])
    if fmt is Format.json:
        out.print(json_safe(to_json(result, named)), soft_wrap=True)
    elif fmt is Format.sarif:
        sarif = json.dumps(to_sarif(result, named, __version__), indent=2, ensure_ascii=False)
        out.print(json_safe(sarif), soft_wrap=True)
    else:
        _print_text(result)
    if not load.quiet:
        _print_summary(result, seconds)
    fail_on = output.fail_on
    if fail_on is not FailOn.never and any(f.severity >= Severity.parse(fail_on.value) for f in result.finding_list):
        raise typer.Exit(1)




#: Characters of an example key shown in text output (JSON and SARIF keep whole keys).
EXAMPLE_CHARS = 120


def _print_text(result):
    from rich.text import Text

    from ..findings import count, format_bytes
    from ..report.cells import printable

    by_code = {}
    for finding in result.finding_list:
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
            print_wrapped(Text(f"{where}{printable(finding.message)}"), indent=2)
            if finding.examples:
                shown = ", ".join(printable(e, EXAMPLE_CHARS) for e in finding.examples)
                print_wrapped(Text(f"e.g. {shown}", style="dim"), indent=6)
        out.print()


def _print_summary(result, seconds):
    from ..findings import Severity, count
    from ..report.sarif import passes_checked, rules_checked
    from ..rules import FAMILIES

    counts = {s: sum(1 for f in result.finding_list if f.severity == s) for s in reversed(Severity)}
    said = ", ".join(count(n, str(s), "info" if s == Severity.INFO else None)
                     for s, n in counts.items() if n) or "none"
    rules, passes = rules_checked(result), passes_checked(result)
    families = sorted({code[:3] for code in rules} & set(FAMILIES))
    err.print(f"{count(len(result.finding_list), 'finding')} ({said}) in {count(result.n_keys, 'key')}; "
              f"{count(len(rules), 'rule')} ({', '.join(families) or 'none'})"
              + (f" and passes {', '.join(passes)}" if passes else "")
              + f"; {seconds:.2f} s", markup=False, highlight=False)
