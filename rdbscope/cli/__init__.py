"""The ``rdbscope`` command. The only package that prints or exits.

Exit codes: 0 ok, 1 findings at or above ``--fail-on``, 2 bad input or usage.

Importing the commands must stay cheap (``--help`` and usage errors answer
without pyarrow, numpy or pandas): each command imports what it works with
when it runs.
"""

import sys
from typing import Annotated

import typer
from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError  # typer's own click
from typer.core import TyperGroup, TyperOption

from . import bigkeys, diff, expiry, info, lint, patterns, report, rule, scan, trend, ttl


class _HelpFlag(TyperOption):
    """typer's --help, read as the flag it is: typer would otherwise coerce its unset value (None)
    with pydantic, whose import costs a usage error more than everything else together."""

    def process_value(self, ctx, value):
        return super().process_value(ctx, bool(value))


class _OneLineErrors(TyperGroup):
    """Usage errors as one line on stderr (``error: ... (see 'rdbscope report --help')``), exit 2."""

    def get_help_option(self, ctx):
        option = super().get_help_option(ctx)
        if option is not None and type(option) is TyperOption:
            option.__class__ = _HelpFlag
        return option

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except NoArgsIsHelpError as exc:
            typer.echo(exc.ctx.get_help())
            code = 0
        except ClickException as exc:
            typer.echo(f"error: {_one_line(exc)}", err=True)
            code = exc.exit_code
        except typer.Abort:
            typer.echo("aborted", err=True)
            code = 130
        code = code if isinstance(code, int) else 0
        if standalone_mode:
            sys.exit(code)
        return code


def _one_line(exc):
    text = " ".join(exc.format_message().split()).rstrip(".")
    text = text[:1].lower() + text[1:]
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, UsageError) and ctx is not None:
        text += f" (see '{ctx.command_path} --help')"
    return text


app = typer.Typer(
    name="rdbscope",
    cls=_OneLineErrors,
    help="Offline analyzer of Redis and Valkey dump files.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    rich_markup_mode=None,  # plain help: rich's renderer would double the time --help takes
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value):
    if not value:
        return
    from .. import __version__
    from ..rdb import IMPLEMENTATION, implementations

    available = ", ".join(sorted(implementations()))
    typer.echo(f"rdbscope {__version__}; scanner: {IMPLEMENTATION} (available: {available}); "
               f"Python {sys.version.split()[0]}")
    raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[bool, typer.Option(
        "--version", "-V", callback=_print_version, is_eager=True,
        help="Print the version and which scanner runs (cython: the compiled build; python: the slow path).")]
        = False,
):
    """Offline analyzer of Redis and Valkey dump files."""


app.command("report")(report.report_command)
app.command("scan")(scan.scan_command)
app.command("info")(info.info_command)
app.command("patterns")(patterns.patterns_command)
app.command("bigkeys")(bigkeys.bigkeys_command)
app.command("ttl")(ttl.ttl_command)
app.command("expiry")(expiry.expiry_command)
app.command("lint")(lint.lint_command)
app.command("rule")(rule.rule_command)
app.command("diff")(diff.diff_command)
app.command("trend")(trend.trend_command)


def main():
    """Entry point of the ``rdbscope`` script."""
    app()
