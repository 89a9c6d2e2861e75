"""The analysis commands through CliRunner: exit codes, JSON shapes, values from the dumps."""

import csv
import io
import json

import pytest
from conftest import SAMPLE_DUMPS, values_not_read, without_value_columns
from oracle import read_oracle
from typer.testing import CliRunner

import rdbscope
from rdbscope.cli import app
from rdbscope.report.parquet import write_keys_parquet

runner = CliRunner()
DUMP = SAMPLE_DUMPS / "redis-7.0-default.rdb"
OTHER = SAMPLE_DUMPS / "redis-8.2-default.rdb"
ANALYSIS_COMMANDS = ["report", "patterns", "bigkeys", "ttl", "expiry"]


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def oracle():
    return read_oracle(str(DUMP.with_suffix(".json")))


@pytest.fixture(scope="module")
def keys_parquet(tmp_path_factory):
    path = tmp_path_factory.mktemp("scan") / "keys.parquet"
    write_keys_parquet(rdbscope.scan(DUMP), path)
    return path


def test_every_command_has_complete_help():
    for command in app.registered_commands:
        result = invoke(command.name, "--help")
        assert result.exit_code == 0, command.name
        assert command.callback.__doc__.split("\n")[0].split(":")[0][:30] in " ".join(result.stdout.split())
    for name in ANALYSIS_COMMANDS:
        text = invoke(name, "--help").stdout
        for option in ("--format", "--db", "--type", "--match", "--top", "--fail-on"):
            assert option in text, (name, option)


def test_patterns_json_counts_every_key(oracle):
    result = invoke("patterns", DUMP, "--format", "json", "--top", "1000")
    assert result.exit_code == 0
    rows = json.loads(result.stdout)
    assert sum(r["n_keys"] for r in rows) == len(oracle["keys"])
    assert set(rows[0]) >= {"db", "pattern", "n_keys", "memory_bytes_sum", "memory_share", "types", "ttl_share"}
    memory = [r["memory_bytes_sum"] for r in rows]
    assert memory == sorted(memory, reverse=True)
    per_db = {}
    for r in rows:
        per_db[r["db"]] = per_db.get(r["db"], 0) + r["n_keys"]
    assert per_db == {int(db[2:]): v["keys"] for db, v in oracle["keyspace"].items()}


def test_patterns_table_and_csv():
    table = invoke("patterns", DUMP, "--top", "5")
    assert table.exit_code == 0 and "user:{id}:profile" in table.stdout
    rows = list(csv.DictReader(io.StringIO(invoke("patterns", DUMP, "--format", "csv", "--top", "5").stdout)))
    assert len(rows) == 5 and json.loads(rows[0]["types"])


def test_filters_reach_the_scan(oracle):
    result = invoke("patterns", DUMP, "--format", "json", "--db", "1", "--type", "string", "--top", "1000")
    rows = json.loads(result.stdout)
    expected = [k for k in oracle["keys"] if k["db"] == 1 and k["type"] == "string"]
    assert sum(r["n_keys"] for r in rows) == len(expected)
    assert {r["db"] for r in rows} == {1} and {t for r in rows for t in r["types"]} == {"string"}
    matched = json.loads(invoke("patterns", DUMP, "-f", "json", "--match", "user:*", "--top", "1000").stdout)
    assert sum(r["n_keys"] for r in matched) == sum(
        1 for k in oracle["keys"] if k.get("key_text", "").startswith("user:"))


def test_a_keys_parquet_gives_the_same_report(keys_parquet):
    from_dump = json.loads(invoke("report", DUMP, "--format", "json").stdout)
    from_parquet = json.loads(invoke("report", keys_parquet, "--format", "json").stdout)
    from_dump["overview"].pop("source"), from_parquet["overview"].pop("source")
    # a keys table holds no value to read again: its patterns say none was read
    assert values_not_read(from_parquet["patterns"]) and not values_not_read(from_dump["patterns"])
    for report in (from_dump, from_parquet):
        report["patterns"] = without_value_columns(report["patterns"])
    assert from_parquet == from_dump


def test_bigkeys_json_is_the_largest_keys(oracle):
    rows = json.loads(invoke("bigkeys", DUMP, "--format", "json", "--top", "3").stdout)
    assert len(rows) == 3
    keys = rdbscope.load(DUMP).to_arrow().to_pylist()
    by_memory = sorted(keys, key=lambda k: -k["est_memory_bytes"])[:3]
    assert [r["key"] for r in rows] == [k["key"].decode() for k in by_memory]
    assert [r["memory_bytes"] for r in rows] == [k["est_memory_bytes"] for k in by_memory]
    timeline = next(k for k in oracle["keys"] if k.get("key_text") == "feed:{user42}:timeline")
    assert rows[0]["key"] == "feed:{user42}:timeline"
    assert rows[0]["codes"] == ["BIG002"] and rows[0]["n_elements"] == timeline["count"] == 10000
    by_length = json.loads(
        invoke("bigkeys", DUMP, "-f", "json", "--by", "length", "--type", "stream", "--top", "1").stdout)
    stream = max((k for k in oracle["keys"] if k["type"] == "stream"), key=lambda k: k["count"])
    assert by_length[0]["key"] == stream["key_text"] and by_length[0]["n_elements"] == stream["count"]


def test_ttl_json_shape_and_counts(oracle):
    data = json.loads(invoke("ttl", DUMP, "--format", "json").stdout)
    assert set(data) == {"overview", "patterns"}
    whole = next(r for r in data["overview"] if r["db"] is None)
    assert whole["n_keys"] == len(oracle["keys"])
    assert whole["n_with_ttl"] == sum(1 for k in oracle["keys"] if k["expire_at_ms"] is not None)
    assert whole["n_with_ttl"] == sum(v["expires"] for v in oracle["keyspace"].values())
    worst = data["patterns"][0]
    assert worst["memory_bytes_without_ttl"] >= data["patterns"][1]["memory_bytes_without_ttl"]


def test_expiry_json_finds_the_shared_expiry(oracle):
    data = json.loads(invoke("expiry", DUMP, "--format", "json", "--top", "1000").stdout)
    assert set(data) == {"bursts", "timeline", "findings"}
    assert {f["code"] for f in data["findings"]} <= {"EXP001", "EXP002", "EXP003"}
    assert sum(b["n_keys"] for b in data["timeline"]) == sum(
        1 for k in oracle["keys"] if k["expire_at_ms"] is not None)
    rate = next(b for b in data["bursts"] if b["pattern"] == "rate:ip:{ip}")
    in_pattern = [k["expire_at_ms"] for k in oracle["keys"] if k.get("key_text", "").startswith("rate:ip:")]
    assert rate["n_keys"] == len(in_pattern) and rate["share_of_ttl_keys"] == 1.0


def test_report_json_shape(oracle):
    data = json.loads(invoke("report", DUMP, "--format", "json", "--top", "4").stdout)
    assert set(data) == {"overview", "summary", "patterns", "big_keys", "ttl", "expiry", "activity", "findings"}
    assert data["activity"]["patterns"] is None and "allkeys-lru" in data["activity"]["note"]
    summary = data["summary"]
    assert {"by_type", "top_patterns", "ttl_buckets", "incidents", "activity", "savings"} <= set(summary)
    assert sum(row["n_keys"] for row in summary["by_type"]) == len(oracle["keys"])
    assert sum(row["n_keys"] for row in summary["ttl_buckets"]) == len(oracle["keys"])
    assert summary["savings"][0]["bytes"] >= summary["savings"][-1]["bytes"] > 0
    assert data["overview"]["n_keys"] == len(oracle["keys"])
    assert data["overview"]["writer"] == oracle["server_version"]
    assert data["overview"]["used_mem_bytes"] is not None
    assert len(data["patterns"]) == 4
    assert sum(data["overview"]["n_findings"].values()) == len(data["findings"])
    assert {f["severity"] for f in data["findings"]} <= {"error", "warning", "info"}


def test_report_select_and_ignore_keep_the_findings_they_name():
    def codes(*options):
        result = invoke("report", DUMP, "--format", "json", "--top", "1000", *options)
        assert result.exit_code == 0, result.output
        return [f["code"] for f in json.loads(result.stdout)["findings"]]

    every = codes()
    families = {code[:3] for code in every}
    assert {"TTL", "NAM"} <= families and len(families) > 3
    assert codes("--ignore", "TTL,NAM003") == [c for c in every if not c.startswith("TTL") and c != "NAM003"]
    assert codes("--select", "NAM") == [c for c in every if c.startswith("NAM")]
    assert codes("--select", "NAM", "--extend-select", "BIG", "--ignore", "NAM003") == [
        c for c in every if (c.startswith("NAM") or c.startswith("BIG")) and c != "NAM003"]
    result = runner.invoke(app, ["report", str(DUMP), "--ignore", "XYZ9"])
    assert result.exit_code == 2 and "no code or family 'XYZ9'" in result.output
    # --fail-on counts only what is kept.
    assert invoke("report", DUMP, "--fail-on", "info", "--select", "NAM").exit_code == 1
    assert invoke("report", DUMP, "--fail-on", "info", "--select", "NAM", "--ignore", "NAM").exit_code == 0


def test_report_terminal_summary():
    result = invoke("report", DUMP)
    assert result.exit_code == 0
    for text in ("2,073 keys", "Top patterns by memory", "Biggest keys", "without TTL", "Expiry incidents",
                 "Top findings", "redis 7.0.15"):
        assert text in result.stdout, text
    assert result.stderr == ""


def test_fail_on_exit_codes():
    assert invoke("report", DUMP, "-f", "json", "--fail-on", "error").exit_code == 1
    assert invoke("report", DUMP, "-f", "json").exit_code == 0
    # bigkeys looks only at BIG findings: warnings here, no errors
    assert invoke("bigkeys", DUMP, "-f", "json", "--fail-on", "error").exit_code == 0
    failed = invoke("bigkeys", DUMP, "-f", "json", "--fail-on", "warning")
    assert failed.exit_code == 1 and "at or above warning" in failed.stderr
    json.loads(failed.stdout)  # the data is still printed whole


@pytest.mark.parametrize("command", ANALYSIS_COMMANDS + ["diff"])
def test_bad_input_is_one_line_and_exit_2(tmp_path, command):
    bad = tmp_path / "bad.rdb"
    bad.write_bytes(DUMP.read_bytes()[:3000])
    args = [command, bad] + ([bad] if command == "diff" else [])
    result = invoke(*args)
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1 and result.stderr.startswith("error:")
    assert result.stdout == ""


def test_usage_errors_exit_2():
    assert runner.invoke(app, ["patterns", str(DUMP), "--format", "yaml"]).exit_code == 2
    assert runner.invoke(app, ["patterns", "/no/such.rdb"]).exit_code == 2


@pytest.mark.slow
def test_report_writes_html_and_dataset(tmp_path):
    html = tmp_path / "report.html"
    result = invoke("report", DUMP, "--html", html, "--out", tmp_path / "ds", "--instance", "cache-1",
                    "--keys", "--format", "json")
    assert result.exit_code == 0
    json.loads(result.stdout)
    partition = tmp_path / "ds" / "instance=cache-1" / "date=2026-11-22"
    assert sorted(p.name for p in partition.iterdir()) == [
        "findings.parquet", "keys.parquet", "patterns.parquet", "summary.parquet"]
    assert str(partition) in result.stderr and str(html) in result.stderr
    assert html.read_text().startswith("<!DOCTYPE html>")
    dated = invoke("report", DUMP, "--out", tmp_path / "ds", "--instance", "cache-1", "--date", "2031-02-03")
    assert dated.exit_code == 0 and (tmp_path / "ds" / "instance=cache-1" / "date=2031-02-03").is_dir()
    bad = invoke("report", DUMP, "--out", tmp_path / "ds", "--instance", "a/b")
    assert bad.exit_code == 2 and "instance name" in bad.stderr


def test_diff_of_two_dumps_json():
    data = json.loads(invoke("diff", DUMP, OTHER, "--format", "json", "--top", "500").stdout)
    assert set(data) == {"old", "new", "memory_change", "patterns", "findings"}
    old, new = rdbscope.load(DUMP), rdbscope.load(OTHER)
    assert data["old"]["n_keys"] == old.num_rows and data["new"]["n_keys"] == new.num_rows
    appeared = {r["pattern"] for r in data["patterns"] if r["change"] == "appeared"}
    assert "cache:fields:pricing" in appeared
    for row in data["patterns"]:
        assert row["memory_bytes_delta"] == row["memory_bytes_new"] - row["memory_bytes_old"]
        assert row["n_keys_delta"] == row["n_keys_new"] - row["n_keys_old"]
    assert {f["change"] for f in data["findings"]} <= {"new", "resolved"}
    assert any(f["change"] == "new" and f["pattern"] == "cache:fields:pricing" for f in data["findings"])


def test_diff_of_a_report_with_itself_is_empty_and_gates_on_new_findings(tmp_path):
    invoke("report", DUMP, "--out", tmp_path, "--instance", "a", "--date", "2030-01-01", "-f", "json")
    partition = tmp_path / "instance=a" / "date=2030-01-01"
    same = json.loads(invoke("diff", partition, DUMP, "-f", "json").stdout)
    assert same["patterns"] == [] and same["findings"] == []
    assert invoke("diff", partition, OTHER, "-f", "json", "--fail-on", "error").exit_code == 1
    assert invoke("diff", partition, DUMP, "-f", "json", "--fail-on", "info").exit_code == 0


def test_trend_over_a_dataset(tmp_path):
    for day, dump in (("2030-01-01", DUMP), ("2030-01-02", OTHER)):
        invoke("report", dump, "--out", tmp_path, "--instance", "a", "--date", day, "-f", "json")
    invoke("report", DUMP, "--out", tmp_path, "--instance", "b", "--date", "2030-01-02", "-f", "json")
    rows = json.loads(invoke("trend", tmp_path, "--format", "json").stdout)
    assert {(r["instance"], r["date"]) for r in rows} == {("a", "2030-01-01"), ("a", "2030-01-02"),
                                                          ("b", "2030-01-02")}
    day_one = [r for r in rows if r["instance"] == "a" and r["date"] == "2030-01-01"]
    assert sum(r["n_keys"] for r in day_one) == rdbscope.load(DUMP).num_rows
    table = invoke("trend", tmp_path, "--instance", "a", "--match", "cache:*")
    assert table.exit_code == 0 and "2030-01-02" in table.stdout and "cache:fields:pricing" in table.stdout
    assert invoke("trend", tmp_path, "-f", "json", "--fail-on", "error").exit_code == 1
    assert invoke("trend", tmp_path / "instance=a").exit_code == 2
