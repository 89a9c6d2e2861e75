"""Lengths in a dump are claims: a few bytes that claim gigabytes fail at once, in both builds.

Each crafted dump below is the smallest RDB (src/rdb.h) that puts an LZF string
claiming 3 GB of output on one of the scanner's decompression paths. They are
loaded in a child process whose address space is capped, where the time, the
Python allocations (tracemalloc) and the resident peak of each failure are
measured.
"""

import io
import json
import subprocess
import sys

import pytest

import rdbscope
from conftest import ROOT

CLAIM = 3_000_000_000  # bytes of output claimed; under the 4 GiB that a blob may have
END = b"\xff" + b"\x00" * 8  # EOF opcode, then a zero checksum (not verified)


def length(n):
    """An RDB length (src/rdb.c rdbSaveLen)."""
    if n < 64:
        return bytes([n])
    if n < 16384:
        return bytes([0x40 | n >> 8, n & 0xFF])
    if n < 2**32:
        return b"\x80" + n.to_bytes(4, "big")
    return b"\x81" + n.to_bytes(8, "big")


def lzf_string(compressed, claimed):
    """An LZF-encoded RDB string: 0xC3, compressed length, uncompressed length, data."""
    return b"\xc3" + length(len(compressed)) + length(claimed) + compressed


def literal(data):
    """LZF literal runs (at most 32 bytes each) that expand to ``data``."""
    out = b""
    for at in range(0, len(data), 32):
        chunk = data[at:at + 32]
        out += bytes([len(chunk) - 1]) + chunk
    return out


def claim(header=b"head"):
    """LZF data that opens as the object's header consistent with CLAIM, then a back reference."""
    return lzf_string(literal(header) + b"\xe0\xff\x00", CLAIM)


LISTPACK_HEAD = CLAIM.to_bytes(4, "little") + b"\xff\xff"  # total bytes, count unknown
ZIPLIST_HEAD = CLAIM.to_bytes(4, "little") + (CLAIM - 1).to_bytes(4, "little") + b"\xff\xff"
INTSET_HEAD = (2).to_bytes(4, "little") + ((CLAIM - 8) // 2).to_bytes(4, "little")
STREAM_NODE_KEY = length(16) + bytes(16)

#: Every place the scanner expands or walks LZF data, as (name, dump).
CRAFTED = {
    "AUX field": b"REDIS0012" + b"\xfa" + claim() + length(1) + b"v" + END,
    "AUX value": b"REDIS0012" + b"\xfa" + length(3) + b"key" + claim() + END,
    "FUNCTION2 payload": b"REDIS0012" + b"\xf5" + claim() + END,
    "FUNCTION pre-GA name": b"REDIS0009" + b"\xf6" + claim() + END,
    "key name": b"REDIS0012" + b"\x00" + claim() + length(1) + b"v" + END,
    "string value": b"REDIS0012" + b"\x00" + length(1) + b"k" + claim() + END,
    "short string value": b"REDIS0012" + b"\x00" + length(1) + b"k" + lzf_string(b"\x001", 19) + END,
    "intset blob": b"REDIS0012" + b"\x0b" + length(1) + b"k" + claim(INTSET_HEAD) + END,
    "set listpack blob": b"REDIS0012" + b"\x14" + length(1) + b"k" + claim(LISTPACK_HEAD) + END,
    "hash listpack blob": b"REDIS0012" + b"\x10" + length(1) + b"k" + claim(LISTPACK_HEAD) + END,
    "zset ziplist blob": b"REDIS0012" + b"\x0c" + length(1) + b"k" + claim(ZIPLIST_HEAD) + END,
    "list ziplist blob": b"REDIS0012" + b"\x0a" + length(1) + b"k" + claim(ZIPLIST_HEAD) + END,
    "zipmap blob": b"REDIS0012" + b"\x09" + length(1) + b"k" + claim(b"\x01") + END,
    "listpackex blob": b"REDIS0012" + b"\x19" + length(1) + b"k" + bytes(8) + claim(LISTPACK_HEAD) + END,
    "quicklist ziplist node": b"REDIS0012" + b"\x0e" + length(1) + b"k" + length(1) + claim(ZIPLIST_HEAD) + END,
    "quicklist listpack node": (b"REDIS0012" + b"\x12" + length(1) + b"k" + length(1) + length(2)
                                + claim(LISTPACK_HEAD) + END),
    "stream node": (b"REDIS0012" + b"\x15" + length(1) + b"k" + length(1) + STREAM_NODE_KEY
                    + claim(LISTPACK_HEAD) + END),
    "module value string": (b"REDIS0012" + b"\x07" + length(1) + b"k" + length(1 << 10) + length(5)
                            + claim() + END),
    "SLOT_IMPORT name": b"VALKEY080" + b"\xf3" + claim() + END,
}

#: What a child process reports for each dump: its rows or how it failed, how long the fastest of a few
#: tries took, its peak of Python allocations, and how much its resident peak grew.
PROBE = r"""
import io, json, resource, sys, time, tracemalloc
import rdbscope

implementation, cap_bytes = sys.argv[1], int(sys.argv[2])
cases = json.loads(sys.stdin.read())

def outcome(source):
    try:
        return rdbscope.load(source, implementation=implementation, verify_crc=False).num_rows
    except rdbscope.RdbError as exc:
        return [type(exc).__name__, exc.offset, exc.message, exc.context]
    except BaseException as exc:  # what the campaign found: MemoryError and the like
        return [type(exc).__name__, None, str(exc), None]

def peak_rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

for data in cases.values():  # warm up: imports, the memory model, first-call costs
    outcome(io.BytesIO(bytes.fromhex(data)))
with open("/proc/self/status") as status:
    vm = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (vm + cap_bytes, resource.RLIM_INFINITY))
report = {}
for name, data in cases.items():
    data = bytes.fromhex(data)
    rss_before = peak_rss()
    tracemalloc.start()
    first = outcome(io.BytesIO(data))
    python_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        outcome(io.BytesIO(data))
        best = min(best, time.perf_counter() - started)
    report[name] = {"outcome": first, "seconds": best, "python_peak": python_peak,
                    "rss_growth": peak_rss() - rss_before}
print(json.dumps(report))
"""


def probe(cases, implementation, cap_bytes=1 << 30):
    """Run PROBE over ``cases`` ({name: dump}) in a child with ``cap_bytes`` more address space."""
    done = subprocess.run([sys.executable, "-c", PROBE, implementation, str(cap_bytes)], check=False, cwd=ROOT,
                          input=json.dumps({name: data.hex() for name, data in cases.items()}),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def crafted_outcomes():
    return {name: probe(CRAFTED, name) for name in rdbscope.rdb.implementations()}


@pytest.mark.parametrize("case", sorted(CRAFTED))
def test_a_claim_of_gigabytes_fails_fast_and_small(case, implementation, crafted_outcomes):
    report = crafted_outcomes[implementation][case]
    kind, offset, _message, context = report["outcome"]
    data = CRAFTED[case]
    assert kind == "RdbFormatError", report
    assert 9 < offset < len(data), report
    assert context, report
    # The old scanner allocated the claim (3 GB) and took seconds to fail.
    assert report["python_peak"] < 50 << 20, report
    assert report["rss_growth"] < 50 << 20, report
    assert report["seconds"] < 0.010, report


def test_the_claims_name_what_was_read(crafted_outcomes):
    for outcomes in crafted_outcomes.values():
        assert outcomes["FUNCTION2 payload"]["outcome"][3] == "FUNCTION2"
        assert outcomes["AUX field"]["outcome"][3] == "AUX field"
        assert outcomes["SLOT_IMPORT name"]["outcome"][3] == "SLOT_IMPORT"
        assert outcomes["stream node"]["outcome"][3] == "stream (db 0, key 'k')"
        assert "cannot expand to the announced 3000000000 bytes" in outcomes["intset blob"]["outcome"][2]


@pytest.mark.skipif(len(rdbscope.rdb.implementations()) < 2, reason="the compiled scanner is not built here")
def test_both_builds_fail_the_same(crafted_outcomes):
    errors = {name: {case: report["outcome"] for case, report in outcomes.items()}
              for name, outcomes in crafted_outcomes.items()}
    assert errors["cython"] == errors["python"]


def max_ratio_lzf(tokens):
    """'a' then ``tokens`` back references of 264 bytes each (3 bytes apiece): LZF at its densest."""
    return b"\x00a" + b"\xe0\xff\x00" * tokens, 1 + 264 * tokens


def test_data_at_the_densest_lzf_ratio_still_reads(implementation, tmp_path):
    compressed, expanded = max_ratio_lzf(200)
    data = b"REDIS0009" + b"\x00" + length(1) + b"k" + lzf_string(compressed, expanded) + END
    for source in (io.BytesIO(data), tmp_path / "dense.rdb"):
        if not isinstance(source, io.BytesIO):
            source.write_bytes(data)
        row = rdbscope.load(source, implementation=implementation).to_arrow().to_pylist()[0]
        assert (row["key"], row["n_elements"], row["encoding"]) == (b"k", expanded, "raw")
    # One byte more than LZF can give is refused without reading the data.
    data = b"REDIS0009" + b"\x00" + lzf_string(compressed, 88 * len(compressed) + 1) + length(1) + b"v" + END
    with pytest.raises(rdbscope.RdbFormatError, match=f"LZF data of {len(compressed)} bytes cannot expand"):
        rdbscope.load(io.BytesIO(data), implementation=implementation)


def listpack(entries):
    """A listpack of one-byte-length strings (src/listpack.c)."""
    body = b"".join(bytes([0x80 | len(e)]) + e + bytes([1 + len(e)]) for e in entries)
    return (6 + len(body) + 1).to_bytes(4, "little") + len(entries).to_bytes(2, "little") + body + b"\xff"


def test_a_blob_header_that_disagrees_with_the_claim_fails_before_expanding(implementation):
    # 1 MB of compressed data may expand to 80 MB, but the listpack's own header says how big it is.
    blob = listpack([b"m%d" % i for i in range(100)])
    compressed = literal(blob) + literal(bytes(1 << 20))
    claimed = 80 << 20
    data = b"REDIS0011" + b"\x14" + length(1) + b"s" + lzf_string(compressed, claimed) + END
    report = probe({"listpack": data}, implementation)["listpack"]
    kind, offset, message, _context = report["outcome"]
    assert (kind, message) == ("RdbFormatError", f"listpack header says {len(blob)} bytes, the string holds {claimed}")
    assert offset == data.index(compressed), report  # the start of the LZF data: nothing was expanded
    assert report["python_peak"] < 8 << 20, report


def test_an_intset_header_that_disagrees_fails_before_expanding(implementation):
    head = (4).to_bytes(4, "little") + (3).to_bytes(4, "little")  # 3 integers of 4 bytes: 20 bytes
    compressed = literal(head + bytes(12))
    data = b"REDIS0009" + b"\x0b" + length(1) + b"s" + lzf_string(compressed, 44) + END
    with pytest.raises(rdbscope.RdbFormatError, match="intset header counts 3 integers of 4 bytes, "
                                                      "the string holds 44 bytes") as caught:
        rdbscope.load(io.BytesIO(data), implementation=implementation)
    assert caught.value.offset == data.index(compressed)


def test_a_resizedb_hint_does_not_presize_a_stream_beyond_its_bytes(implementation):
    """A RESIZEDB of 2**40 keys in a streamed dump (no file size to check it against) of one key."""
    data = (b"REDIS0009" + b"\xfe\x00" + b"\xfb" + length(2**40) + length(0)
            + b"\x00" + length(1) + b"k" + length(1) + b"v" + END)
    # 300 MB more address space: a batch presized for 2**25 rows takes over 2 GB of it.
    report = probe({"resizedb": data}, implementation, cap_bytes=300 << 20)["resizedb"]
    assert report["outcome"] == 1, report
