"""The ``rdbscope`` command. The only package that prints or exits.

Exit codes: 0 ok, 1 findings at or above ``lint --fail-on``, 2 bad input or usage.
"""

import typer

from . import info, lint, rule, scan

app = typer.Typer(
    name="rdbscope",
    help="Offline analyzer of Redis and Valkey dump files.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    add_completion=False,
)
app.command("scan")(scan.scan_command)
app.command("info")(info.info_command)
app.command("lint")(lint.lint_command)
app.command("rule")(rule.rule_command)


def main():
    """Entry point of the ``rdbscope`` script."""
    app()
