"""A running server as the CLI's input: its password is never shown, whatever the command."""

import subprocess
import sys

import pytest
import redis
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
