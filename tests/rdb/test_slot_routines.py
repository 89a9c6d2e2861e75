"""The routines that find hash slots (rdb/_slots.py): the compiled build's carry-less multiply (crc16_clmul.h) and
slice-by-8 tables, and the Python build, against the bitwise CRC16/XMODEM and CLUSTER KEYSLOT of a live server."""

import pathlib
import random
import re
import sys

import numpy as np
import pyarrow as pa
import pytest
import servers
from conftest import SAMPLE_DUMPS

from rdbscope.compiled import compiled_module, python_module
from rdbscope.rdb import cluster

sys.path.insert(0, str(SAMPLE_DUMPS))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import make_sample_dumps  # noqa: E402
from test_cluster_slots import cluster_capable_port  # noqa: E402
from test_crc64 import cpu_flags  # noqa: E402

PYTHON = python_module("rdb._slots")
COMPILED = compiled_module("rdb._slots")
POLY = 0x11021  # x^16 + x^12 + x^5 + 1


def bitwise_crc16(data):
    """CRC16/XMODEM a bit at a time, without tables."""
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = (crc << 1) ^ POLY if crc & 0x8000 else crc << 1
    return crc


def slot_of(key):
    """The slot by src/cluster.c keyHashSlot: the first "{", the first "}" after it, and a tag only if not empty."""
    start = key.find(b"{")
    if start >= 0:
        end = key.find(b"}", start + 1)
        if end > start + 1:
            key = key[start + 1:end]
    return bitwise_crc16(key) & 16383


def routines():
    """(build, routine) for the Python build and each routine of the compiled build this CPU has."""
    found = [("python", "slice-by-8")]
    if COMPILED is not None:
        found += [("compiled", name) for name in usable(COMPILED)]
    return found


def usable(module):
    """The routines of ``module`` this CPU has: those up to the one it chose."""
    return module.SLOT_ROUTINES[:module.SLOT_ROUTINES.index(module.SLOT_ROUTINE) + 1]


@pytest.fixture(params=routines(), ids="-".join)
def routine(request):
    """The module of the build, finding slots with the routine in turn."""
    build, name = request.param
    module = PYTHON if build == "python" else COMPILED
    best = module.SLOT_ROUTINE
    module.use_routine(name)
    yield module
    module.use_routine(best)


def buffers(keys, before=b""):
    """The offsets and data of the binary array of ``keys``, its data starting with ``before`` (no key's bytes)."""
    array = pa.array([before] + keys, pa.binary()).slice(1)
    return cluster.offsets_and_data(array)


def slots_by(module, offsets, data):
    out = np.empty(len(offsets) - 1, np.uint16)
    module.fill_slots(offsets, data, out)
    return out.tolist()


def test_compiled_build_uses_the_widest_carry_less_multiply_the_cpu_has():
    assert PYTHON.SLOT_ROUTINE == "slice-by-8"
    if COMPILED is None:
        pytest.skip("the compiled build is not here")
    flags = cpu_flags()
    expected = ("clmul-512" if {"pclmulqdq", "ssse3", "vpclmulqdq", "avx512f", "avx512bw"} <= flags
                else "clmul" if {"pclmulqdq", "ssse3"} <= flags else "slice-by-8")
    assert COMPILED.SLOT_ROUTINE == expected
    with pytest.raises(ValueError):
        PYTHON.use_routine("clmul")


def test_constants_are_powers_of_x_mod_the_polynomial():
    """Each constant of crc16_clmul.h, recomputed from P."""
    import rdbscope.rdb

    header = (pathlib.Path(rdbscope.rdb.__file__).parent / "crc16_clmul.h").read_text()
    constants = dict(re.findall(r"#define RDBSCOPE_CRC16_(\w+) (0x[0-9a-f]+)ULL", header))

    def power_mod(k):
        value = 1 << k
        for shift in range(k - 16, -1, -1):
            if value >> (shift + 16) & 1:
                value ^= POLY << shift
        return value

    quotient, rest = 0, 1 << 80
    for shift in range(64, -1, -1):
        if rest >> (shift + 16) & 1:
            quotient |= 1 << shift
            rest ^= POLY << shift
    assert {name: int(value, 16) for name, value in constants.items()} == {
        "P": POLY & 0xFFFF, "MU": quotient ^ 1 << 64, "X80": power_mod(80), "X128": power_mod(128),
        "X192": power_mod(192)}


def every_length_keys():
    """A key of every length 0 to 300 without "{", then the same holding a tag."""
    rng = random.Random(300)
    plain = [rng.randbytes(n).replace(b"{", b"z") for n in range(301)]
    tagged = [key[:n // 3] + b"{" + key[n // 3:n // 2] + b"}" + key[n // 2:] for n, key in enumerate(plain)]
    return plain + tagged


EVERY_LENGTH = every_length_keys()
EVERY_LENGTH_SLOTS = [slot_of(key) for key in EVERY_LENGTH]


@pytest.mark.parametrize("alignment", range(16))
def test_every_length_to_300_at_every_alignment_matches_the_bitwise_crc(routine, alignment):
    assert slots_by(routine, *buffers(EVERY_LENGTH, b"." * alignment)) == EVERY_LENGTH_SLOTS


def test_keys_in_buffers_shorter_than_a_block(routine):
    """A key with fewer than 16 bytes before its end and after its start in the buffer: no load may leave it."""
    rng = random.Random(16)
    for before in range(17):
        for n in range(21):
            key = rng.randbytes(n)
            data = np.frombuffer(bytes(rng.randbytes(before)) + key, np.uint8) if before + n else np.zeros(1, np.uint8)
            offsets = np.array([before, before + n], np.int32)
            assert slots_by(routine, offsets, data) == [slot_of(key)], (before, key)


@pytest.mark.parametrize("n", [1000, 70000])  # below and above the count of keys that pairs the counters
def test_counted_keys_and_memory_per_slot(routine, n):
    rng = np.random.default_rng(n)
    keys = [b"user:%d:{t%d}" % (i, i % 5) if i % 7 == 0 else b"key:%08d" % i for i in range(n)]
    offsets, data = buffers(keys, b"xyz")
    memory = rng.integers(0, 1 << 45, n).astype(np.uint64)
    n_keys, total = np.full(cluster.N_SLOTS, 3, np.int64), np.full(cluster.N_SLOTS, 0.25)
    out = np.empty(n, np.uint16)
    routine.count_slots(offsets, data, memory, out, n_keys, total)
    expected = np.array([slot_of(key) for key in keys])
    assert out.tolist() == expected.tolist()
    assert n_keys.tolist() == (3 + np.bincount(expected, minlength=cluster.N_SLOTS)).tolist()
    weights = memory.astype(np.float64)
    assert total.tolist() == (0.25 + np.bincount(expected, weights, minlength=cluster.N_SLOTS)).tolist()


def server_keys():
    """Keys of every length 0 to 70 with and without tags, empty tags, "{" without "}", and binary bytes with
    0x7b ("{") and 0x7d ("}") at every position of an 8-byte word."""
    rng = random.Random(70)
    keys = []
    for n in range(71):
        plain = bytes(rng.choice(b"abcxyz:_0123456789") for _ in range(n))
        keys += [plain, rng.randbytes(n)]
        for at in sorted({0, n // 2, n}):
            head, rest = plain[:at], plain[at:]
            keys += [head + b"{" + rest[:5] + b"}" + rest,  # a tag
                     head + b"{}" + rest,  # an empty tag: the whole key
                     head + b"{" + rest,  # no "}"
                     head + b"}" + rest + b"{",  # "}" before "{"
                     head + b"{}{" + rest[:3] + b"}" + rest]  # only the first "{" counts
    for length in (8, 13, 16, 24, 31):
        for at in range(length):
            word = bytearray(rng.randbytes(length).replace(b"{", b"\x00").replace(b"}", b"\xff"))
            for first, second in ((0x7B, None), (0x7D, None), (0x7B, 0x7D), (0x7D, 0x7B)):
                key = bytearray(word)
                key[at] = first
                if second is not None:
                    key[(at + 2) % length] = second
                keys.append(bytes(key))
    return keys


def test_slots_match_cluster_keyslot_of_a_live_server():
    keys = server_keys()
    running = make_sample_dumps.RunningServer(servers.server("redis-7.0"),
                                              {"save": "", "appendonly": "no", "cluster-enabled": "yes"})
    running.port = cluster_capable_port()
    with running:
        expected = make_sample_dumps.pipelined(running.client(0), [("CLUSTER", "KEYSLOT", k) for k in keys])
    assert [slot_of(key) for key in keys] == expected  # the reference above is the server's
    offsets, data = buffers(keys)
    modules = [PYTHON] + ([COMPILED] if COMPILED is not None else [])
    for module in modules:
        best = module.SLOT_ROUTINE
        for name in usable(module):
            module.use_routine(name)
            assert slots_by(module, offsets, data) == expected, name
        module.use_routine(best)
    assert cluster.key_slots(pa.array(keys, pa.binary())).to_pylist() == expected
