"""Hash slots against CLUSTER KEYSLOT of a live server started in cluster mode."""

import sys

import pyarrow as pa
import pytest
from conftest import SAMPLE_DUMPS

import rdbscope
from rdbscope.compiled import python_module
from rdbscope.rdb import cluster

sys.path.insert(0, str(SAMPLE_DUMPS))
import make_sample_dumps  # noqa: E402

SERVERS = make_sample_dumps.discover_servers()
EDGE_KEYS = [b"", b"foo", b"{user1000}.following", b"{user1000}.followers", b"foo{}{bar}", b"foo{{bar}}zap",
             b"foo{bar}{zap}", b"{", b"}{", b"{a", b"a}", b"\xff\xfe{\x00}", b"x" * 5000]
# every length up to 40 (the CRC's four-byte steps and its last bytes), and tags of every length up to 9
EDGE_KEYS += [bytes(range(33, 33 + n)) for n in range(41)] + [b"ab{" + b"c" * n + b"}x" for n in range(10)]


def cluster_capable_port():
    """A free port p with p + 10000 free too: the cluster bus listens there."""
    import random
    import socket

    for port in random.Random().sample(range(20000, 50000), 200):
        try:
            with socket.socket() as a, socket.socket() as b:
                a.bind(("127.0.0.1", port))
                b.bind(("127.0.0.1", port + 10000))
            return port
        except OSError:
            continue
    pytest.skip("no free port pair for a cluster-mode server")


def python_fill_slots():
    """_slots.py run as Python, as it runs where the extension was not built."""
    return python_module("rdb._slots").fill_slots


@pytest.mark.slow
@pytest.mark.skipif(not SERVERS, reason="no redis-server or valkey-server binary found on this machine")
def test_slots_match_cluster_keyslot(tmp_path):
    keys = rdbscope.load(SAMPLE_DUMPS / "redis-7.0-default.rdb").table["key"].to_pylist() + EDGE_KEYS
    config = {"save": "", "appendonly": "no", "cluster-enabled": "yes"}
    server = make_sample_dumps.RunningServer(SERVERS[0], config)
    server.port = cluster_capable_port()
    with server:
        expected = make_sample_dumps.pipelined(server.client(0), [("CLUSTER", "KEYSLOT", k) for k in keys])
    assert cluster.key_slots(pa.array(keys, pa.binary())).to_pylist() == expected


def test_both_builds_agree():
    keys = pa.array(EDGE_KEYS + [f"user:{i}:{{tag{i % 7}}}".encode() for i in range(500)], pa.binary())
    import numpy as np

    out = np.empty(len(keys), np.uint16)
    _validity, offsets, data = keys.buffers()
    python_fill_slots()(np.frombuffer(offsets, np.int32), np.frombuffer(data, np.uint8), out)
    assert out.tolist() == cluster.key_slots(keys).to_pylist()


def test_known_slots():
    # Examples from the Redis Cluster specification and the CRC16 check value of "123456789".
    assert cluster.key_slot("123456789") == 0x31C3 & 16383
    assert cluster.key_slot("{user1000}.following") == cluster.key_slot("{user1000}.followers")
    assert cluster.key_slot("foo{}{bar}") != cluster.key_slot("bar")
    assert cluster.key_slot("foo{bar}{zap}") == cluster.key_slot("bar")


def test_sliced_and_chunked_arrays():
    keys = pa.array([b"a", b"b{x}", b"c", b"d"], pa.binary())
    whole = cluster.key_slots(keys).to_pylist()
    assert cluster.key_slots(keys.slice(1)).to_pylist() == whole[1:]
    assert cluster.key_slots(pa.chunked_array([keys[:2], keys[2:]])).to_pylist() == whole
    assert cluster.key_slots(pa.array([], pa.binary())).to_pylist() == []


@pytest.mark.parametrize("build", ["compiled", "python"])
def test_counted_slots_are_the_slots_with_their_keys_and_memory_per_slot(build):
    import numpy as np

    keys = pa.array(EDGE_KEYS + [f"user:{i}:{{tag{i % 7}}}".encode() for i in range(500)], pa.binary()).slice(3)
    memory = np.arange(len(keys), dtype=np.uint64) * 977 + 56
    n_keys, total = np.ones(cluster.N_SLOTS, np.int64), np.full(cluster.N_SLOTS, 0.5)
    if build == "python":
        module = python_module("rdb._slots")
        _validity, offsets, data = keys.buffers()
        slots = np.empty(len(keys), np.uint16)
        module.count_slots(np.frombuffer(offsets, np.int32, len(keys) + 1, keys.offset * 4),
                           np.frombuffer(data, np.uint8), memory, slots, n_keys, total)
    else:
        slots = cluster.count_key_slots(keys, memory, n_keys, total)
    expected = np.array(cluster.key_slots(keys).to_pylist())
    assert slots.tolist() == expected.tolist()
    assert (n_keys == 1 + np.bincount(expected, minlength=cluster.N_SLOTS)).all()
    assert (total == 0.5 + np.bincount(expected, memory.astype(np.float64), minlength=cluster.N_SLOTS)).all()
