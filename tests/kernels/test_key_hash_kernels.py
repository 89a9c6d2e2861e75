"""The keys' hashes of ``kernels/_key_hashes.py``, in both builds, against the hash written out plainly in
Python: eight little-endian bytes a step, the last few bytes as one word, then splitmix64's finalizer."""

import numpy as np
import pyarrow as pa
import pytest
from conftest import module_builds

from rdbscope import kernels
from rdbscope.passes import values

BUILDS = sorted(module_builds("kernels._key_hashes"))
WORD = 2**64 - 1


def plain_key_hash(key):
    h = 0x9E3779B97F4A7C15 ^ len(key)
    whole = len(key) // 8 * 8
    for i in range(0, whole, 8):
        h = ((h ^ int.from_bytes(key[i:i + 8], "little")) * 0xBF58476D1CE4E5B9) & WORD
        h ^= h >> 29
    h = ((h ^ int.from_bytes(key[whole:], "little")) * 0xBF58476D1CE4E5B9) & WORD
    x = h ^ (h >> 32)
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & WORD
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & WORD
    return x ^ (x >> 31)


@pytest.fixture(params=BUILDS)
def build(request, monkeypatch):
    monkeypatch.setattr(kernels, "key_hashes", module_builds("kernels._key_hashes")[request.param])
    return request.param


def keys_of_every_length():
    """Keys of 0 to 40 bytes (every byte value among them), some alike but for one byte, some with digits."""
    rng = np.random.default_rng(5)
    keys = [bytes(rng.integers(0, 256, length).astype(np.uint8)) for length in range(41) for _ in range(6)]
    keys += [b"user:session:%d" % n for n in rng.integers(0, 10**9, 300)]
    keys += [b"abcdefgh" + bytes([value]) for value in range(256)]
    return pa.array(keys, pa.binary())


def test_key_hashes_are_the_plain_hash(build):
    keys = keys_of_every_length()
    for part in (keys, keys.slice(37, 500)):  # a slice: its offsets start past its data's start
        assert values.key_hashes(part).tolist() == [plain_key_hash(key) for key in part.to_pylist()]
    chunked = pa.chunked_array([keys.slice(0, 100), keys.slice(100)])
    assert values.key_hashes(chunked).tolist() == [plain_key_hash(key) for key in keys.to_pylist()]


def test_keys_under_cut_are_those_whose_plain_hash_is_at_most_their_groups_cut(build):
    keys = keys_of_every_length()
    plain = np.array([plain_key_hash(key) for key in keys.to_pylist()], np.uint64)
    rng = np.random.default_rng(8)
    group = rng.integers(0, 4, len(keys)).astype(np.int32)
    for cut in ([0, 2**63, 2**64 - 1, 2**60], [2**64 - 1] * 4, [0] * 4, [int(plain[7])] * 4):
        cut = np.array(cut, np.uint64)
        expected = np.flatnonzero(plain <= cut[group])
        for part in (keys, pa.chunked_array([keys.slice(0, 300), keys.slice(300)])):
            rows, hashes = values.keys_under_cut(part, group, cut)
            assert rows.tolist() == expected.tolist()
            assert hashes.tolist() == plain[expected].tolist()
    assert 7 in values.keys_under_cut(keys, group, np.full(4, plain[7], np.uint64))[0].tolist()


def test_no_keys_have_no_hashes(build):
    empty = pa.array([], pa.binary())
    assert values.key_hashes(empty).tolist() == []
    assert values.keys_under_cut(empty, np.zeros(0, np.int32), np.zeros(2, np.uint64))[0].tolist() == []
