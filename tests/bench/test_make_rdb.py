"""bench/make_rdb.py writes dumps that real servers load, and that rdbscope reads as the server does."""

import collections
import re
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager

import pandas as pd
import pytest
import servers
from conftest import ROOT
from servers import make_sample_dumps

import rdbscope

MAKE_RDB = ROOT / "bench" / "make_rdb.py"
HEX = re.compile(rb"[0-9a-f]{24}")
MIN_TTL_MS = 10 * 60 * 1000  # the generator's shortest TTL
MAX_TTL_MS = 7 * 86400 * 1000  # and its longest


def make_rdb(path, *args):
    return subprocess.run([sys.executable, str(MAKE_RDB), "--out", str(path), *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def generate(path, *args):
    done = make_rdb(path, *args)
    assert done.returncode == 0, done.stderr
    return path


@contextmanager
def serving(label, dump):
    """A server of ``label`` started on 127.0.0.1 with ``dump`` as its dump file."""
    server = make_sample_dumps.RunningServer(servers.server(label), {"save": "", "appendonly": "no"})
    try:
        shutil.copyfile(dump, server.dump_path)
        with server:
            yield server
    finally:
        server.stop()


def keyspace(server):
    """INFO keyspace of the live server: {db: (keys, expires)}."""
    info = server.client(0).execute_command("INFO", "keyspace").decode()
    found = re.findall(r"^db(\d+):keys=(\d+),expires=(\d+)", info, re.MULTILINE)
    return {int(db): (int(keys), int(expires)) for db, keys, expires in found}


def all_keys(client):
    keys, cursor = set(), b"0"
    while True:
        cursor, batch = client.execute_command("SCAN", cursor, "COUNT", 10000)
        keys.update(batch)
        if cursor == b"0":
            return keys


def check_against_server(dump, label, n_keys, dbs, sample, same_writer=True, prefix="user:session:"):
    """Everything the live server says about ``dump`` against rdbscope.load() of it.

    rdbscope's encoding is what the server that wrote the dump would say
    (its redis-ver AUX field); it is compared only when ``label`` is that server.
    """
    table = rdbscope.load(dump)
    df = table.to_pandas()
    assert table.info.checksum_verified
    assert table.num_rows == n_keys
    assert set(df["type"]) == {"string"}
    ctime_ms = int(table.info.aux["ctime"]) * 1000

    with serving(label, dump) as server:
        log = (server.workdir / "server.log").read_text()
        assert f"Done loading RDB, keys loaded: {n_keys}, keys expired: 0" in log

        # Per db: the server's counts, rdbscope's rows and the RESIZEDB hints agree.
        live = keyspace(server)
        rows = df.groupby("db").agg(n_keys=("key", "size"), n_expires=("expire_at", "count"))
        assert live == {r.Index: (r.n_keys, r.n_expires) for r in rows.itertuples()}
        assert live == table.info.resizedb
        assert sum(keys for keys, _ in live.values()) == n_keys
        assert sorted(live) == list(range(dbs))
        per_db = [keys for keys, _ in live.values()]
        assert max(per_db) - min(per_db) <= 1
        for db in live:
            client = server.client(db)
            assert int(client.execute_command("DBSIZE")) == live[db][0]
            assert all_keys(client) == {k.encode() for k in df.loc[df["db"] == db, "key"]}

        # Key by key, on a sample: type, value, encoding and TTL.
        picked = df.sample(n=min(sample, len(df)), random_state=7)
        before_ms = int(time.time() * 1000)
        replies = []
        for db, group in picked.groupby("db"):
            pipe = server.client(db).pipeline(transaction=False)
            for key in group["key"]:
                pipe.execute_command("TYPE", key)
                pipe.execute_command("GET", key)
                pipe.execute_command("OBJECT", "ENCODING", key)
                pipe.execute_command("PTTL", key)
            got = pipe.execute()
            replies += [(row, got[4 * i:4 * i + 4]) for i, row in enumerate(group.itertuples())]
        after_ms = int(time.time() * 1000) + 1

    int_sizes = collections.Counter()
    for row, (kind, value, encoding, pttl) in replies:
        assert kind == b"string"
        assert len(value) == row.n_elements
        if same_writer:
            assert encoding.decode() == row.encoding
        if row.key.startswith("cache:page:"):
            assert HEX.fullmatch(value) and (encoding == b"embstr" or not same_writer)
            assert pd.notna(row.expire_at)  # every cache page expires
        else:
            assert row.key.startswith(prefix) and encoding == b"int"
            number = int(value)
            int_sizes[(number > 127) + (number > 32767)] += 1
        if pd.isna(row.expire_at):
            assert pttl == -1
        else:
            expire_ms = row.expire_at.value // 1_000_000
            assert expire_ms - after_ms <= pttl <= expire_ms - before_ms
            # The TTL the generator gave, less no more than the time since the dump's ctime.
            assert MIN_TTL_MS <= expire_ms - ctime_ms <= MAX_TTL_MS
            assert 0 <= (expire_ms - ctime_ms) - pttl <= after_ms - ctime_ms
    assert len(replies) == len(picked)
    return df, int_sizes


@pytest.mark.slow
@pytest.mark.server
def test_a_thousand_keys_over_three_dbs_load_in_redis_7_0(tmp_path):
    dump = generate(tmp_path / "gen-1k.rdb", "--keys", 1000, "--dbs", 3, "--ttl-share", 0.4)
    assert dump.read_bytes()[:9] == b"REDIS0010"
    df, int_sizes = check_against_server(dump, "redis-7.0", 1000, dbs=3, sample=1000)
    assert set(int_sizes) == {0, 1, 2}  # int8, int16 and int32 encodings all occur


@pytest.mark.server
@pytest.mark.slow
def test_a_hundred_thousand_keys_over_four_dbs_load_in_redis_7_0(tmp_path):
    dump = generate(tmp_path / "gen-100k.rdb", "--keys", 100_000, "--dbs", 4,
                    "--ttl-share", 0.5, "--cache-share", 0.2, "--batch-share", 0.05)
    df, _ = check_against_server(dump, "redis-7.0", 100_000, dbs=4, sample=3000)
    cache = df["key"].str.startswith("cache:page:")
    assert abs(cache.mean() - 0.2) < 0.01
    assert df.loc[cache, "expire_at"].notna().all()
    assert abs(df.loc[~cache, "expire_at"].notna().mean() - 0.5) < 0.01
    # Exact-millisecond batches: four instants per shape, each shared by well over 100 keys.
    shared = df["expire_at"].value_counts()
    assert len(shared[shared >= 100]) == 8


@pytest.mark.slow
@pytest.mark.server
def test_keys_over_63_bytes_take_two_length_bytes_and_load(tmp_path):
    prefix = "tenant:" + "x" * 100 + ":session:"
    dump = generate(tmp_path / "gen-long.rdb", "--keys", 500, "--prefix", prefix)
    check_against_server(dump, "redis-7.0", 500, dbs=1, sample=500, prefix=prefix)


@pytest.mark.slow
@pytest.mark.server
@pytest.mark.parametrize("label", ["redis-8.2", "valkey-8.1"])
def test_version_11_dumps_load_in_newer_servers(label, tmp_path):
    dump = generate(tmp_path / "gen-v11.rdb", "--keys", 2000, "--dbs", 2, "--rdb-version", 11)
    assert dump.read_bytes()[:9] == b"REDIS0011"
    check_against_server(dump, label, 2000, dbs=2, sample=300, same_writer=False)


@pytest.mark.slow
def test_the_same_arguments_give_the_same_bytes(tmp_path):
    args = ("--keys", 300_000, "--dbs", 2, "--seed", 5, "--ctime", 1_760_000_000)
    first = generate(tmp_path / "a.rdb", *args).read_bytes()
    assert generate(tmp_path / "b.rdb", *args).read_bytes() == first
    other = generate(tmp_path / "c.rdb", *args[:-4], "--seed", 6, "--ctime", 1_760_000_000).read_bytes()
    assert other != first and len(first) > 300_000 * 15
    table = rdbscope.load(tmp_path / "a.rdb")
    assert table.num_rows == 300_000 and table.info.checksum_verified


def test_an_empty_keyspace_is_a_valid_dump(tmp_path):
    table = rdbscope.load(generate(tmp_path / "empty.rdb", "--keys", 0))
    assert table.num_rows == 0 and table.info.checksum_verified
    assert table.info.aux["redis-ver"] == "7.0.15"


@pytest.mark.parametrize("args, message", [
    (("--keys", 10, "--ttl-share", 1.5), "--ttl-share: must be a share between 0 and 1, not '1.5'"),
    (("--keys", -1), "--keys must be 0 or more"),
    (("--keys", 10, "--dbs", 0), "--dbs must be 1 to 65536"),
    (("--keys", 10, "--prefix", ""), "--prefix '' must hold a character other than digits"),
    (("--keys", 10, "--prefix", "cache:"), "--prefix 'cache:' overlaps the cache:page: keys"),
    (("--keys", 10, "--rdb-version", 9), "--rdb-version: invalid choice: 9"),
])
def test_bad_options_say_so_in_one_line_and_leave_the_old_file(tmp_path, args, message):
    out = tmp_path / "kept.rdb"
    out.write_bytes(b"before")
    done = make_rdb(out, *args)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr
    assert out.read_bytes() == b"before"


def test_a_missing_directory_is_named(tmp_path):
    done = make_rdb(tmp_path / "nowhere" / "x.rdb", "--keys", 10)
    assert done.returncode == 2
    assert done.stderr == f"make_rdb.py: error: {tmp_path / 'nowhere' / 'x.rdb'}: its directory does not exist\n"
