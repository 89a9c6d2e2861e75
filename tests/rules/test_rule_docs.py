"""Every rule: a stable identity, documentation in the fixed sections, the guide it follows, YAML cases."""

import dataclasses
import pathlib
import re

import pytest
import yaml

from rdbscope.passes import CHECKS
from rdbscope.rules import DOC_SECTIONS, FAMILIES, PRESETS, RULES, RulesPass
from rdbscope.rules.guides import GUIDES

CASES_DIR = pathlib.Path(__file__).parent / "cases"
RULE_PARAMS = [pytest.param(rule, id=rule.code) for rule in RULES]


@pytest.mark.parametrize("rule", RULE_PARAMS)
def test_rule_identity(rule):
    rule.validate()
    assert rule.family() in FAMILIES
    assert rule.message and "{" in rule.message
    assert rule.__doc__ and rule.summary() and not rule.summary().endswith(":")


def test_codes_and_names_are_unique_and_in_order():
    codes = [rule.code for rule in RULES]
    names = [rule.name for rule in RULES]
    assert codes == sorted(codes, key=lambda c: (list(FAMILIES).index(c[:3]), c))
    assert len(set(codes)) == len(codes) and len(set(names)) == len(names)
    assert not set(codes) & {check.code for check in CHECKS}, "a rule reuses an analysis code"
    assert [check.code for check in RulesPass.checks] == codes


@pytest.mark.parametrize("rule", RULE_PARAMS)
def test_docs_have_the_sections_in_order(rule):
    sections = rule.sections()
    assert list(sections) == list(DOC_SECTIONS), f"{rule.code}: sections {list(sections)}"
    for title, text in sections.items():
        assert text.strip(), f"{rule.code}: section {title!r} is empty"


@pytest.mark.parametrize("rule", RULE_PARAMS)
def test_docs_cite_their_guide(rule):
    why = rule.sections()["Why is this bad?"].lower()
    assert any(name.lower() in why for name in GUIDES), f"{rule.code} cites no guide"
    assert "seed" not in why, f"{rule.code} names a seed file, not the guide"


@pytest.mark.parametrize("rule", RULE_PARAMS)
def test_the_options_section_is_made_from_the_fields(rule):
    assert "## Options" not in rule.__doc__, f"{rule.code}: options are documented on their fields"
    for field in dataclasses.fields(rule.Options):
        assert field.metadata["doc"] in rule.sections()["Options"]


@pytest.mark.parametrize("rule", RULE_PARAMS)
def test_every_option_is_documented(rule):
    documented = rule.sections()["Options"]
    fields = dataclasses.fields(rule.Options)
    if not fields:
        assert documented.strip() == "- none"
    for field in fields:
        assert f"`{field.name}`" in documented, f"{rule.code}: option {field.name} not in its docs"
        assert field.metadata.get("doc"), f"{rule.code}: option {field.name} has no doc"


@pytest.mark.parametrize("rule", RULE_PARAMS)
def test_every_rule_has_passing_and_failing_cases(rule):
    path = CASES_DIR / f"{rule.code}.yml"
    assert path.exists(), f"{rule.code} has no cases in {path.name}"
    cases = {name: case for name, case in yaml.safe_load(path.read_text()).items() if name != "rule"}
    assert any(case.get("expect") for case in cases.values()), f"{rule.code}: no failing case"
    assert any(not case.get("expect") for case in cases.values()), f"{rule.code}: no passing case"
    if dataclasses.fields(rule.Options):
        assert any("options" in case for case in cases.values()), f"{rule.code}: no case sets an option"


def test_no_cases_for_unknown_rules():
    assert {path.stem for path in CASES_DIR.glob("*.yml")} == {rule.code for rule in RULES}


def test_opt_in_rules_are_reachable_through_presets():
    opt_in = {rule.code for rule in RULES if not rule.default}
    in_presets = {code for codes in PRESETS.values() for code in codes}
    assert opt_in == in_presets
    for rule in RULES:
        if not rule.default:
            assert "opt-in" in rule.summary()


def test_docstrings_hold_no_control_characters():
    for rule in RULES:
        assert not [c for c in rule.__doc__ if ord(c) < 32 and c != "\n" or 0x7F <= ord(c) < 0xA0], rule.code


def test_readme_lists_every_rule():
    readme = (pathlib.Path(__file__).resolve().parents[2] / "README.md").read_text()
    rows = re.findall(r"^\| `([A-Z]{3}\d{3})` \| `([a-z0-9-]+)` \| (\w+) \| ([\w-]+) \|", readme, re.M)
    on = {code: name for name, codes in PRESETS.items() for code in codes}
    assert rows == [(r.code, r.name, str(r.severity), "default" if r.default else on[r.code]) for r in RULES]
