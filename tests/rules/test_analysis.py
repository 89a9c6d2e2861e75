"""The rules inside analyze() (slot column, cluster_slots table) and lint() with analysis codes."""

import numpy as np
import pyarrow as pa
from rule_keyspace import key_table

import rdbscope
from rdbscope import lint
from rdbscope.config import config_from_mapping
from rdbscope.rdb.cluster import key_slots

KEYS = [
    {"key": "user:$i:profile", "count": 50},
    {"key": "{user:$i}:cart", "count": 3, "ttl_s": 600},
    {"key": "{user:$i}:wishlist", "count": 3},
    "User Profile 42",
    {"key": "cache:page:$i", "count": 5},
]


def test_analyze_adds_the_slot_column_and_the_cluster_slots_table():
    keys = key_table(KEYS)
    result = rdbscope.analyze(keys)
    table = result.keys.to_arrow()
    assert table["slot"].type == pa.uint16()
    assert table["slot"].to_pylist() == key_slots(keys.to_arrow()["key"]).to_pylist()
    slots = result.tables["cluster_slots"]
    assert slots["n_keys"].to_numpy().sum() == keys.num_rows
    assert slots["memory_bytes"].to_numpy().sum() == table["est_memory_bytes"].to_numpy().sum()
    assert slots["n_with_ttl"].to_numpy().sum() == 3
    assert np.all(np.diff(slots["slot"].to_numpy().astype(int)) > 0)
    assert slots["recorded_keys"].null_count == slots.num_rows
    assert "rules" in result.seconds


def test_analyze_reports_rule_findings_with_the_pass_findings():
    result = rdbscope.analyze(key_table(KEYS + [{"key": "cache:tmp:$i", "count": 3}]))
    codes = {(f.code, f.pattern) for f in result.finding_list}
    assert {("NAM001", "User Profile {id}"), ("NAM003", "User Profile {id}"), ("NAM008", "User Profile {id}")} <= codes
    assert ("TTL002", "cache:page:{id}") in codes
    ignored = rdbscope.analyze(key_table(KEYS), config_from_mapping({"ignore": ["NAM"]}))
    assert not [f for f in ignored.finding_list if f.code.startswith("NAM")]


def test_recorded_slots_in_the_table():
    keys = key_table(["a{slot}", "b{slot}", "c{slot2}"], slot_info=[(0, 4772, 2, 0), (0, 98, 1, 0), (0, 7, 0, 0)])
    rows = {r["slot"]: r for r in rdbscope.analyze(keys).tables["cluster_slots"].to_pylist()}
    assert rows[4772]["n_keys"] == 2 and rows[4772]["recorded_keys"] == 2
    assert rows[98]["n_keys"] == 1 and rows[98]["recorded_keys"] == 1
    assert rows[7]["n_keys"] == 0 and rows[7]["recorded_keys"] == 0


def test_lint_runs_analysis_passes_only_when_their_codes_are_selected():
    keys = key_table(KEYS)
    plain = lint(keys)
    assert plain.ran == ("pattern_groups", "rules") and "patterns" not in plain.tables
    assert not [f for f in plain.finding_list if f.code.startswith("TTL")]
    with_ttl = lint(keys, config_from_mapping({"extend_select": ["TTL002"]}))
    assert with_ttl.ran == ("pattern_groups", "patterns", "ttl", "rules")
    assert ("TTL002", "cache:page:{id}") in {(f.code, f.pattern) for f in with_ttl.finding_list}
    assert not [f for f in with_ttl.finding_list if f.code in ("TTL001", "TTL003", "TTL004")]
    assert {f.code for f in plain.finding_list} <= {f.code for f in with_ttl.finding_list}


def test_lint_runs_the_passes_its_selection_names():
    keys = key_table(KEYS)

    def ran(table):
        return lint(keys, config_from_mapping(table)).ran

    assert ran({}) == ("pattern_groups", "rules")
    assert ran({"select": ["NAM", "BIG"]}) == ("pattern_groups", "patterns", "bigkeys", "rules")
    assert ran({"select": ["BIG"]}) == ("pattern_groups", "patterns", "bigkeys")
    assert ran({"extend_select": ["EXP", "TTL004"]}) == ("pattern_groups", "patterns", "ttl", "expiry", "rules")
    assert ran({"select": ["TTL"], "ignore": ["TTL"]}) == ()


def test_lint_sorts_most_severe_first():
    findings = lint(key_table(KEYS + ["data"])).finding_list
    severities = [f.severity for f in findings]
    assert severities == sorted(severities, reverse=True)
