"""Finding, Severity, Check and the findings table."""

import json

import pyarrow as pa
import pytest

from rdbscope import Finding, Severity
from rdbscope.findings import (
    FINDINGS_SCHEMA,
    Check,
    findings_table,
    format_bytes,
    format_memory,
    format_share,
    sort_findings,
)

CHECK = Check("BIG001", "big-string", Severity.WARNING, "strings over 10 KB", "why")


def test_severity_is_ordered_and_parses():
    assert Severity.INFO < Severity.WARNING < Severity.ERROR
    assert Severity.parse("Warning") is Severity.WARNING
    assert Severity.parse(Severity.ERROR) is Severity.ERROR
    assert str(Severity.ERROR) == "error"
    with pytest.raises(ValueError, match="unknown severity 'fatal'"):
        Severity.parse("fatal")


@pytest.mark.parametrize("code, name", [("BIG01", "big-string"), ("big001", "big-string"),
                                        ("BIG001", "Big_String"), ("BIG001", "big--string")])
def test_check_rejects_bad_codes_and_names(code, name):
    with pytest.raises(ValueError):
        Check(code, name, Severity.INFO, "summary")


def test_check_makes_frozen_findings_with_json_details():
    finding = CHECK.finding("2 keys", pattern="page:{id}", db=0, n_keys=2, est_memory_bytes=30_000,
                            examples=["page:1"], details={"largest": 20_000, "type": "string"})
    assert finding.code == "BIG001" and finding.name == "big-string"
    assert finding.severity is Severity.WARNING
    assert finding.examples == ("page:1",)
    assert finding.details == '{"largest":20000,"type":"string"}'
    assert finding.details_dict == {"largest": 20_000, "type": "string"}
    with pytest.raises(AttributeError):
        finding.n_keys = 3
    assert CHECK.family == "BIG"


def test_details_accept_numpy_scalars():
    np = pytest.importorskip("numpy")
    finding = CHECK.finding("m", details={"n": np.int64(3), "share": np.float64(0.5)})
    assert json.loads(finding.details) == {"n": 3, "share": 0.5}


def test_findings_table_follows_the_schema():
    findings = [CHECK.finding("a", pattern="p", db=1, n_keys=2, est_memory_bytes=5, examples=["k"]),
                Finding("TTL003", "persistent-memory", Severity.INFO, "dump-wide")]
    table = findings_table(findings)
    assert table.schema.equals(FINDINGS_SCHEMA)
    rows = table.to_pylist()
    assert rows[0]["severity"] == "warning" and rows[0]["examples"] == ["k"] and rows[0]["db"] == 1
    assert rows[1]["pattern"] is None and rows[1]["db"] is None and rows[1]["details"] == "{}"
    assert findings_table([]).num_rows == 0
    assert FINDINGS_SCHEMA.field("examples").type == pa.list_(pa.string())
    assert all(f.metadata[b"doc"] for f in FINDINGS_SCHEMA)


def test_sort_puts_severe_and_big_first():
    small = CHECK.finding("s", est_memory_bytes=1)
    big = CHECK.finding("b", est_memory_bytes=100)
    error = Finding("TTL002", "volatile-name-without-ttl", Severity.ERROR, "e")
    assert sort_findings([small, big, error]) == [error, big, small]


def test_formatting():
    assert format_bytes(512) == "512 B"
    assert format_bytes(1536) == "1.5 KB"
    assert format_bytes(3 * 1024 ** 3) == "3.0 GB"
    assert format_memory(2048, "rdb_bytes") == "2.0 KB in the dump"
    assert format_memory(2048, "est_memory_bytes") == "2.0 KB of memory"
    assert format_share(0.456) == "46%" and format_share(0.001) == "<1%" and format_share(0.999) == ">99%"
