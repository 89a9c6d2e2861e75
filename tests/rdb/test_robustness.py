"""Damaged input: only RdbError may come out, with an offset, quickly, in both builds."""

import io
import random
import time

import pytest
from conftest import CORPUS, SAMPLE_DUMPS, corpus_available, needs_corpus

import rdbscope
import rdbscope.rdb

SMALL_SAMPLES = sorted(SAMPLE_DUMPS.glob("*-lfu.rdb"))


#: Small corpus files that must fail whole; truncating them proves nothing new.
FAILING_WHOLE = {"corrupt_ziplist.rdb", "future_v19.rdb", "encodings-rdb75-unknown-types.rdb",
                 "encodings-rdb987-unknown-types.rdb", "encodings-rdb987.rdb", "redis_ent_opcode_ram_lru.rdb",
                 "invalid_chksum_v8.rdb", "module.rdb"}


def small_corpus_files():
    if not corpus_available():
        return []
    files = sorted((CORPUS / "public").rglob("*.rdb"))
    return [p for p in files if p.stat().st_size < 2048 and p.name not in FAILING_WHOLE]


def scan_bytes(data, implementation, path=None):
    """Scan a dump held in memory, or written to ``path`` (which the compiled build maps);
    return the key count, or the RdbError raised."""
    if path is not None:
        path.write_bytes(data)
    started = time.perf_counter()
    try:
        source = io.BytesIO(data) if path is None else path
        keys = rdbscope.load(source, batch_rows=64, implementation=implementation)
        outcome = keys.num_rows
    except rdbscope.RdbError as exc:
        assert exc.offset is not None and 0 <= exc.offset <= len(data), exc
        assert exc.context, exc
        outcome = exc
    elapsed = time.perf_counter() - started
    assert elapsed < 1.0, f"{elapsed:.2f}s for one damaged dump"
    return outcome


def describe(exc):
    """What an error says, apart from the file it names."""
    return type(exc), exc.offset, exc.message, exc.context


def truncation_points(size, dense_prefix, stride):
    points = set(range(min(size, dense_prefix)))
    points.update(range(dense_prefix, size, stride))
    return sorted(points)


@pytest.mark.slow
@needs_corpus()
def test_truncating_small_corpus_dumps_at_every_offset(implementation):
    files = small_corpus_files()
    assert len(files) > 100
    cases = 0
    for path in files:
        data = path.read_bytes()
        end = rdbscope.load(path, verify_crc=False).info.end_offset  # a few files carry trailing bytes
        for cut in range(end):
            outcome = scan_bytes(data[:cut], implementation)
            assert isinstance(outcome, rdbscope.RdbError), (path.name, cut)
            cases += 1
    assert cases > 30000


@pytest.mark.slow
@pytest.mark.parametrize("path", SMALL_SAMPLES, ids=[p.stem for p in SMALL_SAMPLES])
def test_truncating_sample_dumps(path, implementation):
    data = path.read_bytes()
    # Every offset where the header and the first keys are; a stride after that
    # (every offset of the compiled build would take minutes in pure Python).
    stride = 7 if implementation == "cython" else 61
    for cut in truncation_points(len(data), 4096, stride):
        outcome = scan_bytes(data[:cut], implementation)
        assert isinstance(outcome, rdbscope.RdbTruncatedError) or isinstance(outcome, rdbscope.RdbError), cut


@pytest.mark.slow
@pytest.mark.parametrize("path", SMALL_SAMPLES, ids=[p.stem for p in SMALL_SAMPLES])
def test_truncated_files_fail_the_same_mapped_or_streamed(path, implementation, tmp_path):
    """A dump file is read mapped (compiled build) or streamed; a cut one fails the same either way."""
    data = path.read_bytes()
    cut_file = tmp_path / "cut.rdb"
    for cut in truncation_points(len(data), 600, 97 if implementation == "cython" else 997):
        mapped = scan_bytes(data[:cut], implementation, cut_file)
        streamed = scan_bytes(data[:cut], implementation)
        assert isinstance(mapped, rdbscope.RdbError), cut
        assert describe(mapped) == describe(streamed), cut


def mutate(data, rng):
    data = bytearray(data)
    kind = rng.randrange(4)
    at = rng.randrange(9, len(data))
    if kind == 0:
        data[at] ^= 1 << rng.randrange(8)
    elif kind == 1:
        data[at] = rng.randrange(256)
    elif kind == 2:
        # An absurd 64-bit length where a length or string may be.
        data[at:at + 9] = b"\x81" + b"\xff" * 8
    else:
        for _ in range(rng.randrange(2, 8)):
            data[rng.randrange(9, len(data))] = rng.randrange(256)
    return bytes(data)


@pytest.mark.slow
def test_random_mutations(implementation, tmp_path):
    rng = random.Random(20261122)
    sources = [p.read_bytes() for p in SMALL_SAMPLES] + [p.read_bytes() for p in small_corpus_files()]
    outcomes = {"keys": 0, "error": 0}
    runs = 3000 if implementation == "cython" else 600
    for run in range(runs):
        data = mutate(rng.choice(sources), rng)
        # Every other case from a file, which the compiled build maps instead of streaming.
        outcome = scan_bytes(data, implementation, tmp_path / "mutated.rdb" if run % 2 else None)
        outcomes["error" if isinstance(outcome, rdbscope.RdbError) else "keys"] += 1
    # Most damage is caught by a structure check or the CRC64 trailer.
    assert outcomes["error"] > runs * 0.9, outcomes


@pytest.mark.parametrize("length", [2**63, 2**64 - 1, 2**40])
def test_absurd_lengths_fail_fast_without_allocating(length, implementation):
    header = b"REDIS0009"
    entry = b"\x00" + b"\x03key" + b"\x81" + length.to_bytes(8, "big")
    with pytest.raises(rdbscope.RdbError) as caught:
        rdbscope.load(io.BytesIO(header + entry), implementation=implementation)
    assert caught.value.offset is not None


def test_huge_blob_length_in_a_listpack_is_a_truncation_not_an_allocation(implementation):
    entry = b"\x10" + b"\x01h" + b"\x80" + (2**31).to_bytes(4, "big") + b"\x00" * 64
    with pytest.raises(rdbscope.RdbTruncatedError) as caught:
        rdbscope.load(io.BytesIO(b"REDIS0010" + entry), implementation=implementation)
    assert "2147483648 bytes expected" in str(caught.value)


@pytest.mark.parametrize("where", ["value", "key"])
def test_bad_lzf_length_is_a_format_error(where, implementation):
    # 'a' then a back reference of 36: 37 bytes, while the header announces 50.
    compressed = b"\x00a\xe0\x1b\x00"
    lzf = b"\xc3" + bytes([len(compressed), 50]) + compressed
    entry = b"\x00\x01k" + lzf if where == "value" else b"\x00" + lzf + b"\x01v"
    data = b"REDIS0009" + entry + b"\xff" + b"\x00" * 8
    with pytest.raises(rdbscope.RdbFormatError, match="LZF data decompresses to 37 bytes, 50 announced"):
        rdbscope.load(io.BytesIO(data), implementation=implementation)


def test_good_lzf_value_reads(implementation):
    compressed = b"\x00a\xe0\x1b\x00"
    data = b"REDIS0009" + b"\x00\x01k\xc3" + bytes([len(compressed), 37]) + compressed + b"\xff" + b"\x00" * 8
    row = rdbscope.load(io.BytesIO(data), implementation=implementation).to_arrow().to_pylist()[0]
    assert (row["key"], row["n_elements"], row["encoding"]) == (b"k", 37, "embstr")


def test_wrong_magic_names_the_file(tmp_path, implementation):
    path = tmp_path / "not-a-dump.rdb"
    path.write_bytes(b"PK\x03\x04 definitely a zip file")
    with pytest.raises(rdbscope.RdbFormatError) as caught:
        rdbscope.load(path, implementation=implementation)
    assert str(path) in str(caught.value) and "magic" in str(caught.value)
    assert caught.value.offset == 0


def test_on_error_stop_keeps_the_keys_before_the_damage(implementation):
    data = (SAMPLE_DUMPS / "redis-7.0-lfu.rdb").read_bytes()
    full = rdbscope.load(io.BytesIO(data), implementation=implementation)
    cut = len(data) // 2
    partial = rdbscope.load(io.BytesIO(data[:cut]), on_error="stop", implementation=implementation)
    assert 0 < partial.num_rows < full.num_rows
    assert partial.info.truncated_at is not None and partial.info.truncated_at <= cut
    assert isinstance(partial.info.stopped_by, rdbscope.RdbTruncatedError)
    assert partial.to_arrow()["key"].to_pylist() == full.to_arrow()["key"].to_pylist()[: partial.num_rows]


def test_corrupt_length_encoding_names_the_byte(implementation):
    # 0x82 has the 32/64-bit length prefix bits but is neither 0x80 nor 0x81.
    data = b"REDIS0009" + b"\x00\x82abc"
    with pytest.raises(rdbscope.RdbFormatError, match="bad length encoding 0x82") as caught:
        rdbscope.load(io.BytesIO(data), implementation=implementation)
    assert caught.value.offset == 10


def test_listpack_whose_header_disagrees_with_its_entries(implementation):
    # A set listpack of two 1-byte strings whose header claims three entries.
    entries = b"\x81a\x02" + b"\x81b\x02"
    body = (6 + len(entries) + 1).to_bytes(4, "little") + (3).to_bytes(2, "little") + entries + b"\xff"
    data = b"REDIS0011" + b"\x14\x01s" + bytes([len(body)]) + body + b"\xff" + b"\x00" * 8
    with pytest.raises(rdbscope.RdbFormatError, match="listpack header counts 3 entries, it holds 2"):
        rdbscope.load(io.BytesIO(data), implementation=implementation)
    fixed = data.replace(b"\x03\x00\x81a", b"\x02\x00\x81a")
    row = rdbscope.load(io.BytesIO(fixed), implementation=implementation, verify_crc=False).to_arrow().to_pylist()[0]
    assert (row["type"], row["encoding"], row["n_elements"], row["max_element_bytes"]) == ("set", "listpack", 2, 1)


def test_unknown_type_and_opcode_are_unsupported(implementation):
    with pytest.raises(rdbscope.RdbUnsupportedError, match="unknown object type or opcode 30") as caught:
        rdbscope.load(io.BytesIO(b"REDIS0011" + b"\x1e\x01k\x00"), implementation=implementation)
    assert caught.value.offset == 9
    with pytest.raises(rdbscope.RdbUnsupportedError, match="unknown object type or opcode 242"):
        rdbscope.load(io.BytesIO(b"VALKEY080" + b"\xf2\x00"), implementation=implementation)
    with pytest.raises(rdbscope.RdbUnsupportedError, match="unsupported RDB version 81"):
        rdbscope.load(io.BytesIO(b"VALKEY081" + b"\xff"), implementation=implementation)


@pytest.mark.slow
@pytest.mark.skipif(len(rdbscope.rdb.implementations()) < 2, reason="the compiled scanner is not built here")
def test_both_builds_agree_on_damaged_input(tmp_path):
    """Same table or same error (class, offset, message) from the compiled scanner, streamed
    and mapped, and from the Python scanner.

    C integer types are where the builds could part ways (an overflow the Python
    build cannot have), so damaged input is where they are compared.
    """
    rng = random.Random(7)
    sources = [p.read_bytes() for p in SMALL_SAMPLES] + [p.read_bytes() for p in small_corpus_files()]
    damaged = tmp_path / "damaged.rdb"
    for _ in range(400):
        data = mutate(rng.choice(sources), rng)
        damaged.write_bytes(data)
        outcomes = []
        for name, source in (("cython", io.BytesIO(data)), ("cython", damaged), ("python", io.BytesIO(data))):
            try:
                outcomes.append(rdbscope.load(source, implementation=name).to_arrow())
            except rdbscope.RdbError as exc:
                outcomes.append(describe(exc))
        streamed, mapped, python = outcomes
        for other in (mapped, python):
            if isinstance(streamed, tuple) or isinstance(other, tuple):
                assert streamed == other
            else:
                assert streamed.equals(other)
