"""Presets go by the convention they stand for; the former seed-NNN names still work, with a note."""

import json

from conftest import SAMPLE_DUMPS
from typer.testing import CliRunner

from rdbscope.cli import app
from rdbscope.cli import lint as lint_command
from rdbscope.rules import DEPRECATED_PRESETS, PRESETS

DUMP = SAMPLE_DUMPS / "redis-7.0-default.rdb"


def lint(*args):
    return CliRunner().invoke(app, ["lint", str(DUMP), "--format", "json", "--fail-on", "never", *args])


def codes(result):
    return {f["code"] for f in json.loads(result.stdout)["findings"]}


def test_presets_are_named_for_their_convention():
    assert set(PRESETS) == {"layered-names", "short-keys", "growth"}
    assert {"NAM013", "NAM014"} <= codes(lint("--preset", "layered-names"))
    help_text = CliRunner().invoke(app, ["lint", "--help"], terminal_width=200).stdout
    assert "layered-names" in help_text and "short-keys" in help_text and "seed" not in help_text.lower()


def test_the_cli_spells_the_former_names_as_the_rules_do():
    assert lint_command.DEPRECATED_PRESETS == DEPRECATED_PRESETS


def test_former_names_still_work_with_a_note():
    old, new = lint("--preset", "seed-002", "--select", "NAM007"), lint("--preset", "short-keys", "--select", "NAM007")
    assert old.exit_code == new.exit_code == 0 and codes(old) == codes(new) == {"NAM007"}
    assert "note: preset seed-002 is now called short-keys" in old.stderr and "note" not in new.stderr


def test_an_unknown_preset_is_a_usage_error():
    result = lint("--preset", "seed-009")
    assert result.exit_code == 2 and "no preset 'seed-009'" in result.output
