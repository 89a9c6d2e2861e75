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
from expected_findings import assert_findings_match, yaml_cases
from rule_keyspace import key_table, run_rule

CASES_DIR = pathlib.Path(__file__).parent / "cases"


def load_cases():
    return yaml_cases(CASES_DIR, "rule")


@pytest.mark.parametrize("code, case", load_cases())
def test_case(code, case):
    dump = case.get("dump", {})
    keys = key_table(case["keys"], writer=dump.get("writer", "7.2.4"), aux=dump.get("aux"),
                     slot_info=dump.get("slot_info", ()), list_compress_depth=dump.get("list_compress_depth"))
    findings = run_rule(code, keys, case.get("options"))
    assert_findings_match(findings, case.get("expect") or [])
