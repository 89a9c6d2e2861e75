"""Dumps read from, and reports written to, object storage: s3:// URLs against moto's S3 server on 127.0.0.1,
and file:// URLs through fsspec."""

import gzip
import importlib.util
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import threading

import pytest
from conftest import assert_same_but_values, values_not_read

from tests.conftest import ROOT, SAMPLE_DUMPS

DUMP = SAMPLE_DUMPS / "redis-6.2-default.rdb"
NODES = [SAMPLE_DUMPS / "redis-6.2-lfu.rdb", SAMPLE_DUMPS / "redis-6.2-lru.rdb"]
BUCKET = "backups"
TERMINAL = object()  # standard input that is a terminal (a pseudo-terminal here)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def s3():
    """A running S3 server holding the sample dumps; yields the environment that points s3fs at it."""
    pytest.importorskip("s3fs")
    moto_server = pytest.importorskip("moto.server")
    boto3 = pytest.importorskip("boto3")
    port = free_port()
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
           "AWS_DEFAULT_REGION": "us-east-1", "FSSPEC_S3_ENDPOINT_URL": endpoint}
    client = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id="test", aws_secret_access_key="test",
                          region_name="us-east-1")
    client.create_bucket(Bucket=BUCKET)
    client.put_object(Bucket=BUCKET, Key="dump.rdb", Body=DUMP.read_bytes())
    client.put_object(Bucket=BUCKET, Key="dump.rdb.gz", Body=gzip.compress(DUMP.read_bytes()))
    for node in NODES:
        client.put_object(Bucket=BUCKET, Key=f"nodes/{node.name}", Body=node.read_bytes())
    try:
        yield env, client
    finally:
        server.stop()


def rdbscope(*args, env=None, **kwargs):
    return subprocess.run([sys.executable, "-m", "rdbscope", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=180, **kwargs)


def report_json(*args, env=None):
    result = rdbscope("report", *args, "--format", "json", "--quiet", env=env)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    return document


@pytest.mark.slow
@pytest.mark.parametrize("key", ["dump.rdb", "dump.rdb.gz"])
def test_report_of_an_s3_dump_is_the_local_report(s3, key):
    env, _client = s3
    remote = report_json(f"s3://{BUCKET}/{key}", env=env)
    local = report_json(DUMP, env=env)
    assert remote["overview"].pop("source") == key
    assert local["overview"].pop("source") == DUMP.name
    assert remote["overview"]["n_keys"] == 2073
    assert not values_not_read(local["patterns"])
    assert remote == local  # the value columns too: the object is read again at the sampled keys


@pytest.mark.slow
def test_a_missing_key_is_one_line_and_exit_2(s3):
    env, _client = s3
    result = rdbscope("report", f"s3://{BUCKET}/nope.rdb", env=env)
    assert result.returncode == 2
    assert result.stderr == f"error: s3://{BUCKET}/nope.rdb: no such file\n"


@pytest.mark.slow
def test_a_url_glob_reads_several_dumps_as_one_keyspace(s3):
    env, _client = s3
    # one server's dumps, not one cluster's nodes: read as one keyspace with --combine
    remote = report_json(f"s3://{BUCKET}/nodes/*.rdb", "--combine", env=env)
    local = report_json(*NODES, "--combine", env=env)
    assert [n["source"] for n in remote["nodes"]] == [f"s3://{BUCKET}/nodes/{n.name}" for n in NODES]
    assert remote["overview"]["n_sources"] == 2
    assert remote["overview"]["n_keys"] == local["overview"]["n_keys"]
    assert not values_not_read(local["patterns"])
    assert remote["patterns"] == local["patterns"]


@pytest.mark.slow
def test_report_out_writes_a_partition_to_s3_that_duckdb_reads(s3):
    """DuckDB reads the dataset with the s3:// URLs through s3fs (registered as an fsspec file system): its own
    httpfs extension is downloaded on first use, and the test run has no network."""
    import duckdb
    import s3fs

    env, client = s3
    out = f"s3://{BUCKET}/reports"
    for keys in (["--keys"], []):  # the second run replaces the first's partition, keys.parquet included
        result = rdbscope("report", f"s3://{BUCKET}/dump.rdb.gz", "--out", out, "--instance", "cache-1",
                          "--date", "2026-11-23", "--quiet", *keys, env=env)
        assert result.returncode == 0, result.stderr
    listed = client.list_objects_v2(Bucket=BUCKET, Prefix="reports/")
    names = sorted(o["Key"] for o in listed["Contents"])
    assert names == [f"reports/instance=cache-1/date=2026-11-23/{t}.parquet"
                     for t in ("findings", "patterns", "summary")]  # no scratch prefix left, no stale keys
    con = duckdb.connect()
    con.register_filesystem(s3fs.S3FileSystem(endpoint_url=env["FSSPEC_S3_ENDPOINT_URL"], key="test",
                                              secret="test"))
    summary = con.sql(f"SELECT instance, CAST(date AS VARCHAR), source, n_keys, n_patterns FROM read_parquet("
                      f"'{out}/*/*/summary.parquet', hive_partitioning = true)").fetchall()
    n_patterns = con.sql(f"SELECT count(*) FROM read_parquet('{out}/*/*/patterns.parquet')").fetchall()[0][0]
    local = report_json(DUMP, env=env)["overview"]
    assert summary == [("cache-1", "2026-11-23", "dump.rdb.gz", local["n_keys"], local["n_patterns"])]
    assert n_patterns == local["n_patterns"] == 80


@pytest.mark.slow
def test_scan_and_info_read_s3(s3, tmp_path):
    env, _client = s3
    result = rdbscope("info", f"s3://{BUCKET}/dump.rdb.gz", "--format", "json", env=env)
    assert result.returncode == 0, result.stderr
    info = json.loads(result.stdout)
    assert (info["compression"], info["n_keys"]) == ("gzip", 2073)
    out = tmp_path / "keys.parquet"
    result = rdbscope("scan", f"s3://{BUCKET}/dump.rdb", "-o", out, "--quiet", env=env)
    assert result.returncode == 0, result.stderr
    import pyarrow.parquet as pq

    assert pq.read_metadata(out).num_rows == 2073


@pytest.mark.slow
def test_a_scheme_without_its_backend_names_the_extra():
    if importlib.util.find_spec("gcsfs") is not None:
        pytest.skip("gcsfs is installed here")
    result = rdbscope("report", "gs://bucket/dump.rdb")
    assert result.returncode == 2
    assert result.stderr == 'error: gs://bucket/dump.rdb: reading gs:// URLs needs the gcs extra: ' \
                            'pip install "rdbscope[gcs]"\n'


@pytest.mark.slow
def test_an_out_url_without_its_backend_says_writing():
    if importlib.util.find_spec("gcsfs") is not None:
        pytest.skip("gcsfs is installed here")
    result = rdbscope("report", DUMP, "--out", "gs://bucket/reports")
    assert result.returncode == 2
    assert result.stderr == 'error: gs://bucket/reports: writing gs:// URLs needs the gcs extra: ' \
                            'pip install "rdbscope[gcs]"\n'


@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["http", "https"])
def test_an_http_url_without_aiohttp_names_the_http_extra(scheme):
    """fsspec's HTTP file system needs aiohttp alone; it is kept from importing here as on a machine without it."""
    pytest.importorskip("fsspec")
    url = f"{scheme}://127.0.0.1:9/dump.rdb"
    without_aiohttp = ("import sys; sys.modules['aiohttp'] = None; from rdbscope.cli import main; "
                       f"sys.argv = ['rdbscope', 'info', {url!r}]; main()")
    result = subprocess.run([sys.executable, "-c", without_aiohttp], capture_output=True, text=True, cwd=ROOT,
                            timeout=180)
    assert result.returncode == 2
    assert result.stderr == f'error: {url}: reading {scheme}:// URLs needs the http extra: ' \
                            'pip install "rdbscope[http]"\n'


@pytest.mark.slow
def test_the_readme_errors_are_what_users_meet(s3):
    """Each line of README's error block ("Where the dump lives") is what the command it stands for prints."""
    import re

    env, _client = s3
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"^```text\n(error: s3://backups/cache-1.*?)^```", readme, re.S | re.M).group(1)
    half = (SAMPLE_DUMPS / "redis-8.2-default.rdb").read_bytes()[:300000]
    runs = {"s3://backups/cache-1/dump.rdb.gz": (["report", "s3://backups/cache-1/dump.rdb.gz"], None),
            "s3://backups/nightly/*.rdb": (["report", "s3://backups/nightly/*.rdb"], None),
            "gs://backups/dump.rdb": (["report", "gs://backups/dump.rdb"], None),
            "<stdin>": (["report", "-"], half),
            "standard input": (["report", "-", "-"], b""),
            "- reads": (["report", "-"], TERMINAL)}
    lines = block.strip().splitlines()
    assert len(lines) == len(runs)
    for line, (name, (args, given)) in zip(lines, runs.items(), strict=True):
        assert line.startswith(f"error: {name}"), line
        if name.startswith("gs:") and importlib.util.find_spec("gcsfs") is not None:
            continue
        said = re.sub(r"\s{2,}\(.*\)$", "", line)  # the note for the reader
        if given is TERMINAL:
            primary, secondary = os.openpty()
            try:
                result = subprocess.run([sys.executable, "-m", "rdbscope", *args], stdin=secondary,
                                        capture_output=True, cwd=ROOT, env=env, timeout=180)
            finally:
                os.close(primary)
                os.close(secondary)
        else:
            result = subprocess.run([sys.executable, "-m", "rdbscope", *args], input=given, capture_output=True,
                                    cwd=ROOT, env=env, timeout=180)
        assert result.returncode == 2, line
        pattern = re.escape(said).replace(re.escape("..."), ".*")
        assert re.fullmatch(pattern, result.stderr.decode().rstrip("\n")), (line, result.stderr)


@pytest.mark.slow
def test_a_file_url_is_read_through_fsspec_and_errors_name_the_url(tmp_path):
    pytest.importorskip("fsspec")
    damaged = tmp_path / "damaged.rdb"
    damaged.write_bytes(DUMP.read_bytes()[:100000])
    url = f"file://{damaged}"
    for command in ("report", "info", "patterns"):
        result, local = rdbscope(command, url), rdbscope(command, damaged)
        assert result.returncode == local.returncode == 2
        assert local.stderr.startswith(f"error: {damaged}: offset ") and len(local.stderr.splitlines()) == 1
        assert result.stderr == local.stderr.replace(str(damaged), url, 1)
    remote, local = report_json(f"file://{DUMP}"), report_json(DUMP)
    assert remote["overview"]["n_keys"] == 2073 and not values_not_read(local["patterns"])
    assert remote == local  # values read again through fsspec too
    result = rdbscope("info", f"file://{tmp_path}/nope.rdb")
    assert (result.returncode, result.stderr) == (2, f"error: file://{tmp_path}/nope.rdb: no such file\n")


@pytest.mark.slow
def test_a_keys_parquet_file_on_s3_is_an_input(s3, tmp_path):
    env, client = s3
    keys = tmp_path / "keys.parquet"
    assert rdbscope("scan", DUMP, "-o", keys, "--quiet", env=env).returncode == 0
    client.put_object(Bucket=BUCKET, Key="scans/keys.parquet", Body=keys.read_bytes())
    client.put_object(Bucket=BUCKET, Key="scans/keys-without-suffix", Body=keys.read_bytes())
    local = report_json(keys, env=env)
    for key in ("scans/keys.parquet", "scans/keys-without-suffix"):
        remote = report_json(f"s3://{BUCKET}/{key}", env=env)
        assert remote["overview"].pop("source") == key.rsplit("/", 1)[-1]
        local["overview"].pop("source", None)
        assert remote == local
    result = rdbscope("patterns", f"s3://{BUCKET}/scans/keys.parquet", "--type", "hash", "--format", "json",
                      env=env)
    assert result.returncode == 0, result.stderr
    assert {"hash"} == {t for row in json.loads(result.stdout) for t in row["types"]}


@pytest.mark.slow
def test_trend_and_diff_read_a_dataset_on_s3(s3, tmp_path):
    """The same two reports written to S3 and to a directory give the same trend and the same diff."""
    env, _client = s3
    remote, local = f"s3://{BUCKET}/history", tmp_path / "history"
    days = (("2026-11-22", NODES[0]), ("2026-11-23", NODES[1]))
    for out in (remote, local):
        for day, dump in days:
            result = rdbscope("report", dump, "--out", out, "--instance", "cache-1", "--date", day, "--quiet",
                              env=env)
            assert result.returncode == 0, result.stderr
    trend = rdbscope("trend", remote, "--format", "json", env=env)
    assert trend.returncode == 0, trend.stderr
    rows = json.loads(trend.stdout)
    assert {r["date"] for r in rows} == {"2026-11-22", "2026-11-23"}
    assert rows == json.loads(rdbscope("trend", local, "--format", "json", env=env).stdout)
    grown = rdbscope("trend", remote, "--fail-if-growth", "0%", env=env)
    assert grown.returncode == 1 and "instance cache-1: total memory grew" in grown.stderr
    partitions = [f"{remote}/instance=cache-1/date={day}" for day, _dump in days]
    diff = rdbscope("diff", *partitions, "--format", "json", env=env)
    assert diff.returncode == 0, diff.stderr
    local_diff = rdbscope("diff", *[local / f"instance=cache-1/date={day}" for day, _dump in days],
                          "--format", "json", env=env)
    remote_doc, local_doc = json.loads(diff.stdout), json.loads(local_diff.stdout)
    for doc in (remote_doc, local_doc):
        for side in ("old", "new"):
            doc[side].pop("source")
    assert remote_doc == local_doc and remote_doc["patterns"]
    missing = rdbscope("trend", f"s3://{BUCKET}/nothing-here", env=env)
    assert (missing.returncode, missing.stderr) == (
        2, f"error: s3://{BUCKET}/nothing-here: no patterns.parquet under instance=*/date=* "
           "(not a report dataset?)\n")


@pytest.mark.slow
def test_readers_skip_a_partition_whose_publishing_was_cut_off(s3):
    """Publishing on object storage deletes summary.parquet first and copies it last: a partition without one
    is being published, or its run stopped part-way: trend and read_table leave it out, diff refuses it."""
    env, client = s3
    out = f"s3://{BUCKET}/published"
    days = (("2026-11-21", NODES[0]), ("2026-11-22", NODES[1]), ("2026-11-23", DUMP))
    for day, dump in days:
        result = rdbscope("report", dump, "--out", out, "--instance", "cache-1", "--date", day, "--quiet", env=env)
        assert result.returncode == 0, result.stderr
    partition = "published/instance=cache-1/date={}/{}.parquet".format
    # a re-run of 2026-11-23 stopped after deleting the old summary, its new tables copied
    client.delete_object(Bucket=BUCKET, Key=partition("2026-11-23", "summary"))
    # a first run of 2026-11-24 stopped after copying one table
    client.copy_object(Bucket=BUCKET, Key=partition("2026-11-24", "patterns"),
                       CopySource={"Bucket": BUCKET, "Key": partition("2026-11-22", "patterns")})
    trend = rdbscope("trend", out, "--format", "json", env=env)
    assert trend.returncode == 0, trend.stderr
    assert {row["date"] for row in json.loads(trend.stdout)} == {"2026-11-21", "2026-11-22"}
    read_back = ("import json; from rdbscope.report.dataset import read_table; "
                 f"print(json.dumps({{t: sorted(set(read_table({out!r}, t)['date'].to_pylist())) "
                 "for t in ('summary', 'patterns', 'findings')}))")
    result = subprocess.run([sys.executable, "-c", read_back], capture_output=True, text=True, cwd=ROOT, env=env,
                            timeout=180)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {t: ["2026-11-21", "2026-11-22"] for t in ("summary", "patterns", "findings")}
    # diff names the partition it cannot trust, and reads the whole ones
    cut_off = f"{out}/instance=cache-1/date=2026-11-23"
    diff = rdbscope("diff", f"{out}/instance=cache-1/date=2026-11-22", cut_off, env=env)
    assert (diff.returncode, diff.stderr) == (
        2, f"error: {cut_off}: no summary.parquet: a partition still being published, or whose publishing "
           "stopped part-way\n")
    whole = rdbscope("diff", f"{out}/instance=cache-1/date=2026-11-21", f"{out}/instance=cache-1/date=2026-11-22",
                     "--format", "json", env=env)
    assert whole.returncode == 0, whole.stderr


@pytest.mark.slow
@pytest.mark.parametrize("key", ["dump.rdb", "dump.rdb.gz"])
def test_an_s3_dump_over_the_budget_is_analysed_in_bounded_memory(s3, key):
    """The object's size is known before it is read (the store says), so the run is bounded from the start."""
    env, _client = s3
    result = rdbscope("report", f"s3://{BUCKET}/{key}", "--memory-budget", "100KB", "--format", "json", env=env)
    assert result.returncode == 0, result.stderr
    # nothing left out of the analysis, the value sample included
    assert [line for line in result.stderr.splitlines() if line.startswith("note:")] == []
    remote = json.loads(result.stdout)
    local = report_json(DUMP, "--memory-budget", "100KB", env=env)
    assert remote["overview"].pop("source") == key
    local["overview"].pop("source")
    assert remote["expiry"]["bursts"]
    assert not values_not_read(local["patterns"])
    assert remote == local


def test_every_extra_a_scheme_names_is_one_pyproject_offers():
    import tomllib

    from rdbscope.sources import EXTRAS

    offered = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(EXTRAS.values()) | {"dask"} <= set(offered)
    assert EXTRAS["https"] == EXTRAS["http"] == "http" and "aiohttp" in offered["http"]


def without_credentials(env, home):
    """``env`` with no AWS credentials anywhere botocore looks (variables, ~/.aws, the instance metadata)."""
    env = {name: value for name, value in env.items() if name not in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                                                                      "AWS_SESSION_TOKEN", "AWS_PROFILE")}
    return {**env, "HOME": str(home), "AWS_SHARED_CREDENTIALS_FILE": str(home / "none"),
            "AWS_CONFIG_FILE": str(home / "none"), "AWS_EC2_METADATA_DISABLED": "true"}


@pytest.mark.parametrize("args, url, doing", [
    (["report", f"s3://{BUCKET}/dump.rdb"], f"s3://{BUCKET}/dump.rdb", "reading"),
    pytest.param(["info", f"s3://{BUCKET}/dump.rdb"], f"s3://{BUCKET}/dump.rdb", "reading", marks=pytest.mark.slow),
    pytest.param(["diff", f"s3://{BUCKET}/dump.rdb", DUMP], f"s3://{BUCKET}/dump.rdb", "reading",
                 marks=pytest.mark.slow),
    (["report", DUMP, "--out", f"s3://{BUCKET}/reports"], f"s3://{BUCKET}/reports", "writing"),
])
def test_no_credentials_is_one_line_and_exit_2(s3, tmp_path, args, url, doing):
    env, _client = s3
    result = rdbscope(*args, env=without_credentials(env, tmp_path))
    assert result.returncode == 2, result.stderr
    assert result.stderr == (f"error: {url}: no credentials for {doing} it (set AWS_ACCESS_KEY_ID and "
                             "AWS_SECRET_ACCESS_KEY, or AWS_PROFILE)\n")


@pytest.mark.slow
@pytest.mark.parametrize("args", [["report", f"s3://{BUCKET}/dump.rdb"],
                                  pytest.param(["info", f"s3://{BUCKET}/dump.rdb"], marks=pytest.mark.slow)])
def test_an_endpoint_that_does_not_answer_is_one_line_within_seconds(s3, args):
    """Nothing listens on the endpoint's port: botocore's default retries took 12 to 22 s to say so."""
    import time

    env, _client = s3
    endpoint = f"http://127.0.0.1:{free_port()}"
    started = time.monotonic()
    result = rdbscope(*args, env={**env, "FSSPEC_S3_ENDPOINT_URL": endpoint})
    took = time.monotonic() - started
    assert result.returncode == 2, result.stderr
    assert result.stderr == (f'error: s3://{BUCKET}/dump.rdb: could not connect to the endpoint URL: '
                             f'"{endpoint}/{BUCKET}/dump.rdb"\n')
    assert took < 9, took


@pytest.mark.slow
def test_an_endpoint_that_takes_the_connection_and_never_answers_is_one_line(s3):
    """A port that accepts and then says nothing (a stuck proxy or load balancer): botocore's 60 s read timeout,
    tried by botocore and again by s3fs, kept the command waiting 157 s for its line."""
    import time

    env, _client = s3
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)  # the kernel completes each connection; nothing ever reads or answers
        endpoint = f"http://127.0.0.1:{silent.getsockname()[1]}"
        started = time.monotonic()
        result = rdbscope("info", f"s3://{BUCKET}/dump.rdb", env={**env, "FSSPEC_S3_ENDPOINT_URL": endpoint})
        took = time.monotonic() - started
    assert result.returncode == 2, result.stderr
    assert result.stderr == (f'error: s3://{BUCKET}/dump.rdb: Read timeout on endpoint URL: '
                             f'"{endpoint}/{BUCKET}/dump.rdb"\n')
    assert took < 90, took


class CountingProxy:
    """A TCP proxy on 127.0.0.1 in front of the S3 server: ``received`` counts the bytes the server sent back
    through it (response bodies and headers)."""

    def __init__(self, endpoint):
        self.upstream = ("127.0.0.1", int(endpoint.rsplit(":", 1)[1]))
        self.received = 0
        self.lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.endpoint = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                client, _address = self.listener.accept()
            except OSError:  # closed
                return
            server = socket.create_connection(self.upstream)
            threading.Thread(target=self.pipe, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self.pipe, args=(server, client, True), daemon=True).start()

    def pipe(self, source, target, counted):
        try:
            while data := source.recv(1 << 16):
                if counted:
                    with self.lock:
                        self.received += len(data)
                target.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, target):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self):
        self.listener.close()


@pytest.fixture(scope="module")
def redis_7_dump(tmp_path_factory):
    """A 24 MB dump written by Redis 7.0 (without LZF, so that its strings are stored as they are): 48 strings of
    512 KB of text and a few small JSON strings, hashes, lists, sets and sorted sets."""
    from servers import make_sample_dumps, server

    rng = random.Random(5)
    words = [b"alpha", b"beta", b"gamma", b"delta", b"omega", b"kappa"]
    with make_sample_dumps.RunningServer(server("redis-7.0"), {"save": "", "rdbcompression": "no"}) as running:
        client = running.client(0)
        for i in range(48):
            client.set(f"blob:{i}", b" ".join(rng.choice(words) for _ in range(90_000))[:512 << 10])
        for i in range(8):
            client.set(f"doc:{i}", json.dumps({"id": i, "name": f"user {i}", "tags": ["a", "b"], "score": i / 3}))
            client.hset(f"session:{i}", mapping={"user": str(i), "seen": "1700000000", "agent": "curl/8.5"})
            client.rpush(f"queue:{i}", *[json.dumps({"job": j}) for j in range(20)])
            client.sadd(f"tags:{i}", *range(1000, 1010))
            client.zadd(f"rank:{i}", {f"player-{j}": j for j in range(12)})
        client.execute_command("SAVE")
        dump = tmp_path_factory.mktemp("redis-7.0") / "dump.rdb"
        shutil.copyfile(running.dump_path, dump)
    return dump


@pytest.mark.slow
def test_values_of_an_s3_dump_are_read_again_in_ranges(s3, redis_7_dump):
    """The report of a Redis 7.0 dump on S3 is that of the file, value columns included; the value sample of the
    plain object fetches a few ranges of it (counted by a proxy: what the run sends back beyond the same run
    with --no-values), the gzip one is downloaded again."""
    env, client = s3
    plain = redis_7_dump.read_bytes()
    assert len(plain) > 24 << 20
    client.put_object(Bucket=BUCKET, Key="redis-7.0/dump.rdb", Body=plain)
    client.put_object(Bucket=BUCKET, Key="redis-7.0/dump.rdb.gz", Body=gzip.compress(plain))
    packed_size = client.head_object(Bucket=BUCKET, Key="redis-7.0/dump.rdb.gz")["ContentLength"]
    local = report_json(redis_7_dump, env=env)
    local["overview"].pop("source")
    formats = {row["pattern"]: row["value_format"] for row in local["patterns"]}
    assert formats == {"blob:{id}": "text", "doc:{id}": "json", "queue:{id}": "json", "rank:{id}": "text",
                       "session:{id}": "number", "tags:{id}": "number"}
    proxy = CountingProxy(env["FSSPEC_S3_ENDPOINT_URL"])
    through = {**env, "FSSPEC_S3_ENDPOINT_URL": proxy.endpoint}
    fetched = {}
    try:
        for key in ("dump.rdb", "dump.rdb.gz"):
            url = f"s3://{BUCKET}/redis-7.0/{key}"
            before = proxy.received
            without_values = rdbscope("report", url, "--no-values", "--quiet", env=through)
            assert without_values.returncode == 0, without_values.stderr
            scan_only = proxy.received - before
            remote = report_json(url, env=through)
            fetched[key] = proxy.received - before - 2 * scan_only
            assert remote["overview"].pop("source") == key
            assert remote == local
    finally:
        proxy.close()
    # a 64 KiB block at each of the 32 sampled strings of 512 KB (and the small keys near them): about a tenth
    assert 32 * (64 << 10) < fetched["dump.rdb"] < len(plain) / 6
    assert packed_size <= fetched["dump.rdb.gz"] < packed_size * 1.1 + (1 << 20)


PRELUDE = """
import sys
import boto3
import rdbscope.passes.values as values
from rdbscope.cli import main

def {name}(path, wanted, *args):  # the object {done} after the scan, before its values are read again
    client = boto3.client("s3", endpoint_url={endpoint!r}, region_name="us-east-1")
    {action}
    return read_samples(path, wanted, *args)

read_samples, values.read_samples = values.read_samples, {name}
sys.argv = ["rdbscope", *sys.argv[1:]]
main()
"""


@pytest.mark.slow
@pytest.mark.parametrize("change, note", [
    ("delete", "could not be read again (no such file)"),
    ("replace", "could not be read again (another key at offset "),
])
def test_an_object_gone_or_changed_since_the_scan_gives_a_note_and_no_values(s3, change, note):
    """The object deleted, or replaced by another dump, between the scan and the reading of its values: one
    note naming the URL, the value columns null, the rest of the report that of the file, exit 0."""
    env, client = s3
    key = f"changing/{change}.rdb"
    client.put_object(Bucket=BUCKET, Key=key, Body=DUMP.read_bytes())
    action = (f"client.delete_object(Bucket={BUCKET!r}, Key={key!r})" if change == "delete" else
              f"client.put_object(Bucket={BUCKET!r}, Key={key!r}, Body=open({str(NODES[0])!r}, 'rb').read())")
    script = PRELUDE.format(name=f"{change}_then_read", done="goes" if change == "delete" else "changes",
                            endpoint=env["FSSPEC_S3_ENDPOINT_URL"], action=action)
    url = f"s3://{BUCKET}/{key}"
    result = subprocess.run([sys.executable, "-c", script, "report", url, "--format", "json"], capture_output=True,
                            text=True, cwd=ROOT, env=env, timeout=180)
    assert result.returncode == 0, result.stderr
    notes = [line for line in result.stderr.splitlines() if "note:" in line or "Traceback" in line]
    assert len(notes) == 1 and notes[0].startswith(f"note: no value sample: {url} {note}"), result.stderr
    remote, local = json.loads(result.stdout), report_json(DUMP, env=env)
    assert remote["overview"].pop("source") == f"{change}.rdb"
    local["overview"].pop("source")
    assert_same_but_values(remote, local)
