"""Which rules run and with which options: select, ignore, extend_select, presets, option tables."""

import pytest

from rdbscope.config import Config, config_from_mapping, load_config
from rdbscope.errors import ConfigError
from rdbscope.rules import PRESETS, RULES, RuleSettings, preset_codes

DEFAULT_CODES = tuple(rule.code for rule in RULES if rule.default)
OPT_IN = ("NAM007", "NAM013", "NAM014", "GRO001")


def codes(table):
    return RuleSettings.from_config(config_from_mapping(table)).codes


def test_defaults_run_every_rule_but_the_opt_in_ones():
    assert RuleSettings.from_config(Config()).codes == DEFAULT_CODES
    assert not set(OPT_IN) & set(DEFAULT_CODES)
    assert len(DEFAULT_CODES) == len(RULES) - 4


def test_select_by_family_or_prefix_keeps_opt_in_rules_out():
    assert codes({"select": ["CLU"]}) == ("CLU001", "CLU002", "CLU003", "CLU004", "CLU005")
    assert codes({"select": ["NAM01"]}) == ("NAM010", "NAM011", "NAM012", "NAM015")
    assert codes({"select": ["BIG"]}) == ()


def test_opt_in_rules_need_their_code():
    assert codes({"select": ["NAM013"]}) == ("NAM013",)
    assert codes({"extend_select": ["NAM007"]}) == (*DEFAULT_CODES[:6], "NAM007", *DEFAULT_CODES[6:])
    assert codes({"select": ["ENC"], "extend_select": ["NAM014"]}) == ("NAM014", "ENC001", "ENC002", "ENC003",
                                                                       "ENC004")


def test_ignore_wins():
    assert codes({"ignore": ["NAM", "CLU00"]}) == ("ENC001", "ENC002", "ENC003", "ENC004")
    assert codes({"select": ["NAM013"], "ignore": ["NAM013"]}) == ()
    assert codes({"extend_select": ["NAM013"], "ignore": ["NAM"]}) == DEFAULT_CODES[12:]


def test_presets():
    assert preset_codes("layered-names") == ("NAM013", "NAM014") and preset_codes("short-keys") == ("NAM007",)
    assert set(codes({"extend_select": list(PRESETS["layered-names"])})) == set(DEFAULT_CODES) | {"NAM013", "NAM014"}
    # The former names still work: users' configs and scripts name them.
    assert preset_codes("seed-001") == ("NAM013", "NAM014") and preset_codes("seed-002") == ("NAM007",)
    with pytest.raises(ValueError, match="unknown preset 'seed-009'"):
        preset_codes("seed-009")


def test_options_by_code_or_name():
    settings = RuleSettings.from_config(config_from_mapping(
        {"rules": {"NAM006": {"max_bytes": 256}, "node-imbalance": {"masters": 6, "max_ratio": 1.5}}}))
    options = {rule.code: opts for rule, opts in settings.enabled}
    assert options["NAM006"].max_bytes == 256
    assert (options["CLU001"].masters, options["CLU001"].max_ratio, options["CLU001"].min_keys) == (6, 1.5, 1000)
    assert options["NAM011"].max_depth == 6


@pytest.mark.parametrize("table, message", [
    ({"rules": {"NAM099": {"x": 1}}}, r"\[rules.NAM099\]: no lint rule has this code or name"),
    ({"rules": {"NAM006": {"max_byte": 1}}}, r"\[rules.NAM006\] max_byte: unknown key \(known: max_bytes\)"),
    ({"rules": {"NAM006": {"max_bytes": "long"}}}, r"max_bytes: not a size: 'long'"),
    ({"rules": {"NAM006": {"max_bytes": [64]}}}, r"max_bytes: expected int, got \[64\]"),
    ({"rules": {"NAM003": {"anything": 1}}}, r"anything: unknown key \(known: none: it takes no options\)"),
    ({"rules": {"CLU001": {"masters": 1}}}, r"masters must be 0 \(off\) or at least 2"),
    ({"rules": {"NAM006": {"max_bytes": 1}, "key-over-max-length": {"max_bytes": 2}}}, r"given twice"),
])
def test_bad_options_are_config_errors_when_the_config_is_read(table, message):
    with pytest.raises(ConfigError, match=message):
        config_from_mapping(table)


def test_options_from_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.rdbscope]\nextend_select = ["NAM013"]\nignore = ["ENC"]\n\n'
        '[tool.rdbscope.rules.NAM013]\nallowed = ["usr"]\n\n'
        '[tool.rdbscope.rules.flat-key]\nnamespace_delimiters = [":", "_"]\n')
    settings = RuleSettings.from_config(load_config(start=tmp_path))
    options = {rule.code: opts for rule, opts in settings.enabled}
    assert "NAM013" in options and not any(code.startswith("ENC") for code in options)
    assert options["NAM013"].allowed == ("usr",)
    assert options["NAM008"].namespace_delimiters == (":", "_")


def test_errors_name_the_pyproject_table(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.rdbscope.rules.NAM006]\nmax_bytes = 1.5\n")
    with pytest.raises(ConfigError, match=r"pyproject.toml: \[tool.rdbscope.rules.NAM006\] max_bytes: expected int"):
        RuleSettings.from_config(load_config(path))
