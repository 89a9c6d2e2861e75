"""diff with a dump of no keys (an empty server's SAVE) on either side, or both."""

import json
import shutil

import pytest
import servers
from conftest import SAMPLE_DUMPS
from typer.testing import CliRunner

import rdbscope
from rdbscope.cli import app
from rdbscope.report.views import overview

SAMPLE = SAMPLE_DUMPS / "redis-7.0-default.rdb"

pytestmark = pytest.mark.server


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def empty(tmp_path_factory):
    """The dump an empty Redis 7.0 writes on SAVE."""
    path = tmp_path_factory.mktemp("empty") / "empty.rdb"
    with servers.make_sample_dumps.RunningServer(servers.server("redis-7.0"), {"save": ""}) as server:
        client = server.client(0)
        assert client.execute_command("DBSIZE") == 0
        client.execute_command("SAVE")
        shutil.copy(server.dump_path, path)
    assert rdbscope.load(path).num_rows == 0
    return path


@pytest.fixture(scope="module")
def sample():
    """The sample dump's keys and memory, as its own analysis says."""
    o = overview(rdbscope.analyze(SAMPLE))
    return o.n_keys, o.memory_bytes


def diff_json(old, new):
    result = invoke("diff", old, new, "--format", "json", "--top", 1000)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.slow
def test_from_an_empty_dump_every_pattern_appeared(empty, sample):
    n_keys, memory = sample
    data = diff_json(empty, SAMPLE)
    assert (data["old"]["n_keys"], data["old"]["memory_bytes"]) == (0, 0)
    assert (data["new"]["n_keys"], data["new"]["memory_bytes"]) == (n_keys, memory)
    assert data["memory_change"] == {"memory_bytes_old": 0, "memory_bytes_new": memory,
                                     "memory_bytes_delta": memory, "memory_change_share": None}
    assert {p["change"] for p in data["patterns"]} == {"appeared"}
    assert sum(p["n_keys_new"] for p in data["patterns"]) == n_keys
    assert sum(p["memory_bytes_new"] for p in data["patterns"]) == memory
    assert data["findings"] and {f["change"] for f in data["findings"]} == {"new"}
    table = invoke("diff", empty, SAMPLE, "--top", 3)
    assert table.exit_code == 0
    assert table.stderr.splitlines()[:3] == ["old: empty.rdb: 0 keys, 0 B", "new: redis-7.0-default.rdb: 2,073 keys, "
                                             "1.2 MB", "memory: +1.2 MB"]
    assert f"Patterns that changed ({len(data['patterns'])}; top 3)" in table.stdout
    # Any growth from nothing is more than a share of it; a size is compared as it is.
    assert invoke("diff", empty, SAMPLE, "--fail-on-growth", "20%").exit_code == 1
    assert invoke("diff", empty, SAMPLE, "--fail-on-growth", "2MB").exit_code == 0


@pytest.mark.slow
def test_to_an_empty_dump_every_pattern_vanished(empty, sample):
    n_keys, memory = sample
    data = diff_json(SAMPLE, empty)
    assert data["memory_change"] == {"memory_bytes_old": memory, "memory_bytes_new": 0,
                                     "memory_bytes_delta": -memory, "memory_change_share": -1.0}
    assert {p["change"] for p in data["patterns"]} == {"vanished"}
    assert all(p["memory_change_share"] == -1.0 or p["memory_bytes_old"] == 0 for p in data["patterns"])
    assert sum(p["n_keys_old"] for p in data["patterns"]) == n_keys
    forward = diff_json(empty, SAMPLE)["findings"]
    assert [dict(f, change="new") for f in data["findings"]] == forward  # what appeared one way resolved the other
    table = invoke("diff", SAMPLE, empty)
    assert table.exit_code == 0 and table.stderr.splitlines()[2] == "memory: -1.2 MB (-100.0%)"


@pytest.mark.slow
def test_two_empty_dumps_have_nothing_to_compare(empty):
    data = diff_json(empty, empty)
    assert data["patterns"] == [] and data["findings"] == []
    assert data["memory_change"]["memory_bytes_delta"] == 0 and data["memory_change"]["memory_change_share"] is None
    table = invoke("diff", empty, empty)
    assert table.exit_code == 0 and table.stdout == "Patterns that changed: none\n"
    assert invoke("diff", empty, empty, "--format", "csv").stdout.startswith("change,leak,db,pattern,")
