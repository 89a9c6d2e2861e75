"""The value sample read again from dumps written by real servers, against what the live server returns."""

import gzip
import os
import random
import shutil

import pytest
from conftest import CORPUS, SAMPLE_DUMPS, needs_corpus, one_quick, sample_dumps
from servers import make_sample_dumps, server

import rdbscope
from rdbscope.values.read import Wanted, ranged_block_size, read_samples
from rdbscope.values.sample import HEAD_BYTES, HEAD_ELEMENTS

SERVERS = ("redis-7.0", "redis-8.2", "valkey-8.1")


def _write(client, label):
    """Keys of every type in their small and big encodings (a few bytes to past HEAD_BYTES)."""
    rng = random.Random(7)
    client.execute_command("SET", "s:short", "hello")
    client.execute_command("SET", "s:int", "123456")
    client.execute_command("SET", "s:neg", "-42")
    client.execute_command("SET", "s:big64", str(2**62))
    client.execute_command("SET", "s:lzf", "abcdefgh" * 300)  # compressible: LZF in the dump
    client.execute_command("SET", "s:lzf-long", b"".join(b"%06d," % i for i in range(3000)))  # 21 KB
    client.execute_command("SET", "s:raw-long", rng.randbytes(9000))  # incompressible, plain
    client.execute_command("SET", "s:binary", bytes(range(256)))
    client.execute_command("HSET", "h:small", "name", "ada", "age", "36", "n", "-7", "big", str(2**40))
    client.execute_command("HSET", "h:big", *[x for i in range(300) for x in (f"f{i}", f"value-{i}" * (i % 5 + 1))])
    client.execute_command("HSET", "h:longval", "doc", "x" * 5000, "n", "1")
    client.execute_command("RPUSH", "l:small", "a", "1", "-300", "70000", "b" * 70)
    client.execute_command("RPUSH", "l:big", *[str(i) if i % 3 else f"item-{i}" * 20 for i in range(2000)])
    client.execute_command("RPUSH", "l:huge-item", "y" * 9000, "after")
    client.execute_command("SADD", "set:ints", 1, 2, 3, 100000, -5, 2**40)
    client.execute_command("SADD", "set:small", "red", "green", "blue")
    client.execute_command("SADD", "set:big", *[f"member-{i}" for i in range(600)])
    client.execute_command("ZADD", "z:small", 1, "one", 2.5, "two", 3, "three")
    client.execute_command("ZADD", "z:big", *[x for i in range(300) for x in (i * 1.5, f"player-{i}")])
    if label != "valkey-8.1":  # hash field TTLs: Redis 7.4 and later
        if label != "redis-7.0":
            client.execute_command("HSET", "ht:small", "a", "1", "b", "two", "c", "3")
            client.execute_command("HEXPIRE", "ht:small", 3600, "FIELDS", 1, "b")
            client.execute_command("HSET", "ht:big", *[x for i in range(300) for x in (f"f{i}", f"v{i}")])
            client.execute_command("HEXPIRE", "ht:big", 3600, "FIELDS", 2, "f1", "f7")


def _check(client, key, sample):
    kind = client.execute_command("TYPE", key).decode()
    assert sample.type == kind
    if kind == "string":
        assert sample.length == client.execute_command("STRLEN", key)
        assert sample.head == client.execute_command("GETRANGE", key, 0, HEAD_BYTES - 1)
        return
    if kind == "hash":
        pairs = client.execute_command("HGETALL", key)
        stored = dict(zip(pairs[::2], pairs[1::2], strict=True))
        assert sample.length == len(stored)
        assert len(sample.fields) == min(len(stored), HEAD_ELEMENTS) == len(set(sample.fields))
        assert list(sample.elements) == [stored[f][:HEAD_BYTES] for f in sample.fields]
        assert list(sample.element_lengths) == [len(stored[f]) for f in sample.fields]
        return
    if kind == "list":
        items = client.execute_command("LRANGE", key, 0, HEAD_ELEMENTS - 1)
        assert sample.length == client.execute_command("LLEN", key)
        assert list(sample.elements) == [item[:HEAD_BYTES] for item in items]
        assert list(sample.element_lengths) == [len(item) for item in items]
        return
    members = client.execute_command("SMEMBERS" if kind == "set" else "ZRANGE", key, *(() if kind == "set" else
                                                                                       (0, -1)))
    assert sample.length == len(members)
    assert len(sample.elements) == min(len(members), HEAD_ELEMENTS) == len(set(sample.elements))
    assert set(sample.elements) <= set(members)
    assert list(sample.element_lengths) == [len(m) for m in sample.elements]


@pytest.mark.slow
@pytest.mark.parametrize("label", SERVERS)
def test_samples_equal_what_the_server_returns(label, tmp_path):
    """Every sampled value, of every type and encoding, is what the live server returns for the key, read from
    the plain dump and from a gzip of it; the pure-Python scan of the same dump gives the same offsets."""
    with make_sample_dumps.RunningServer(server(label), {"save": ""}) as running:
        client = running.client(0)
        _write(client, label)
        client.execute_command("SAVE")
        dump = tmp_path / "dump.rdb"
        shutil.copyfile(running.dump_path, dump)
        keys = rdbscope.load(dump).to_arrow().to_pylist()
        wanted = {row["key"]: Wanted(row["offset"], row["type"], row["encoding"], row["n_elements"]) for row in keys}
        samples = read_samples(dump, wanted.values())
        encodings = set()
        for key, want in wanted.items():
            sample = samples[want.offset]
            assert sample.encoding == want.encoding
            encodings.add((sample.type, sample.encoding))
            _check(client, key, sample)
    with open(dump, "rb") as plain, gzip.open(tmp_path / "dump.rdb.gz", "wb") as packed:
        shutil.copyfileobj(plain, packed)
    assert read_samples(tmp_path / "dump.rdb.gz", wanted.values()) == samples
    expected = {("string", "int"), ("string", "embstr"), ("string", "raw"), ("hash", "hashtable"),
                ("hash", "listpack"), ("list", "quicklist"), ("set", "intset"), ("set", "hashtable"),
                ("zset", "listpack"), ("zset", "skiplist")}
    if label != "redis-7.0":  # 7.2 and later keep small lists and sets of strings in one listpack
        expected |= {("list", "listpack"), ("set", "listpack")}
    if label == "redis-8.2":
        expected.add(("hash", "listpackex"))
    assert expected <= encodings


def test_a_changed_file_gives_no_sample_and_no_error(tmp_path):
    """Offsets where no entry starts any more (the file changed since the scan): no sample, no traceback."""
    source = os.path.join(os.path.dirname(__file__), "..", "..", "sample_dumps", "redis-7.0-default.rdb")
    keys = rdbscope.load(source).to_arrow().to_pylist()
    wanted = [Wanted(row["offset"] + 3, row["type"], row["encoding"], row["n_elements"]) for row in keys[:50]]
    wanted.append(Wanted(10**9, "string", "raw", 5))
    assert len(read_samples(source, wanted)) < len(wanted)
    cut = tmp_path / "cut.rdb"
    cut.write_bytes(open(source, "rb").read()[:4000])
    whole = [Wanted(row["offset"], row["type"], row["encoding"], row["n_elements"]) for row in keys]
    assert 0 < len(read_samples(cut, whole)) < len(whole)


def _every_key_sampled(dump):
    """The keys of ``dump`` of the sampled types whose sample is missing or disagrees with the keys table."""
    rows = [row for row in rdbscope.load(dump).to_arrow().to_pylist()
            if row["type"] in ("string", "list", "set", "zset", "hash")]
    samples = read_samples(dump, [Wanted(row["offset"], row["type"], row["encoding"], row["n_elements"])
                                  for row in rows])
    wrong = []
    for row in rows:
        sample = samples.get(row["offset"])
        n = row["n_elements"]
        if sample is None:
            wrong.append((row["key"], row["encoding"], "no sample"))
        elif row["type"] == "string":
            if len(sample.head) != min(n, HEAD_BYTES) or sample.length != n:
                wrong.append((row["key"], row["encoding"], "head"))
        elif (len(sample.elements) != min(n, HEAD_ELEMENTS) or sample.length != n
              or any(length > row["max_element_bytes"] for length in sample.element_lengths)
              or (row["type"] == "hash" and n > 0) != bool(sample.fields)):
            wrong.append((row["key"], row["encoding"], "elements"))
    return wrong, len(rows)


@pytest.mark.parametrize("dump", one_quick([*sample_dumps(), SAMPLE_DUMPS / "libraries.rdb"]),
                         ids=lambda p: p.stem)
def test_every_key_of_every_sample_dump_is_sampled(dump):
    """Every string, list, set, zset and hash of the sample dumps (Redis 6.2 to the RDB 14 builds, Valkey 8.0 to
    9.1, field-TTL hashes of both) gets a sample as long as the keys table says."""
    wrong, n = _every_key_sampled(dump)
    assert n > 200 and wrong == []


@needs_corpus()
@pytest.mark.slow
def test_every_key_of_the_corpus_is_sampled():
    """The public test dumps: zipmaps, ziplists, linked lists, Redis 7.4 release-candidate field-TTL hashes,
    an AUX field inside an entry."""
    dumps = sorted((CORPUS / "public").rglob("*.rdb"))
    assert len(dumps) > 100
    read = 0
    for dump in dumps:
        try:
            wrong, n = _every_key_sampled(dump)
        except rdbscope.RdbError:  # the dumps rdbscope refuses (see tests/rdb/test_corpus.py)
            continue
        assert wrong == [], dump.name
        read += n
    assert read > 90_000


def test_damaged_bytes_at_the_offsets_never_raise(tmp_path):
    """Bytes flipped anywhere in a dump (a file changed since its scan): samples of what can still be read,
    never an exception."""
    source = SAMPLE_DUMPS / "redis-7.0-default.rdb"
    rows = rdbscope.load(source).to_arrow().to_pylist()
    wanted = [Wanted(row["offset"], row["type"], row["encoding"], row["n_elements"]) for row in rows]
    original = source.read_bytes()
    rng = random.Random(3)
    damaged = tmp_path / "damaged.rdb"
    for _ in range(40):
        data = bytearray(original)
        for at in rng.sample(range(9, len(data)), 200):
            data[at] = rng.randrange(256)
        damaged.write_bytes(bytes(data))
        assert len(read_samples(damaged, wanted)) <= len(wanted)


def test_a_few_offsets_far_apart_are_read_in_small_blocks_and_many_in_large_ones():
    """A few keys of a large dump: a small block at each; keys a few KB apart: blocks that take many at once."""
    assert ranged_block_size([n * (8 << 20) for n in range(40)]) == 64 << 10
    assert ranged_block_size(range(0, 1 << 30, 4 << 10)) == 4 << 20
    assert ranged_block_size([]) == 64 << 10
