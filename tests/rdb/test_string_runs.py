"""Runs of string keys against a live server, in both builds.

The dump mixes every string shape a run may meet or must stop at: small and
wide integers, text that looks like an integer but does not load as one, keys
and values past the 6-bit length, LZF values and keys, integer keys, TTLs, and other types in
between, over several dbs. Both builds must give the server's answers, and the
same table however the scan is batched or filtered.
"""

import random
import sys
import time

import pyarrow.compute as pc
import pytest
from conftest import SAMPLE_DUMPS

import rdbscope

sys.path.insert(0, str(SAMPLE_DUMPS))
import make_sample_dumps  # noqa: E402
from make_sample_dumps import pipelined  # noqa: E402

SERVERS = sorted((s for s in make_sample_dumps.discover_servers() if s.label.startswith("redis-")),
                 key=lambda s: s.label != "redis-7.0")  # Debian's, where installed

pytestmark = [
    pytest.mark.server,
    pytest.mark.slow,
    pytest.mark.skipif(not SERVERS, reason="no redis-server binary found on this machine"),
]

TEXT_VALUES = [b"", b"0", b"7", b"-1", b"127", b"-128", b"128", b"40000", b"-70000", b"9223372036854775807",
               b"9223372036854775808", b"-9223372036854775808", b"007", b"-0", b"+5", b" 5", b"1e3",
               b"value:12", b"x" * 44, b"y" * 45, b"z" * 63, b"w" * 64, b"v" * 300]


def string_value(rng, i):
    roll = i % 10
    if roll < 5:
        return rng.choice(TEXT_VALUES)
    if roll < 7:
        return str(rng.randint(-10 ** 12, 10 ** 12)).encode()
    if roll < 8:
        return b"ab" * rng.randint(20, 200)  # long and compressible: LZF
    return bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 90)))


def key_name(rng, db, i):
    if i % 13 == 0:
        return f"db{db}:long:{'k' * rng.randint(60, 120)}:{i}".encode()
    if i % 17 == 0:
        return bytes([0xFF, 0x00, i % 256]) + f":{db}:{i}".encode()
    if i % 19 == 0:
        return str(i * 7919).encode()  # saved as an integer
    return f"user:{i}:db{db}".encode()


@pytest.fixture(scope="module")
def dump(tmp_path_factory):
    rng = random.Random(2026)
    binary = SERVERS[0]
    with make_sample_dumps.RunningServer(binary, {"save": "", "appendonly": "no"}) as server:
        now_ms = int(time.time() * 1000)
        for db in (0, 3):
            client = server.client(db)
            pipe = client.pipeline(transaction=False)
            for i in range(3000):
                key = key_name(rng, db, i)
                if i % 97 == 0:
                    pipe.hset(key, mapping={"f": "v", "g": str(i)})
                    continue
                pipe.set(key, string_value(rng, i))
                if i % 3 == 0:
                    pipe.pexpireat(key, now_ms + 3_600_000 + rng.randint(0, 10 ** 9))
            pipe.execute()
        oracle = {}
        for db in (0, 3):
            client = server.client(db)
            keys = client.execute_command("KEYS", "*")
            kinds = pipelined(client, [("TYPE", key) for key in keys])
            replies = pipelined(client, [command for key, kind in zip(keys, kinds, strict=True) for command in (
                ("OBJECT", "ENCODING", key), ("STRLEN" if kind == b"string" else "HLEN", key), ("PTTL", key),
                ("STRLEN", key) if kind == b"string" else ("HGETALL", key))])
            for i, (key, kind) in enumerate(zip(keys, kinds, strict=True)):
                encoding, length, pttl, sizes = replies[4 * i:4 * i + 4]
                if kind == b"hash":  # the largest field plus value
                    sizes = max(len(f) + len(v) for f, v in zip(sizes[0::2], sizes[1::2], strict=True))
                oracle[(db, key)] = (kind.decode(), encoding.decode(), length, pttl, sizes)
        server.client(0).save()
        path = tmp_path_factory.mktemp("runs") / "runs.rdb"
        path.write_bytes(server.dump_path.read_bytes())
    return path, oracle


def rows_of(keys):
    table = keys.to_arrow()
    expire_ms = table["expire_at"].cast("int64")
    return table.drop(["expire_at"]).append_column("expire_ms", expire_ms).to_pylist()


def test_both_builds_give_the_live_servers_answers(dump, implementation):
    path, oracle = dump
    keys = rdbscope.load(path, implementation=implementation)
    assert keys.num_rows == len(oracle) == 6000
    read_at_ms = int(time.time() * 1000)
    for row in rows_of(keys):
        kind, encoding, length, pttl, largest = oracle[(row["db"], row["key"])]
        assert (row["type"], row["encoding"], row["n_elements"], row["max_element_bytes"]) == (
            kind, encoding, length, largest), row["key"]
        if pttl < 0:
            assert row["expire_ms"] is None
        else:  # the PTTL was read before the dump was saved: it can only have run down since
            assert 0 <= row["expire_ms"] - read_at_ms <= pttl, row["key"]


@pytest.mark.parametrize("batch_rows", [1, 7, 1000])
def test_batching_and_filters_do_not_change_the_table(dump, batch_rows):
    path, _ = dump
    whole = rdbscope.load(path, implementation="cython").to_arrow()
    for filters in ({}, {"types": ["string"]}, {"key_glob": "user:*"}, {"db": [3]}):
        python = rdbscope.load(path, implementation="python", batch_rows=batch_rows, contiguous=False,
                               **filters).to_arrow()
        expected = whole
        if filters.get("types"):
            expected = whole.filter(pc.equal(whole["type"], "string"))
        elif filters.get("db"):
            expected = whole.filter(pc.equal(whole["db"], 3))
        elif filters.get("key_glob"):
            expected = whole.filter(pc.starts_with(whole["key"].cast("binary"), b"user:"))
        assert python.equals(expected), filters


def test_keys_read_again_at_their_offsets_are_the_servers(dump, implementation):
    """``rdb.keys_at`` finds each entry's key past its TTL, whether stored as text, an integer or LZF."""
    path, oracle = dump
    table = rdbscope.load(path).table
    offsets = table["offset"].to_pylist()
    found = rdbscope.rdb.keys_at(path, offsets, implementation=implementation)
    assert sorted((db, found[offset]) for db, offset in zip(table["db"].to_pylist(), offsets, strict=True)) \
        == sorted(oracle)
    assert sum(key.isdigit() for _db, key in oracle) > 200 and sum(len(key) > 60 for _db, key in oracle) > 200
    data = path.read_bytes()
    with pytest.raises(rdbscope.RdbFormatError, match=r"runs.rdb.*no entry starts here"):
        rdbscope.rdb.keys_at(path, [data.index(b"redis-ver")], implementation=implementation)
