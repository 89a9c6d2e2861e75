"""The ``rdbscope`` command. The only package that prints or exits.

Exit codes: 0 ok, 1 findings at or above ``--fail-on``, 2 bad input or usage.
"""

import typer

from . import bigkeys, diff, expiry, info, lint, patterns, report, rule, scan, trend, ttl

app = typer.Typer(
    name="rdbscope",
    help="Offline analyzer of Redis and Valkey dump files.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    add_completion=False,
)
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
