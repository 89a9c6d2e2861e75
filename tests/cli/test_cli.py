"""The rdbscope command through typer's CliRunner."""

import json

import pyarrow.parquet as pq
from conftest import CORPUS, SAMPLE_DUMPS, needs_corpus
from typer.testing import CliRunner

import rdbscope
from rdbscope.cli import app
from rdbscope.findings import format_bytes
from rdbscope.report.parquet import read_dump_metadata

runner = CliRunner()
DUMP = SAMPLE_DUMPS / "redis-8.2-default.rdb"


def test_scan_writes_the_keys_table(tmp_path):
    out = tmp_path / "keys.parquet"
    result = runner.invoke(app, ["scan", str(DUMP), "-o", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == str(out)
    table = pq.read_table(out)
    assert table.equals(rdbscope.load(DUMP).to_arrow().replace_schema_metadata(table.schema.metadata))
    meta = read_dump_metadata(out)
    assert meta["aux"]["redis-ver"] == "8.2.3" and meta["rdb_version"] == 12


def test_scan_filters(tmp_path):
    out = tmp_path / "keys.parquet"
    result = runner.invoke(app, ["scan", str(DUMP), "-o", str(out), "--db", "1", "--type", "string"])
    assert result.exit_code == 0, result.output
    table = pq.read_table(out)
    assert set(table["db"].to_pylist()) == {1}
    assert set(table["type"].to_pylist()) == {"string"}


def test_bad_input_exits_2_and_keeps_the_old_report(tmp_path):
    bad = tmp_path / "bad.rdb"
    bad.write_bytes(DUMP.read_bytes()[:5000])
    out = tmp_path / "keys.parquet"
    out.write_bytes(b"yesterday's report")
    result = runner.invoke(app, ["scan", str(bad), "-o", str(out)])
    assert result.exit_code == 2
    assert "offset" in result.stderr and str(bad) in result.stderr
    assert out.read_bytes() == b"yesterday's report"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".rdbscope-")]


def test_stop_on_damage_writes_what_was_read(tmp_path):
    bad = tmp_path / "bad.rdb"
    bad.write_bytes(DUMP.read_bytes()[:200000])
    out = tmp_path / "keys.parquet"
    result = runner.invoke(app, ["scan", str(bad), "-o", str(out), "--stop-on-damage"])
    assert result.exit_code == 0, result.output
    assert "stopped at offset" in result.stderr
    assert 0 < pq.read_table(out).num_rows < rdbscope.load(DUMP).num_rows
    assert read_dump_metadata(out)["truncated_at"] is not None


def test_info_json():
    result = runner.invoke(app, ["info", str(DUMP), "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout)
    assert info["n_keys"] == rdbscope.load(DUMP).num_rows
    assert info["writer"] == "redis 8.2.3"
    assert {g["name"] for g in info["by_type"]} >= {"string", "hash", "stream", "module"}
    assert sum(g["n_keys"] for g in info["by_db"]) == info["n_keys"]


def test_info_text():
    result = runner.invoke(app, ["info", str(DUMP)], catch_exceptions=False)
    assert result.exit_code == 0
    assert "redis-ver" in result.stdout and "hash/listpackex" in result.stdout
    assert "rdbscope_counters" in result.stdout


def test_missing_file_is_a_usage_error():
    result = runner.invoke(app, ["info", "/no/such/dump.rdb"])
    assert result.exit_code == 2


def test_every_command_has_help():
    for name in ("scan", "info"):
        result = runner.invoke(app, [name, "--help"])
        assert result.exit_code == 0 and "DUMP" in result.stdout


@needs_corpus()
def test_unsupported_version_is_reported():
    result = runner.invoke(app, ["info", str(CORPUS / "public/redis__librdb/future_v19.rdb")])
    assert result.exit_code == 2 and "unsupported RDB version 99" in result.stderr


def test_info_reports_the_memory_estimate_beside_used_mem():
    libc_dump = SAMPLE_DUMPS / "valkey-8.1-default.rdb"
    result = runner.invoke(app, ["info", str(libc_dump), "--json", "--allocator", "libc"], catch_exceptions=False)
    memory = json.loads(result.stdout)["memory"]
    keys = rdbscope.load(libc_dump, allocator="libc").to_arrow()
    assert memory["keys_bytes"] == sum(keys["est_memory_bytes"].to_pylist())
    assert memory["total_bytes"] == memory["keys_bytes"] + memory["overhead_bytes"]
    assert memory["used_mem_bytes"] == int(rdbscope.load(libc_dump).info.aux["used-mem"])
    assert memory["model"].startswith("valkey-8 layout") and "libc" in memory["model"]
    text = runner.invoke(app, ["info", str(libc_dump), "--allocator", "libc"]).stdout
    assert f"estimated memory: {format_bytes(memory['total_bytes'])} (" in text


def test_scan_takes_the_servers_allocator(tmp_path):
    estimates = {}
    for allocator in ("jemalloc", "libc"):
        out = tmp_path / f"{allocator}.parquet"
        result = runner.invoke(app, ["scan", str(DUMP), "-o", str(out), "--allocator", allocator])
        assert result.exit_code == 0, result.output
        estimates[allocator] = pq.read_table(out)["est_memory_bytes"].to_pylist()
    assert estimates["jemalloc"] == rdbscope.load(DUMP).to_arrow()["est_memory_bytes"].to_pylist()
    assert estimates["libc"] == rdbscope.load(DUMP, allocator="libc").to_arrow()["est_memory_bytes"].to_pylist()
    assert estimates["jemalloc"] != estimates["libc"]
