"""rdbscope info: numbers for people in the table form, raw in JSON, and the header before the scan ends."""

import datetime
import json
import sys

import pytest
from conftest import SAMPLE_DUMPS
from typer.testing import CliRunner

import rdbscope
from rdbscope.cli import app
from rdbscope.findings import format_bytes

sys.path.insert(0, str(SAMPLE_DUMPS))
import make_sample_dumps  # noqa: E402

DUMP = SAMPLE_DUMPS / "redis-7.0-default.rdb"
REDIS_7 = [s for s in make_sample_dumps.discover_servers() if s.label == "redis-7.0"]


def invoke(*args):
    return CliRunner().invoke(app, ["info", *(str(a) for a in args)], catch_exceptions=False)


@pytest.fixture(scope="module")
def keys():
    return rdbscope.load(DUMP)


def test_json_keeps_raw_numbers_and_json_is_an_alias(keys):
    document = json.loads(invoke(DUMP, "--format", "json").stdout)
    assert invoke(DUMP, "--json").stdout == invoke(DUMP, "-f", "json").stdout
    table = keys.to_arrow()
    assert document["n_keys"] == table.num_rows == 2073
    assert document["rdb_bytes"] == sum(table["rdb_bytes"].to_pylist())
    assert document["aux"]["ctime"] == keys.info.aux["ctime"] and document["aux"]["ctime"].isdigit()
    by_db = {g["name"]: g["n_keys"] for g in document["by_db"]}
    assert by_db == {str(db): n for db, (n, _expires) in keys.info.resizedb.items()} == {"0": 1295, "1": 671, "5": 107}
    assert document["memory"]["keys_bytes"] == sum(table["est_memory_bytes"].to_pylist())


def test_the_table_form_is_for_people(keys):
    text = invoke(DUMP).stdout
    table = keys.to_arrow()
    ctime = datetime.datetime.fromtimestamp(int(keys.info.aux["ctime"]), datetime.timezone.utc)
    assert ctime.strftime("%Y-%m-%dT%H:%M:%SZ") in text and keys.info.aux["ctime"] not in text
    assert f"2,073 keys, {format_bytes(sum(table['rdb_bytes'].to_pylist()))} of entries" in text
    assert "│ 0  │ 1,295 │" in text and "1,295 / 291" in text
    assert f"used-mem   │ {format_bytes(int(keys.info.aux['used-mem']))}" in text
    assert "RESIZEDB hints: db0 1,295 keys, 291 with expiry; db1 671 keys" in text


@pytest.mark.slow
@pytest.mark.server
@pytest.mark.skipif(not REDIS_7, reason="Debian's redis-server 7.0 is not installed")
def test_the_header_comes_before_the_scan_ends(tmp_path):
    """A dump of several batches cut short fails the scan late; by then the header is on stdout."""
    with make_sample_dumps.RunningServer(REDIS_7[0], {"enable-debug-command": "local"}) as server:
        client = server.client(0)
        client.execute_command("DEBUG", "POPULATE", 300_000)
        client.execute_command("SAVE")
        data = server.dump_path.read_bytes()
    cut = tmp_path / "cut.rdb"
    cut.write_bytes(data[:len(data) * 3 // 4])
    result = invoke(cut)
    assert result.exit_code == 2 and "offset" in result.stderr and "Traceback" not in result.output
    assert "REDIS RDB 10, written by redis 7.0.15" in result.stdout and "redis-ver" in result.stdout
    assert "RESIZEDB hints: db0 300,000 keys, 0 with expiry" in result.stdout and "By type" not in result.stdout
