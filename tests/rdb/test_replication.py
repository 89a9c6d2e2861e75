"""A live server read over the replication protocol equals the dump the same server SAVEs."""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pyarrow as pa
import pytest
import servers
from conftest import skip_or_fail
from servers import make_sample_dumps

import rdbscope
from rdbscope.errors import InputError, RdbTruncatedError

pytestmark = pytest.mark.server

README = Path(__file__).parents[2] / "README.md"
LABELS = sorted(set(servers.EXPECTED) | set(servers.FOUND))
COMPARED = ["db", "key", "type", "encoding", "expire_at", "n_elements", "rdb_bytes"]
EXPIRE_AT_MS = 1_924_991_999_000  # 2030-12-31: far enough that nothing expires during a test


def running(label, **config):
    server = make_sample_dumps.RunningServer(servers.server(label), {"save": "", **config})
    return server


def readme_errors():
    """The error lines README shows for a live server, as the CLI prints them."""
    text = README.read_text()
    block = text[text.index("```text\nerror: redis://10.0.0.5:6379: cannot connect"):]
    return block.split("\n```")[0].splitlines()[1:]


def as_in_readme(message, port):
    """``message`` with this test's address, timeouts (0.5 s) and offset replaced by README's (the defaults)."""
    message = message.replace(f"127.0.0.1:{port}", "10.0.0.5:6379")
    message = message.replace("no connection within 0.5 s", "no connection within 5 s")
    message = message.replace("no answer within 0.5 s", "no answer within 60 s")
    return re.sub(r"offset \d+", "offset 1048576", message)


def write_keyspace(client):
    """Keys of every type, small and large encodings, some with TTLs, in two databases."""
    pipe = client.pipeline(transaction=False)
    pipe.execute_command("SET", "str:int", "123456")
    pipe.execute_command("SET", "str:short", "hello")
    pipe.execute_command("SET", "str:long", "x" * 200)
    pipe.execute_command("RPUSH", "list:small", *[f"item{i}" for i in range(5)])
    pipe.execute_command("RPUSH", "list:big", *[f"item-{i:06d}" * 4 for i in range(2000)])
    pipe.execute_command("SADD", "set:ints", *range(20))
    pipe.execute_command("SADD", "set:words", "alpha", "beta", "gamma")
    pipe.execute_command("SADD", "set:big", *[f"member-{i}" for i in range(600)])
    pipe.execute_command("ZADD", "zset:small", 1, "a", 2, "b", 3.5, "c")
    big_zset = [part for i in range(300) for part in (i * 1.5, f"m{i}")]
    pipe.execute_command("ZADD", "zset:big", *big_zset)
    pipe.execute_command("HSET", "hash:small", "name", "ada", "city", "london")
    pipe.execute_command("HSET", "hash:big", *[part for i in range(700) for part in (f"f{i}", f"v{i}")])
    for i in range(5):
        pipe.execute_command("XADD", "stream:events", f"{1_700_000_000_000 + i}-0", "n", str(i))
    for key in ("str:short", "list:big", "set:words", "zset:big", "hash:small", "stream:events"):
        pipe.execute_command("PEXPIREAT", key, EXPIRE_AT_MS)
    pipe.execute_command("SELECT", 3)
    for i in range(50):
        pipe.execute_command("SET", f"db3:key:{i}", f"value {i}", "PXAT", EXPIRE_AT_MS + i * 1000)
    pipe.execute_command("SELECT", 0)
    pipe.execute()


def compared(keys):
    table = keys.to_arrow().select(COMPARED)
    table = table.set_column(COMPARED.index("type"), "type", table["type"].cast(pa.string()))
    table = table.set_column(COMPARED.index("encoding"), "encoding", table["encoding"].cast(pa.string()))
    return table.sort_by([("db", "ascending"), ("key", "ascending")]).to_pylist()


def saved(server):
    """The keys of the dump the server SAVEs, once the snapshot it made for the replica is done."""
    client = server.client(0)
    deadline = time.monotonic() + 30
    while b"rdb_bgsave_in_progress:1" in client.execute_command("INFO", "persistence"):
        assert time.monotonic() < deadline, "the snapshot for the replica did not finish"
        time.sleep(0.05)
    client.execute_command("SAVE")
    return compared(rdbscope.load(server.dump_path))


@pytest.mark.slow
@pytest.mark.parametrize("diskless", ["yes", "no"])
@pytest.mark.parametrize("label", LABELS)
def test_live_snapshot_equals_the_saved_dump(label, diskless):
    with running(label, **{"repl-diskless-sync": diskless, "repl-diskless-sync-delay": "0"}) as server:
        write_keyspace(server.client(0))
        live = rdbscope.load(f"redis://127.0.0.1:{server.port}")
        assert live.info.path == f"redis://127.0.0.1:{server.port}"
        rows = compared(live)
        assert len(rows) == 63
        assert rows == saved(server)


@pytest.mark.slow
@pytest.mark.parametrize("diskless", ["yes", "no"])
def test_save_dump_writes_the_snapshot_it_scanned(diskless, tmp_path):
    with running("redis-7.0", **{"repl-diskless-sync": diskless, "repl-diskless-sync-delay": "0"}) as server:
        write_keyspace(server.client(0))
        target = tmp_path / "snapshot.rdb"
        progress = []
        live = rdbscope.load(f"redis://127.0.0.1:{server.port}", save_dump=target, batch_rows=10,
                             on_progress=lambda done, total: progress.append((done, total)))
        assert compared(rdbscope.load(target)) == compared(live) == saved(server)
        assert os.listdir(tmp_path) == ["snapshot.rdb"]
        # bytes received so far, of the length announced when the server sends one (not diskless)
        size = target.stat().st_size
        assert progress[-1] == (size, None if diskless == "yes" else size)
        assert len(progress) > 3 and all(0 < done <= size for done, _ in progress)


@pytest.mark.slow
def test_newlines_sent_while_the_snapshot_is_prepared_are_skipped():
    with running("redis-7.0", **{"repl-diskless-sync": "yes", "repl-diskless-sync-delay": "3"}) as server:
        write_keyspace(server.client(0))
        started = time.monotonic()
        live = rdbscope.load(f"redis://127.0.0.1:{server.port}")
        assert time.monotonic() - started > 2.5  # the server waited, sending a newline each second
        assert compared(live) == saved(server)


@pytest.mark.slow
def test_requirepass_in_the_url_and_in_rediscli_auth(monkeypatch):
    with running("redis-7.0", **{"repl-diskless-sync-delay": "0"}) as server:
        client = server.client(0)
        write_keyspace(client)
        client.execute_command("CONFIG", "SET", "requirepass", "s3cret-pw")
        try:
            url = f"redis://:s3cret-pw@127.0.0.1:{server.port}"
            live = rdbscope.load(url)
            assert live.info.path == f"redis://127.0.0.1:{server.port}"
            monkeypatch.setenv("REDISCLI_AUTH", "s3cret-pw")
            from_env = rdbscope.load(f"redis://127.0.0.1:{server.port}")
            assert compared(from_env) == compared(live)
            assert len(compared(live)) == 63
            with pytest.raises(InputError) as wrong:
                rdbscope.load(f"redis://:not-the-pw@127.0.0.1:{server.port}")
            message = str(wrong.value)
            assert "not-the-pw" not in message and "\n" not in message
            assert message.startswith(f"redis://127.0.0.1:{server.port}: authentication failed (WRONGPASS")
            monkeypatch.delenv("REDISCLI_AUTH")
            with pytest.raises(InputError, match="the server wants a password.*REDISCLI_AUTH"):
                rdbscope.load(f"redis://127.0.0.1:{server.port}")
        finally:
            client.execute_command("CONFIG", "SET", "requirepass", "")


@pytest.mark.slow
@pytest.mark.parametrize("label", LABELS)
def test_acl_user_with_and_without_sync(label):
    with running(label, **{"repl-diskless-sync-delay": "0"}) as server:
        client = server.client(0)
        write_keyspace(client)
        client.execute_command("ACL", "SETUSER", "reader", "on", ">reader-pw", "+sync", "+replconf", "~*")
        client.execute_command("ACL", "SETUSER", "app", "on", ">app-pw", "+@all", "-sync", "-psync", "~*")
        live = rdbscope.load(f"redis://reader:reader-pw@127.0.0.1:{server.port}")
        assert live.info.path == f"redis://reader@127.0.0.1:{server.port}"
        assert len(compared(live)) == 63
        with pytest.raises(InputError) as refused:
            rdbscope.load(f"redis://app:app-pw@127.0.0.1:{server.port}")
        message = str(refused.value)
        assert "app-pw" not in message and "\n" not in message
        assert "refused SYNC (NOPERM" in message and "BGSAVE" in message


def test_unix_socket():
    server = running("redis-7.0", **{"repl-diskless-sync": "no"})
    path = server.workdir / "redis.sock"
    server.config["unixsocket"] = str(path)
    with server:
        write_keyspace(server.client(0))
        live = rdbscope.load(f"unix://{path}")
        assert live.info.path == f"unix://{path}"
        assert compared(live) == saved(server)


def test_connection_refused():
    port = make_sample_dumps.free_port()
    with pytest.raises(InputError, match=rf"^redis://127\.0\.0\.1:{port}: cannot connect \(Connection refused\)$"):
        rdbscope.load(f"redis://:pw@127.0.0.1:{port}")


@pytest.mark.slow
def test_a_server_that_does_not_answer_times_out():
    with running("redis-7.0") as server:
        os.kill(server.process.pid, signal.SIGSTOP)
        try:
            with pytest.raises(InputError, match=r"no answer within 0\.5 s$"):
                rdbscope.load(f"redis://127.0.0.1:{server.port}", timeout=0.5)
            started = time.monotonic()
            result = subprocess.run([sys.executable, "-m", "rdbscope", "info", f"redis://127.0.0.1:{server.port}",
                                     "--timeout", "0.5"], capture_output=True, text=True, timeout=60)
            assert time.monotonic() - started < 30
            assert (result.returncode, result.stderr) == (
                2, f"error: redis://127.0.0.1:{server.port}: no answer within 0.5 s\n")
        finally:
            os.kill(server.process.pid, signal.SIGCONT)


def test_timeout_is_for_servers_only(tmp_path):
    with pytest.raises(ValueError, match="timeout .--timeout. applies to a running server"):
        rdbscope.scan(tmp_path / "dump.rdb", timeout=3)


@pytest.mark.slow
def test_server_killed_mid_transfer_is_a_truncated_snapshot(tmp_path):
    with running("redis-7.0", **{"repl-diskless-sync": "no", "enable-debug-command": "yes"}) as server:
        server.client(0).execute_command("DEBUG", "POPULATE", 300_000, "key", 200)

        def kill_once(done, total):
            if server.process.poll() is None:
                server.process.kill()
                server.process.wait()

        target = tmp_path / "snapshot.rdb"
        with pytest.raises(RdbTruncatedError) as cut:
            rdbscope.load(f"redis://127.0.0.1:{server.port}", batch_rows=1000, on_progress=kill_once,
                          save_dump=target)
        error = cut.value
        assert str(error).startswith(f"redis://127.0.0.1:{server.port}: offset ")
        assert "snapshot ends early: the connection closed" in str(error)
        assert 0 < error.offset < 300_000 * 200
        assert f"error: {as_in_readme(str(error), server.port)}" in readme_errors()
        assert os.listdir(tmp_path) == []  # no partial snapshot left behind


def test_save_dump_is_for_servers_only(tmp_path):
    with pytest.raises(ValueError, match="save_dump .--save-dump. applies to a running server"):
        rdbscope.scan(tmp_path / "dump.rdb", save_dump=tmp_path / "copy.rdb")



@pytest.mark.slow
def test_the_readme_errors_are_the_ones_raised():
    """Each line of README's error block is what ``rdbscope info`` prints on stderr for the case it stands for
    (the timeouts shortened to 0.5 s, README showing the defaults)."""
    seen = []

    def said(url, *options):
        env = {name: value for name, value in os.environ.items() if name != "REDISCLI_AUTH"}
        result = subprocess.run([sys.executable, "-m", "rdbscope", "info", url, *options], capture_output=True,
                                text=True, env=env, timeout=60)
        assert result.returncode == 2 and result.stdout == "", result.stderr
        seen.append(as_in_readme(result.stderr.rstrip("\n"), urlsplit(url).port))

    said(f"redis://127.0.0.1:{make_sample_dumps.free_port()}")
    with socket.socket() as unaccepted:  # a backlog of 0 held by one connection: the next is not answered
        unaccepted.bind(("127.0.0.1", 0))
        unaccepted.listen(0)
        with socket.create_connection(unaccepted.getsockname()):
            said(f"redis://127.0.0.1:{unaccepted.getsockname()[1]}", "--timeout", "0.5")
    with running("redis-7.0") as server:
        client = server.client(0)
        client.execute_command("ACL", "SETUSER", "app", "on", ">app-pw", "+@all", "-sync", "-psync", "~*")
        client.execute_command("CONFIG", "SET", "requirepass", "pw")
        try:
            for url in (f"redis://:wrong@127.0.0.1:{server.port}", f"redis://127.0.0.1:{server.port}",
                        f"redis://app:app-pw@127.0.0.1:{server.port}"):
                said(url)
        finally:
            client.execute_command("CONFIG", "SET", "requirepass", "")
        os.kill(server.process.pid, signal.SIGSTOP)
        try:
            said(f"redis://127.0.0.1:{server.port}", "--timeout", "0.5")
        finally:
            os.kill(server.process.pid, signal.SIGCONT)
    assert seen == readme_errors()[:6]


@pytest.mark.slow
@pytest.mark.parametrize("label", LABELS)
def test_tls_with_a_self_signed_certificate(label, tmp_path, monkeypatch):
    if shutil.which("openssl") is None:
        skip_or_fail("no openssl command to make a certificate with")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    tls_port = make_sample_dumps.free_port()
    server = running(label, **{"tls-port": str(tls_port), "tls-cert-file": str(cert), "tls-key-file": str(key),
                               "tls-ca-cert-file": str(cert), "tls-auth-clients": "no",
                               "repl-diskless-sync-delay": "0"})
    try:
        server.__enter__()
    except RuntimeError as exc:
        if "Failed finding TLS support" not in str(exc):
            raise
        pytest.skip(f"{label} is built without TLS")
    try:  # started above: a "with server" would start a second one
        write_keyspace(server.client(0))
        url = f"rediss://127.0.0.1:{tls_port}"
        with pytest.raises(InputError, match=r"the TLS handshake failed \(CERTIFICATE_VERIFY_FAILED: "
                                             r"self-signed certificate\)$"):
            rdbscope.load(url)
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # what ssl's default context trusts
        live = rdbscope.load(url)
        assert live.info.path == url
        assert compared(live) == saved(server)
    finally:
        server.stop()


def rdbscope_said(*args):
    """``(exit code, stderr)`` of ``rdbscope ARGS`` (its stdout must be empty)."""
    result = subprocess.run([sys.executable, "-m", "rdbscope", *map(str, args)], capture_output=True, text=True,
                            timeout=60)
    assert result.stdout == ""
    return result.returncode, result.stderr


@pytest.mark.slow
def test_rediss_against_a_port_without_tls_says_the_handshake_failed():
    """The server takes the TLS hello for a command and waits for the rest: the connection was made."""
    with running("redis-7.0") as server:
        code, said = rdbscope_said("info", f"rediss://127.0.0.1:{server.port}", "--timeout", "1")
    assert code == 2
    line = f"rediss://127.0.0.1:{server.port}: the TLS handshake failed: no TLS answer within 1 s " \
           "(a port without TLS? then the URL is redis://)"
    assert said == f"error: {line}\n"
    assert f"error: {as_in_readme(line.replace('within 1 s', 'within 5 s'), server.port)}" in readme_errors()


def test_a_server_that_is_not_redis_shows_the_first_bytes_it_answered():
    """A real HTTP server on loopback answers the replication handshake with a 400 and its headers."""
    import http.server
    import threading

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        default_request_version = "HTTP/1.1"  # the status line even for a request line it cannot read

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        port = httpd.server_address[1]
        code, said = rdbscope_said("info", f"redis://127.0.0.1:{port}")
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert code == 2
    line = (f"redis://127.0.0.1:{port}: unexpected answer to REPLCONF (not a Redis server?): "
            "\"HTTP/1.1 400 Bad request syntax ('*5')\\r\\n…\"")
    assert said == f"error: {line}\n"
    assert f"error: {as_in_readme(line, port)}" in readme_errors()


@pytest.mark.slow
def test_the_progress_bar_says_the_server_is_preparing_its_snapshot():
    """repl-diskless-sync-delay keeps the snapshot back: the bar on a terminal (a pseudo-terminal here) says why
    no byte has come yet, and no longer once they come."""
    import select

    with running("redis-7.0", **{"repl-diskless-sync": "yes", "repl-diskless-sync-delay": "2"}) as server:
        write_keyspace(server.client(0))
        primary, secondary = os.openpty()
        process = subprocess.Popen([sys.executable, "-m", "rdbscope", "report", f"redis://127.0.0.1:{server.port}",
                                    "--format", "json"], stdout=subprocess.DEVNULL, stderr=secondary,
                                   env={**os.environ, "COLUMNS": "200"})
        os.close(secondary)
        shown = b""
        try:
            while True:
                ready, _, _ = select.select([primary], [], [], 1)
                if ready:
                    try:
                        chunk = os.read(primary, 1 << 16)
                    except OSError:  # the process closed the terminal
                        break
                    if not chunk:
                        break
                    shown += chunk
                elif process.poll() is not None:
                    break
        finally:
            os.close(primary)
            process.wait(timeout=60)
    assert process.returncode == 0
    text = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", shown).decode("utf-8", "replace")
    waiting = f"reading redis://127.0.0.1:{server.port}: the server is preparing its snapshot"
    assert waiting in text
    # the bytes coming in, the word gone
    assert re.search(rf"reading redis://127\.0\.0\.1:{server.port} [^:\r]*?[1-9][0-9.]*/\? [kMG]?B", text)
    # then how long it took (and, after the bar, that a running server's values are not read again)
    assert re.search(rf"reading redis://127\.0\.0\.1:{server.port}: \d+\.\d s\s*"
                     r"(note: no value sample: a running server's snapshot cannot be read again\s*)?$", text)
