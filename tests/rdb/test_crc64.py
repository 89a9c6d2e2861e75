"""CRC-64/Jones: both builds of rdb/_crc64.py, the Python one through numpy lanes for long runs, the compiled
one through three streams side by side (blocks of 3 * STREAM_BYTES)."""

import random

import pytest

from rdbscope.compiled import compiled_module, python_module

BUILDS = {"python": python_module("rdb._crc64")}
if compiled_module("rdb._crc64") is not None:
    BUILDS["cython"] = compiled_module("rdb._crc64")


@pytest.fixture(params=sorted(BUILDS))
def crc64(request):
    return BUILDS[request.param]


def test_check_value_of_redis_crc64_c(crc64):
    # src/crc64.c's own test: crc64(0, "123456789", 9) == 0xe9c6d914c4b8d9ca
    assert crc64.crc64_chunk(0, b"123456789", 0, 9) == 0xE9C6D914C4B8D9CA


@pytest.mark.parametrize("length", [0, 1, 7, 8, 9, 511, 12287, 12288, 12289, 24583, 32767, 32768, 32769, 70001, 300000])
def test_builds_agree_on_any_length_start_and_running_crc(length):
    data = random.Random(length).randbytes(length + 13)
    start = 13 if length % 2 else 0
    results = {name: build.crc64_chunk(0x0123456789ABCDEF, data, start, start + length)
               for name, build in BUILDS.items()}
    # A run cut in two continues where the first part left off, across the numpy lanes' edge.
    python = BUILDS["python"]
    half = start + length // 2
    assert python.crc64_chunk(python.crc64_chunk(0x0123456789ABCDEF, data, start, half), data, half,
                              start + length) == results["python"]
    assert len(set(results.values())) == 1, results


def test_long_run_takes_the_lanes_and_matches_the_byte_loop():
    python = BUILDS["python"]
    data = random.Random(7).randbytes(python.LANE_BYTES * python.MIN_LANES * 3 + 100)
    crc, done = python._crc64_lanes(5, data, 0, len(data))
    assert done == len(data) - 100
    byte_loop = 5
    table = python.CRC_TABLES
    for b in data[:done]:
        byte_loop = table[(byte_loop ^ b) & 0xFF] ^ (byte_loop >> 8)
    assert crc == byte_loop
