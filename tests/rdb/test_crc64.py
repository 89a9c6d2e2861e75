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


# ---------------------------------------------------------------- the carry-less multiply (crc64_clmul.h)

POLY_REFLECTED = 0x95AC9329AC4BC9B5  # src/crc64.c's polynomial, bit-reflected


def bitwise_crc64(crc, data):
    """The plain bit-at-a-time reflected CRC-64/Jones, without tables."""
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ POLY_REFLECTED if crc & 1 else crc >> 1
    return crc


def cpu_flags():
    import platform

    if platform.machine() not in ("x86_64", "AMD64"):
        return set()
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            return next((set(line.split(":", 1)[1].split()) for line in cpuinfo if line.startswith("flags")), set())
    except OSError:
        return set()


def test_compiled_build_folds_with_the_widest_carry_less_multiply_the_cpu_has():
    assert BUILDS["python"].CRC_ROUTINE == "numpy lanes"
    if "cython" not in BUILDS:
        pytest.skip("the compiled build is not here")
    flags = cpu_flags()
    expected = ("clmul-512" if {"pclmulqdq", "vpclmulqdq", "avx512f"} <= flags
                else "clmul" if "pclmulqdq" in flags else "slice-by-8")
    assert BUILDS["cython"].CRC_ROUTINE == expected


def compiled_routines():
    """The compiled build's routines for long runs that this CPU has."""
    if "cython" not in BUILDS:
        return []
    routines = BUILDS["cython"].CRC_ROUTINES
    return list(routines[:routines.index(BUILDS["cython"].CRC_ROUTINE) + 1])


@pytest.fixture(params=compiled_routines())
def routine(request):
    """The compiled build, checksumming long runs with each of its routines in turn."""
    compiled = BUILDS["cython"]
    best = compiled.CRC_ROUTINE
    compiled.use_routine(request.param)
    yield compiled
    compiled.use_routine(best)


def test_fold_constants_are_powers_of_x_mod_the_polynomial():
    """Each pair in crc64_clmul.h is {x^(D+63) mod P, x^(D-1) mod P}, bit-reflected, for D = 128, 256, ... 2048."""
    import pathlib
    import re

    import rdbscope.rdb

    header = (pathlib.Path(rdbscope.rdb.__file__).parent / "crc64_clmul.h").read_text()
    table = header[header.index("RDBSCOPE_CRC64_K[16][2] = {"):]
    table = table[:table.index("};")]
    pairs = re.findall(r"\{(0x[0-9a-f]+)ULL, (0x[0-9a-f]+)ULL\}", table)
    poly = (1 << 64) | int(f"{POLY_REFLECTED:064b}"[::-1], 2)  # x^64 + the normal form

    def reflected_power(k):
        value = 1
        for _ in range(k):
            value <<= 1
            if value >> 64:
                value ^= poly
        return int(f"{value:064b}"[::-1], 2)

    assert [(int(high, 16), int(low, 16)) for high, low in pairs] == [
        (reflected_power(distance + 63), reflected_power(distance - 1)) for distance in range(128, 2049, 128)]


def test_every_length_to_5000_at_every_alignment_from_random_crcs(routine):
    """Each start 0..15 in the buffer, each length 0..5000 (below, at and past where the fold takes over,
    and every tail after the blocks of 128 or 256 bytes), against the bitwise CRC."""
    rng = random.Random(64)
    data = rng.randbytes(5000 + 16)
    for start in range(16):
        initial = rng.getrandbits(64)
        expected = [initial]
        for byte in data[start:start + 5000]:
            expected.append(bitwise_crc64(expected[-1], (byte,)))
        got = [routine.crc64_chunk(initial, data, start, start + length) for length in range(5001)]
        assert got == expected, start


@pytest.mark.parametrize("length", [(1 << 20) - 1, 1 << 20, (1 << 20) + 129, 3 * 4096 * 50 + 17, (9 << 20) + 13])
def test_large_runs_agree_with_the_python_build_at_every_alignment(length, routine):
    rng = random.Random(length)
    data = rng.randbytes(length + 16)
    python = BUILDS["python"]
    for start in range(16):
        initial = rng.getrandbits(64)
        results = {name: build.crc64_chunk(initial, data, start, start + length) for name, build in BUILDS.items()}
        # Two parts chained give the whole run: the CRC carries over between calls.
        cut = start + rng.randrange(length)
        results["parts"] = python.crc64_chunk(python.crc64_chunk(initial, data, start, cut), data, cut,
                                              start + length)
        assert len(set(results.values())) == 1, (start, results)
