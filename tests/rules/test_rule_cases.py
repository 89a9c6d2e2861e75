"""Every YAML case of tests/rules/cases/<CODE>.yml as a test (sqlfluff's habit).

A case has ``keys`` (see keyspace.py), optional ``dump`` (``writer``, ``aux``,
``slot_info``, ``list_compress_depth``) and ``options`` (the rule's options), and ``expect``: the
findings, in (db, pattern) order, each a mapping of fields to compare
(``pattern``, ``db``, ``n_keys``, ``est_memory_bytes``, ``examples``, ``first_example``,
``severity``, ``message_contains``, ``details``: a subset of the details).
No ``expect`` (or an empty one) is a case that must pass clean.
"""

import pathlib

import pytest
import yaml
from rule_keyspace import key_table, run_rule

CASES_DIR = pathlib.Path(__file__).parent / "cases"


def load_cases():
    cases = []
    for path in sorted(CASES_DIR.glob("*.yml")):
        document = yaml.safe_load(path.read_text())
        code = document.pop("rule")
        assert code == path.stem, f"{path.name} says rule {code}"
        for name, case in document.items():
            assert name.startswith("test_"), f"{path.name}: case {name} must start with test_"
            cases.append(pytest.param(code, case, id=f"{code}-{name}"))
    return cases


@pytest.mark.parametrize("code, case", load_cases())
def test_case(code, case):
    dump = case.get("dump", {})
    keys = key_table(case["keys"], writer=dump.get("writer", "7.2.4"), aux=dump.get("aux"),
                     slot_info=dump.get("slot_info", ()), list_compress_depth=dump.get("list_compress_depth"))
    findings = run_rule(code, keys, case.get("options"))
    expected = case.get("expect") or []
    assert len(findings) == len(expected), [(f.pattern, f.message) for f in findings]
    for finding, want in zip(findings, expected, strict=True):
        for field, value in want.items():
            if field == "details":
                details = finding.details_dict
                for name, detail in value.items():
                    assert details.get(name) == detail, (name, details)
            elif field == "message_contains":
                assert value in finding.message, finding.message
            elif field == "examples":
                assert list(finding.examples) == value
            elif field == "first_example":
                assert finding.examples[0] == value, finding.examples
            elif field == "severity":
                assert str(finding.severity) == value
            else:
                assert getattr(finding, field) == value, (field, finding)
