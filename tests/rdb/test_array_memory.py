"""est_memory_bytes of Redis 8.8 arrays against MEMORY USAGE of the server that wrote them, after it loaded them.

The dump and its oracle are written by array_shapes/make_array_dump.py with the unstable build of the RDB 14
sample dumps: arrays of every shape the model tells apart (sparse slices of 4, 8 and 10 slots, dense windows
that grow or end at the slice's end, full slices, flat and block directories, strings inline or apart).
"""

import json
from pathlib import Path

import pytest

import rdbscope

SHAPES = Path(__file__).parent / "array_shapes"
DUMP = SHAPES / "arrays.rdb"
ORACLE = {row["key"].encode(): row for row in json.loads((SHAPES / "arrays.json").read_text())["keys"]}


def test_the_dump_holds_every_shape():
    """Slices of 1-4, 5-8 and 9-10 elements are sparse of 4, 8 and 10 slots; the 11th makes them dense."""
    assert len(ORACLE) == 30
    by_size = [ORACLE[f"array:slice:{n}".encode()]["memory_usage_loaded"] - len(str(n)) for n in range(1, 13)]
    assert by_size == [199] * 4 + [231] * 4 + [279] * 2 + [5239] * 2
    assert ORACLE[b"array:dense:full-slices"]["count"] == 2 * 4096 + 100


def test_every_array_is_exact(implementation):
    rows = rdbscope.load(DUMP, implementation=implementation).table.to_pylist()
    assert {r["key"] for r in rows} == set(ORACLE)
    for row in rows:
        truth = ORACLE[row["key"]]
        assert (row["type"], row["n_elements"], row["est_memory_fallback"]) == ("array", truth["count"], False)
        assert row["est_memory_bytes"] == truth["memory_usage_loaded"], row["key"]


@pytest.mark.parametrize("key", ["array:blocks:nine", "array:strings:long-headers", "array:dense:full-slices"])
def test_bigkeys_ranks_arrays_by_what_they_hold_in_memory(key):
    from typer.testing import CliRunner

    from rdbscope.cli import app

    result = CliRunner().invoke(app, ["bigkeys", str(DUMP), "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 0
    ranked = json.loads(result.stdout)
    by_key = {r["key"]: r for r in ranked}
    assert by_key[key]["memory_bytes"] == ORACLE[key.encode()]["memory_usage_loaded"]
    assert [r["key"] for r in ranked[:3]] == ["array:blocks:nine", "array:strings:long-headers",
                                              "array:dense:full-slices"]
