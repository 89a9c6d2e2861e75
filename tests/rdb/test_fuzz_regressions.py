"""Inputs the fuzzing campaign (fuzz/) found failing, minimised: each must now fail with an
RdbError, or load if it is in fact valid, within 1 s and 256 MB of address space, on both builds;
one that loads must also get through every pass and the views that print its expiry times and ctime.

``hostile-*.rdb`` are valid dumps of a real Redis 7.0 (one key with a TTL, one ``never``) with hostile
values (issue 29): ``EXPIREAT never 253402300799`` and ``PEXPIREAT`` of 2**62 and 2**63-1 as the server
wrote them; an expiry before the year 1 or at -2**63, a ctime of 2**64, 2**63-1 or -2**63, and a
redis-ver of 2**64.1.1 edited into its dump (``hostile-no-ctime-*``: both an expiry at an end of int64
and a ctime of 2**64), the checksum recomputed (tests/hostile_dumps.py).

Each runs in a child process capped at 256 MB of address space beyond what the interpreter maps
after its imports, from memory (as a stream) and from a file (which the compiled build maps).
"""

import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))

from fuzz.bounded import MEMORY_LIMIT_BYTES, TIME_LIMIT_S, run_bounded

REGRESSIONS = pathlib.Path(__file__).resolve().parent / "fuzz_regressions"
INPUTS = sorted(REGRESSIONS.glob("*.rdb"))

#: Inputs whose defect is known and not fixed yet: file name -> what is wrong.
KNOWN_FAILING = {}


def cases():
    for path in INPUTS:
        reason = KNOWN_FAILING.get(path.name)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        yield pytest.param(path, id=path.stem, marks=marks)


def test_the_folder_holds_inputs():
    assert len(INPUTS) >= 1


@pytest.mark.parametrize("path", list(cases()))
def test_fuzz_regression_fails_cleanly_within_bounds(path, implementation):
    outcome = run_bounded(path.read_bytes(), implementation, str(path))
    assert not outcome.failed, (
        f"{path.name} on the {implementation} build: {outcome.kind}: {outcome.detail} [{outcome.where}] "
        f"(bounds: {TIME_LIMIT_S} s, {MEMORY_LIMIT_BYTES >> 20} MB)")
    assert outcome.seconds <= TIME_LIMIT_S
    assert outcome.rss_growth_bytes <= MEMORY_LIMIT_BYTES


def test_the_bounds_catch_what_they_are_for(implementation, tmp_path):
    """The harness itself: a dump that loads is fine, and garbage is an RdbError, not a failure."""
    sample = ROOT / "sample_dumps" / "redis-7.0-lfu.rdb"
    loaded = run_bounded(sample.read_bytes(), implementation, str(sample), time_limit=30)
    assert loaded.kind == "ok", loaded
    assert loaded.rss_growth_bytes > 0
    garbage = tmp_path / "garbage.rdb"
    garbage.write_bytes(b"REDIS0011\xfe\x00\xfb\x01\x00\x00\x03key\xc3")
    refused = run_bounded(garbage.read_bytes(), implementation, str(garbage))
    assert refused.kind == "rdb-error" and "offset" in refused.detail, refused
