"""The ``rdbscope`` command. The only package that prints or exits.

Exit codes: 0 ok, 1 findings at or above ``--fail-on``, 2 bad input or usage. A reader that stops
reading (``rdbscope report dump.rdb | head -1``) ends the run quietly, with 0.

Importing the commands must stay cheap (``--help`` and usage errors answer
without pyarrow, numpy or pandas): each command imports what it works with
when it runs.
"""

import errno
import gc
import os
import sys
from typing import Annotated

import typer
from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError  # typer's own click
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from ..scale.allocator import keep_freed_memory
from . import bigkeys, diff, expiry, info, lint, patterns, report, rule, scan, trend, ttl
from ._coercion import plain_runtime_param


class _HelpFlag(TyperOption):
    """typer's --help, read as the flag it is: typer would otherwise coerce its unset value (None)
    with pydantic, whose import costs a usage error more than everything else together."""

    def process_value(self, ctx, value):
        return super().process_value(ctx, bool(value))


class _PlainOption(TyperOption):
    """An option whose values are coerced without pydantic (see :mod:`._coercion`)."""

    get_runtime_param = plain_runtime_param


class _PlainArgument(TyperArgument):
    """An argument listed by its name alone (``DUMP``), without the Python type typer adds (``<str>``), its
    values coerced without pydantic."""

    get_runtime_param = plain_runtime_param

    def display_type_rich(self, ctx):
        return None


def _as_help_flag(option):
    if option is not None and type(option) is TyperOption:
        option.__class__ = _HelpFlag
    return option


class _Command(TyperCommand):
    """A command whose --help is read as a flag (see _HelpFlag): its unset value is coerced on every run."""

    def get_help_option(self, ctx):
        return _as_help_flag(super().get_help_option(ctx))


class _OneLineErrors(TyperGroup):
    """Usage errors as one line on stderr (``error: ... (see 'rdbscope report --help')``), exit 2."""

    def get_help_option(self, ctx):
        return _as_help_flag(super().get_help_option(ctx))

    def get_command(self, ctx, cmd_name):
        command = super().get_command(ctx, cmd_name)
        if type(command) is TyperCommand:
            command.__class__ = _Command
        for param in getattr(command, "params", ()):
            if type(param) is TyperArgument:
                param.__class__ = _PlainArgument
            elif type(param) is TyperOption:
                param.__class__ = _PlainOption
        return command

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise
            _stdout_to_devnull()
            raise typer.Exit(0) from None

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            sys.stdout.flush()  # here, not at exit, where a closed pipe would print a traceback
        except BrokenPipeError:
            _stdout_to_devnull()
        except NoArgsIsHelpError as exc:  # `rdbscope` alone: a usage error, as git's
            typer.echo(exc.ctx.get_help(), err=True)
            code = 2
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


def _stdout_to_devnull():
    """Point standard output at /dev/null once its reader has gone, so that what is still buffered
    is dropped instead of failing again when Python exits."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # not a file descriptor (a test runner's stream)
        pass


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
    keep_freed_memory()
    try:
        app()
    finally:
        # The run is over: the interpreter's last collections would walk every object of pandas, pyarrow
        # and the result again, a tenth of a second and more at exit. Frozen, they are left to the exit;
        # atexit handlers still run, and every file was closed by the command.
        gc.freeze()
