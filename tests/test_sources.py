"""Several dumps as one keyspace: what an input names, the joined table, and its errors (no server needed)."""

import shutil

import numpy as np
import pyarrow as pa
import pytest
from conftest import SAMPLE_DUMPS

import rdbscope
from rdbscope.errors import InputError
from rdbscope.rdb.cluster import N_SLOTS
from rdbscope.sources import input_paths

REDIS = SAMPLE_DUMPS / "redis-7.0-default.rdb"
VALKEY = SAMPLE_DUMPS / "valkey-8.1-default.rdb"


def test_two_dumps_join_with_a_source_column_and_a_summary_each():
    one, other = rdbscope.load(REDIS), rdbscope.load(VALKEY)
    keys = rdbscope.load([REDIS, VALKEY], combine=True)  # two servers' dumps: not one cluster
    assert keys.num_rows == one.num_rows + other.num_rows and keys.n_sources == 2
    source = keys.to_arrow()["source"]
    assert source.type == pa.dictionary(pa.int16(), pa.string())
    assert source.cast(pa.string()).to_pylist() == [str(REDIS)] * one.num_rows + [str(VALKEY)] * other.num_rows
    for summary, alone in zip(keys.sources, (one, other), strict=True):
        table = alone.to_arrow()
        assert summary.info.writer == alone.info.writer and summary.n_keys == alone.num_rows
        assert summary.n_with_ttl == table.num_rows - table["expire_at"].null_count
        assert summary.rdb_bytes == sum(table["rdb_bytes"].to_pylist())
        assert summary.slot_keys.shape == (N_SLOTS,) and summary.slot_keys.sum() == alone.num_rows
        assert np.isclose(summary.slot_memory.sum(), summary.est_memory_bytes)


def test_one_dump_keeps_the_scanners_table():
    keys = rdbscope.load(REDIS)
    assert "source" not in keys.to_arrow().column_names and keys.n_sources == 1
    assert keys.sources[0].n_keys == keys.num_rows  # computed when asked for


def test_a_directory_and_a_glob_name_their_dumps_in_order(tmp_path):
    for name in ("b.rdb", "a.rdb", "notes.txt"):
        shutil.copy(REDIS, tmp_path / name)
    expected = [str(tmp_path / "a.rdb"), str(tmp_path / "b.rdb")]
    assert input_paths(tmp_path) == expected
    assert input_paths(str(tmp_path / "*.rdb")) == expected
    assert rdbscope.load(tmp_path, combine=True).n_sources == 2


@pytest.mark.parametrize("make, says", [
    (lambda d: d / "gone.rdb", "gone.rdb: no such file"),
    (lambda d: d / "x-*.rdb", "x-*.rdb: no file matches"),
    (lambda d: (d / "empty").mkdir() or d / "empty", "a directory without dumps"),
    (lambda d: [], "no dumps given"),
])
def test_what_names_no_dump_is_an_input_error(tmp_path, make, says):
    with pytest.raises(InputError, match=says.replace("*", r"\*")):
        rdbscope.load(make(tmp_path))


def test_a_file_that_is_not_a_dump_among_several_is_named(tmp_path):
    bad = tmp_path / "bad.rdb"
    bad.write_bytes(b"not a dump at all")
    with pytest.raises(rdbscope.RdbFormatError, match=rf"^{bad}: offset 0: not an RDB file"):
        rdbscope.load([REDIS, bad])


def test_analyze_keeps_the_sources():
    res = rdbscope.analyze(rdbscope.load([REDIS, VALKEY], combine=True))
    assert res.keys.n_sources == 2 and "source" in res.keys.to_arrow().column_names
    assert res.keys.sources[1].path == str(VALKEY)
