"""Dumps whose size is known only once read (standard input, a live server): in memory while they fit the
budget, bounded from the batch that would not, with the results of the same dump read from a file."""

import json
import subprocess
import sys
import time

import pytest
from conftest import ROOT, SAMPLE_DUMPS, assert_same_but_values
from servers import make_sample_dumps, server
from test_bounded import PASSES, TABLES, finding_rows

import rdbscope
from rdbscope.scale import streams
from rdbscope.scale.budget import MEMORY_PER_TABLE_BYTE
from rdbscope.sizes import parse_size

BUDGET = "20MB"


@pytest.fixture(scope="module")
def populated(tmp_path_factory):
    """A running Redis 7.0 with 200,000 keys of three patterns (a third with TTLs), and its SAVEd dump."""
    binary = server("redis-7.0")
    with make_sample_dumps.RunningServer(binary, {"enable-debug-command": "local"}) as running:
        client = running.client(0)
        client.execute_command("DEBUG", "POPULATE", 120_000, "user:session", 24)
        client.execute_command("DEBUG", "POPULATE", 80_000, "cache:page", 60)
        pipe = client.pipeline(transaction=False)
        for n in range(0, 80_000, 3):
            pipe.pexpire(f"cache:page:{n}", 3_600_000 + n * 1000)
        at = int(time.time() * 1000) + 7_200_000
        for n in range(5000):  # a cliff: keys expiring in the same millisecond
            pipe.pexpireat(f"user:session:{n}", at)
        for n in range(40):
            pipe.hset(f"cart:{n}", mapping={f"item:{i}": i for i in range(n * 5 + 1)})
        pipe.execute()
        client.execute_command("SAVE")
        dump = tmp_path_factory.mktemp("streams") / "populated.rdb"
        dump.write_bytes(running.dump_path.read_bytes())
        yield running, dump


def rdbscope_cli(*args, stdin=None):
    given = stdin.read_bytes() if stdin else b""
    result = subprocess.run([sys.executable, "-m", "rdbscope", *map(str, args)], input=given, capture_output=True,
                            cwd=ROOT, timeout=300)
    return subprocess.CompletedProcess(result.args, result.returncode, result.stdout.decode(), result.stderr.decode())


def test_a_stream_over_the_budget_turns_bounded_part_way(populated):
    _running, dump = populated
    with open(dump, "rb") as f:
        held, overflow = streams.read_within(f, parse_size(BUDGET), 50_000)
        assert held is None and overflow.held_bytes * MEMORY_PER_TABLE_BYTE > parse_size(BUDGET)
        tables = [t.num_rows for t in overflow.tables()]
    assert sum(tables) == 200_040 and len(tables) > 2  # the held batches and those read after
    assert overflow.result.info.checksum_verified
    with open(dump, "rb") as f:
        held, overflow = streams.read_within(f, parse_size("1GB"), 50_000)
    assert overflow is None and held.to_arrow().equals(rdbscope.load(dump).to_arrow())


@pytest.mark.slow
def test_standard_input_over_the_budget_is_reported_in_bounded_memory(populated):
    _running, dump = populated
    piped = rdbscope_cli("report", "-", "--memory-budget", BUDGET, "--format", "json", stdin=dump)
    assert piped.returncode == 0, piped.stderr
    # nothing left out of the analysis; only the value sample, which standard input cannot give
    notes = [line for line in piped.stderr.splitlines() if line.startswith("note:")]
    assert notes == ["note: no value sample: standard input cannot be read again"]
    from_file = rdbscope_cli("report", dump, "--memory-budget", BUDGET, "--format", "json", "--quiet")
    assert from_file.returncode == 0, from_file.stderr
    stream_doc, file_doc = json.loads(piped.stdout), json.loads(from_file.stdout)
    assert stream_doc["overview"].pop("source") == "<stdin>"
    file_doc["overview"].pop("source")
    assert stream_doc["overview"]["n_keys"] == 200_040
    assert_same_but_values(stream_doc, file_doc)


@pytest.mark.slow
def test_standard_input_within_the_budget_is_read_in_memory(populated):
    _running, dump = populated
    piped = rdbscope_cli("report", "-", "--format", "json", "--quiet", stdin=dump)
    from_file = rdbscope_cli("report", dump, "--format", "json", "--quiet")
    stream_doc, file_doc = json.loads(piped.stdout), json.loads(from_file.stdout)
    for doc in (stream_doc, file_doc):
        doc["overview"].pop("source")
    assert stream_doc["expiry"]["bursts"]
    assert_same_but_values(stream_doc, file_doc)


@pytest.mark.slow
@pytest.mark.parametrize("command", ["lint", "expiry"])
def test_lint_and_expiry_of_a_stream_over_the_budget_run_in_bounded_memory(populated, command):
    _running, dump = populated
    started = time.monotonic()
    result = rdbscope_cli(command, "-", "--memory-budget", "5MB", "--format", "json", "--fail-on", "never",
                          stdin=dump)
    assert result.returncode == 0, result.stderr
    assert "note:" not in result.stderr
    from_file = rdbscope_cli(command, dump, "--memory-budget", "5MB", "--format", "json", "--fail-on", "never")
    assert result.stdout.replace("<stdin>", "-") == from_file.stdout.replace(str(dump), "-")
    document = json.loads(result.stdout)
    if command == "expiry":
        assert document["bursts"]
    else:
        assert document["n_keys"] == 200_040 and "NAM001" in document["rules"]
    assert time.monotonic() - started < 60
    fits = rdbscope_cli(command, "-", "--format", "json", stdin=SAMPLE_DUMPS / "redis-7.0-default.rdb")
    from_file = rdbscope_cli(command, SAMPLE_DUMPS / "redis-7.0-default.rdb", "--format", "json")
    assert fits.returncode == from_file.returncode and fits.stdout.replace("<stdin>", "-") == \
        from_file.stdout.replace(str(SAMPLE_DUMPS / "redis-7.0-default.rdb"), "-")


@pytest.mark.slow
def test_a_live_server_over_the_budget_is_analysed_in_bounded_memory(populated, tmp_path):
    """Compared with the snapshot it sent (kept with save_dump): TTLs are measured at the snapshot's ctime."""
    running, _dump = populated
    snapshot = tmp_path / "snapshot.rdb"
    live = rdbscope.analyze(f"redis://127.0.0.1:{running.port}", passes=PASSES, memory_budget=BUDGET,
                            save_dump=snapshot)
    saved = rdbscope.analyze(snapshot, passes=PASSES, memory_budget=BUDGET)
    assert live.bounded and live.n_keys == saved.n_keys == 200_040
    assert live.info.path == f"redis://127.0.0.1:{running.port}"
    for name in TABLES:
        assert live.tables[name].to_pylist() == saved.tables[name].to_pylist(), name
    assert finding_rows(live) == finding_rows(saved)
