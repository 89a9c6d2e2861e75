"""A running server as the CLI's input: its password is never shown, whatever the command."""

import json
import os
import re
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest
import redis
from conftest import values_not_read, without_value_columns
from servers import make_sample_dumps, server

PASSWORD = "s3cret-pw"


@pytest.fixture(scope="module")
def guarded_server():
    with make_sample_dumps.RunningServer(server("redis-7.0"), {}) as running:
        redis.Redis(port=running.port).config_set("requirepass", PASSWORD)
        client = redis.Redis(port=running.port, password=PASSWORD)
        for i in range(100):
            client.set(f"user:{i}:name", "x" * i)
        yield running


def run(*args):
    result = subprocess.run([sys.executable, "-m", "rdbscope", *map(str, args)], capture_output=True, text=True)
    return result.returncode, result.stdout + result.stderr


def run_apart(*args, env=None):
    """``(exit code, stdout, stderr)`` of ``rdbscope ARGS`` with ``env`` added to this process's environment."""
    result = subprocess.run([sys.executable, "-m", "rdbscope", *map(str, args)], capture_output=True, text=True,
                            env={**os.environ, **(env or {})}, timeout=180)
    return result.returncode, result.stdout, result.stderr


def write_mixed_keyspace(port, password):
    """Keys of each type in two databases, some with a TTL far ahead (nothing expires during the test)."""
    far = 1_924_991_999_000  # 2030-12-31
    pipe = redis.Redis(port=port, password=password).pipeline(transaction=False)
    for i in range(300):
        pipe.set(f"session:{i}", "s" * (i % 40))
        pipe.pexpireat(f"session:{i}", far + i * 1000)
        pipe.hset(f"user:{i}", mapping={"name": f"n{i}", "email": f"u{i}@example.com"})
    pipe.rpush("queue:jobs", *[f"job-{i:05d}" * 8 for i in range(2000)])
    pipe.sadd("tags:ints", *range(50))
    pipe.zadd("board:scores", {f"player:{i}": i for i in range(200)})
    pipe.execute()
    redis.Redis(port=port, password=password, db=3).set("cache:page:/", "x" * 5000)


@pytest.mark.slow
@pytest.mark.parametrize("command", [["info"], ["info", "--format", "json"], ["report", "--top", "2"],
                                     ["patterns", "--top", "2"], ["report", "--format", "json"]])
def test_the_password_never_shows(guarded_server, command):
    url = f"redis://:{PASSWORD}@127.0.0.1:{guarded_server.port}"
    code, output = run(command[0], url, *command[1:])
    assert code == 0, output
    assert PASSWORD not in output
    assert any(said in output for said in ("100 keys", '"n_keys": 100', "user:{id}:name"))


@pytest.mark.slow
def test_scan_names_the_server_without_its_password(guarded_server, tmp_path):
    code, output = run("scan", f"redis://:{PASSWORD}@127.0.0.1:{guarded_server.port}", "-o", tmp_path / "k.parquet")
    assert code == 0 and PASSWORD not in output
    assert f"100 keys from redis://127.0.0.1:{guarded_server.port}" in output


@pytest.mark.slow
def test_a_wrong_password_is_one_line_without_it(guarded_server):
    code, output = run("info", f"redis://:not-{PASSWORD}@127.0.0.1:{guarded_server.port}")
    assert code == 2 and "not-" not in output
    assert output.strip() == (f"error: redis://127.0.0.1:{guarded_server.port}: authentication failed "
                              "(WRONGPASS invalid username-password pair or user is disabled.)")


@pytest.mark.slow
def test_save_dump_keeps_the_snapshot_it_read(guarded_server, tmp_path):
    import rdbscope

    snapshot = tmp_path / "snapshot.rdb"
    code, output = run("patterns", f"redis://:{PASSWORD}@127.0.0.1:{guarded_server.port}", "--save-dump", snapshot)
    assert code == 0, output
    assert rdbscope.load(snapshot).num_rows == 100


def test_save_dump_of_a_file_is_one_line(tmp_path):
    from conftest import SAMPLE_DUMPS

    code, output = run("patterns", SAMPLE_DUMPS / "redis-7.0-default.rdb", "--save-dump", tmp_path / "x.rdb")
    assert code == 2
    assert output.strip().startswith("error: save_dump (--save-dump) applies to a running server's URL")
    assert not (tmp_path / "x.rdb").exists()


@pytest.mark.slow
def test_askpass_asks_on_the_terminal(guarded_server):
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(sys.executable, ["-m", "rdbscope", "info", f"redis://127.0.0.1:{guarded_server.port}",
                                           "--askpass"], timeout=60, encoding="utf-8")
    child.expect("Please input password: ")
    child.sendline(PASSWORD)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and "REDIS RDB 10" in child.before and PASSWORD not in child.before


@pytest.mark.slow
@pytest.mark.parametrize("diskless, said", [
    ("yes", r"offset \d+: snapshot ends early: the connection closed while reading the replication stream"),
    ("no", r"the server closed the connection before sending a snapshot")])  # still writing it to its disk
def test_a_server_killed_mid_snapshot_is_one_line_and_exit_2(diskless, said):
    """The server writes its snapshot slowly (rdb-key-save-delay) and is killed while the report waits for it."""
    config = {"repl-diskless-sync": diskless, "repl-diskless-sync-delay": "0", "enable-debug-command": "local"}
    with make_sample_dumps.RunningServer(server("redis-7.0"), config) as running:
        client = redis.Redis(port=running.port)
        client.execute_command("DEBUG", "POPULATE", 200_000, "user:session", 100)
        client.config_set("rdb-key-save-delay", 40)  # microseconds per key: about 8 s for the snapshot
        started = subprocess.Popen([sys.executable, "-m", "rdbscope", "report", f"redis://127.0.0.1:{running.port}"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not client.info("replication")["connected_slaves"]:
            time.sleep(0.05)
        time.sleep(1)  # part of the snapshot on its way
        running.process.kill()
        running.process.wait()
        out, err = started.communicate(timeout=120)
    assert started.returncode == 2, err
    assert out == ""
    assert re.fullmatch(rf"error: redis://127\.0\.0\.1:{running.port}: {said}\n", err), err


@pytest.mark.slow
def test_report_of_a_running_server_is_the_report_of_its_snapshot(tmp_path):
    """The JSON report read over the replication protocol (password in REDISCLI_AUTH) is the report of the
    snapshot it read (--save-dump), but for the source, which names the server without its password."""
    with make_sample_dumps.RunningServer(server("redis-7.0"), {"save": ""}) as running:
        redis.Redis(port=running.port).config_set("requirepass", PASSWORD)  # set at start, it would fail the PING
        write_mixed_keyspace(running.port, PASSWORD)
        snapshot = tmp_path / "snapshot.rdb"
        live = run_apart("report", f"redis://127.0.0.1:{running.port}", "--format", "json", "--save-dump", snapshot,
                         env={"REDISCLI_AUTH": PASSWORD})
    saved = run_apart("report", snapshot, "--format", "json")
    for code, out, err in (live, saved):
        assert code == 0, err
        assert PASSWORD not in out and PASSWORD not in err
    live_report, saved_report = json.loads(live[1]), json.loads(saved[1])
    assert live_report["overview"].pop("source") == f"redis://127.0.0.1:{running.port}"
    assert saved_report["overview"].pop("source") == "snapshot.rdb"
    assert live_report["overview"]["n_keys"] == 604
    # a running server is not read twice: its report says nothing of the values the snapshot file gives
    assert values_not_read(live_report["patterns"]) and not values_not_read(saved_report["patterns"])
    for report in (live_report, saved_report):
        report["patterns"] = without_value_columns(report["patterns"])
    assert live_report == saved_report


@pytest.mark.slow
def test_reports_name_a_unix_socket_by_its_url(tmp_path):
    """The headline and the Parquet summary name the server by its URL, not by the socket file's name."""
    socket_path = tmp_path / "r.sock"
    with make_sample_dumps.RunningServer(server("redis-7.0"), {"unixsocket": str(socket_path), "save": ""}) \
            as running:
        redis.Redis(port=running.port).set("user:1:name", "ada")
        code, out, err = run_apart("report", f"unix://{socket_path}", "--out", tmp_path / "reports", "--date",
                                   "2026-11-23")
    assert code == 0, err
    assert out.splitlines()[0].startswith(f"unix://{socket_path}: REDIS RDB 10, written by redis 7.0")
    summary = pq.read_table(tmp_path / "reports/instance=default/date=2026-11-23/summary.parquet")
    assert summary["source"].to_pylist() == [f"unix://{socket_path}"]


@pytest.fixture(scope="module")
def two_db_server():
    """A server with 5 keys in db 0 and 3 in db 2 (SYNC sends both)."""
    with make_sample_dumps.RunningServer(server("redis-7.0"), {"save": "", "repl-diskless-sync-delay": "0"}) \
            as running:
        for db, prefix, n in ((0, "user", 5), (2, "job", 3)):
            client = redis.Redis(port=running.port, db=db)
            for i in range(n):
                client.set(f"{prefix}:{i}", "x" * 10)
        yield running


@pytest.mark.slow
@pytest.mark.parametrize("url", ["redis://127.0.0.1:{port}/2",
                                 pytest.param("redis://127.0.0.1:{port}?db=2", marks=pytest.mark.slow)])
def test_the_db_a_url_names_is_the_only_one_read(two_db_server, url):
    url = url.format(port=two_db_server.port)
    code, out, err = run_apart("report", url, "--format", "json", "--quiet")
    assert code == 0, err
    overview = json.loads(out)["overview"]
    assert (overview["n_keys"], overview["n_dbs"]) == (3, 1)
    assert overview["source"] == f"redis://127.0.0.1:{two_db_server.port}/2"
    code, out, err = run_apart("info", url, "--format", "json")
    assert code == 0, err
    assert json.loads(out)["n_keys"] == 3


@pytest.mark.slow
def test_a_url_db_without_keys_is_the_usage_error_of_db(two_db_server, tmp_path):
    for command in (["report"], ["scan", "-o", tmp_path / "keys.parquet"]):
        code, out, err = run_apart(command[0], f"redis://127.0.0.1:{two_db_server.port}/5", *command[1:])
        assert code == 2 and out == ""
        assert err == f"error: no keys in db 5; the dump has dbs 0, 2 (see 'python -m rdbscope {command[0]} --help')\n"
    assert list(tmp_path.iterdir()) == []
    code, out, err = run_apart("report", f"redis://127.0.0.1:{two_db_server.port}/2", "--db", "0")
    assert code == 2
    assert err == (f"error: redis://127.0.0.1:{two_db_server.port}/2: the URL selects db 2 but --db (db=) asks "
                   "for 0: give one of them\n")
