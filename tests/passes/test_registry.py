"""The pass registry, the finding codes, dependency order, and the API around them."""

import dataclasses
import re

import pandas as pd
import pyarrow as pa
import pytest
from keytables import key, make_keys

import rdbscope
from rdbscope.config import SECTIONS, Config, config_from_mapping
from rdbscope.findings import FINDINGS_SCHEMA
from rdbscope.passes import CHECKS, PASSES, dependency_order


def test_every_pass_has_an_id_options_and_a_docstring():
    for p in PASSES:
        if p.Options is None:
            assert p.id not in SECTIONS
        else:
            assert p.id in SECTIONS and SECTIONS[p.id] is p.Options
            assert dataclasses.is_dataclass(p.Options) and p.Options.__dataclass_params__.frozen
        assert p.__doc__ and all(r in {q.id for q in PASSES} for r in p.requires)


def test_finding_codes_are_unique_documented_and_in_their_family():
    codes = [c.code for c in CHECKS]
    assert len(codes) == len(set(codes))
    assert len({c.name for c in CHECKS}) == len(CHECKS)
    families = {"bigkeys": ("BIG",), "ttl": ("TTL",), "expiry": ("EXP",), "patterns": ("LIB", "SER"),
                "activity": ("TTL",)}
    for p in PASSES:
        for check in p.checks:
            assert check.family in families[p.id]
            assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", check.name)
            assert check.summary and len(check.doc) > 80, check.code


def test_codes_stay_stable():
    assert {c.code: c.name for c in CHECKS} == {
        "BIG001": "big-string", "BIG002": "big-collection", "BIG003": "big-stream",
        "BIG004": "big-memory", "BIG005": "memory-concentrated",
        "TTL001": "mixed-ttl", "TTL002": "volatile-name-without-ttl", "TTL003": "persistent-memory",
        "TTL004": "expired-at-save", "TTL005": "cold-without-ttl",
        "EXP001": "expiry-burst", "EXP002": "dump-expiry-burst", "EXP003": "no-ttl-jitter",
        "LIB001": "library-jobs-kept", "LIB002": "library-session-without-ttl",
        "LIB003": "library-cache-without-ttl", "LIB004": "library-rate-limit-without-ttl",
        "LIB005": "library-lock-without-ttl",
        "SER001": "large-values-uncompressed", "SER002": "large-json-in-hash-fields",
        "SER003": "text-serialization-in-big-pattern",
    }


def test_dependency_order():
    assert [p.id for p in dependency_order(PASSES)] == ["pattern_groups", "values", "patterns", "bigkeys", "ttl",
                                                            "expiry", "activity", "distributions"]
    assert [p.id for p in dependency_order(PASSES, ["expiry"])] == ["pattern_groups", "patterns", "expiry"]
    assert [p.id for p in dependency_order(PASSES, ["expiry", "values"])] == ["pattern_groups", "values", "patterns",
                                                                               "expiry"]

    class A:
        id, requires = "a", ("b",)

    class B:
        id, requires = "b", ("a",)

    with pytest.raises(ValueError, match="require each other: a -> b -> a"):
        dependency_order([A, B])
    with pytest.raises(ValueError, match="unknown pass 'nope'"):
        dependency_order(PASSES, ["nope"])


def test_a_pass_runs_after_the_passes_it_uses_only_when_they_run():
    from rdbscope.api import PIPELINE

    assert [p.id for p in dependency_order(PIPELINE[::-1], ["rules"])] == ["pattern_groups", "rules"]
    assert [p.id for p in dependency_order(PIPELINE[::-1], ["rules", "patterns"])] == \
        ["pattern_groups", "patterns", "rules"]


def test_table_names_are_unique_and_documented():
    result = rdbscope.analyze(make_keys([key("user:1", ttl_s=10), key("user:2")]))
    assert set(result.tables) == {"patterns", "namespaces", "big_keys", "top_keys", "ttl_coverage",
                                  "ttl_overview", "expiry_bursts", "expiry_timeline", "cluster_slots",
                                  "activity", "types", "ttl_buckets", "key_sizes", "ttl_left"}
    for name, table in result.tables.items():
        assert isinstance(table, pa.Table)
        for field in table.schema:
            assert field.metadata and field.metadata.get(b"doc"), f"{name}.{field.name}"


def test_result_frames_and_repr():
    rows = [key(f"cache:{i}", rdb_bytes=10) for i in range(3)]
    result = rdbscope.analyze(make_keys(rows))
    assert isinstance(result, rdbscope.Result)
    assert isinstance(result.patterns, pd.DataFrame) and list(result.patterns["pattern"]) == ["cache:{id}"]
    assert isinstance(result.findings, pd.DataFrame)
    assert list(result.findings.columns) == FINDINGS_SCHEMA.names
    assert result.findings_table().schema.equals(FINDINGS_SCHEMA)
    assert all(isinstance(f, rdbscope.Finding) for f in result.finding_list)
    assert "3 keys" in repr(result) and "<table" in result._repr_html_()
    assert result.info.aux["ctime"]
    assert set(result.seconds) == {"pattern_groups", "patterns", "bigkeys", "ttl", "expiry", "activity",
                                   "distributions", "values", "rules"}
    with pytest.raises(KeyError, match="no table 'nope'"):
        result.table("nope")


def test_findings_filtered_by_select_and_ignore():
    rows = [key(f"cache:{i}") for i in range(3)]
    assert [f.code for f in rdbscope.analyze(make_keys(rows)).finding_list] == ["TTL002", "TTL003"]
    config = config_from_mapping({"ignore": ["TTL002"]})
    assert [f.code for f in rdbscope.analyze(make_keys(rows), config).finding_list] == ["TTL003"]
    config = config_from_mapping({"select": ["TTL002"]})
    assert [f.code for f in rdbscope.analyze(make_keys(rows), config).finding_list] == ["TTL002"]


def test_analyze_reads_a_config_file(tmp_path):
    path = tmp_path / "rdbscope.toml"
    path.write_text('ignore = ["TTL"]\n')
    result = rdbscope.analyze(make_keys([key("cache:1")]), path)
    assert result.finding_list == () and result.config.source == str(path)


def test_only_some_passes():
    result = rdbscope.analyze(make_keys([key("cache:1")]), passes=["ttl"])
    assert set(result.seconds) == {"pattern_groups", "patterns", "ttl"} and "top_keys" not in result.tables


def test_analyze_wants_a_keytable():
    with pytest.raises(TypeError, match="KeyTable"):
        rdbscope.analyze(pa.table({"key": [b"x"]}))


def test_public_api():
    for name in ("analyze", "Result", "Finding", "Severity", "load", "KeyTable"):
        assert name in rdbscope.__all__
    assert Config().select == ()


def test_codes_hold_every_code_of_every_pass_and_rule_once():
    from rdbscope.api import PIPELINE
    from rdbscope.codes import CODES, is_rule
    from rdbscope.rules import RULES

    declared = [check.code for owner in PIPELINE for check in owner.checks]
    assert len(declared) == len(set(declared)) == len(CODES)
    assert list(CODES) == sorted(declared)
    assert {code for code in CODES if is_rule(code)} == {rule.code for rule in RULES}
    assert [code for code, check in CODES.items() if not check.default] == \
        sorted(rule.code for rule in RULES if not rule.default)
