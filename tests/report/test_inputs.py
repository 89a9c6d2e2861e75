"""A keys Parquet file reads back as the KeyTable of its dump; filters match the scanner's."""

import pytest
from conftest import SAMPLE_DUMPS

import rdbscope
from rdbscope.errors import InputError
from rdbscope.rdb.keyglob import glob_to_regex
from rdbscope.report.parquet import write_keys_parquet

DUMP = SAMPLE_DUMPS / "redis-7.0-default.rdb"


@pytest.fixture(scope="module")
def keys_parquet(tmp_path_factory):
    path = tmp_path_factory.mktemp("keys") / "keys.parquet"
    write_keys_parquet(rdbscope.scan(DUMP), path)
    return path


def test_load_reads_a_keys_parquet_file_whatever_its_name(keys_parquet, tmp_path):
    renamed = tmp_path / "keys.bin"
    renamed.write_bytes(keys_parquet.read_bytes())
    from_dump = rdbscope.load(DUMP)
    for path in (keys_parquet, str(renamed)):
        keys = rdbscope.load(path)
        assert keys.to_arrow().equals(from_dump.to_arrow())
        assert keys.info.path == str(path)
        assert keys.info.checksum_verified


def test_a_damaged_parquet_name_is_bad_input_not_a_dump_error(tmp_path):
    path = tmp_path / "keys.parquet"
    path.write_bytes(b"REDIS0011 not parquet at all")
    with pytest.raises(InputError, match="keys.parquet: not a readable Parquet file"):
        rdbscope.load(path)


def test_dump_info_round_trips_through_json():
    info = rdbscope.load(SAMPLE_DUMPS / "redis-8.2-default.rdb").info
    back = rdbscope.DumpInfo.from_json(info.to_json(), path="x.parquet")
    assert back.path == "x.parquet"
    for name in ("magic", "rdb_version", "writer", "compression", "aux", "resizedb", "functions", "module_aux",
                 "checksum_verified", "truncated_at", "memory_model"):
        assert getattr(back, name) == getattr(info, name), name
    assert info.functions and info.module_aux  # the round trip had something to carry


def test_parquet_reads_back_as_the_dump(keys_parquet):
    from_dump = rdbscope.load(DUMP)
    from_parquet = rdbscope.load(keys_parquet)
    assert from_parquet.to_arrow().equals(from_dump.to_arrow())
    assert from_parquet.info.aux == from_dump.info.aux
    assert from_parquet.info.rdb_version == from_dump.info.rdb_version == 10
    assert from_parquet.info.writer == "redis 7.0.15"
    assert from_parquet.info.memory_model == from_dump.info.memory_model
    assert [f.name for f in from_parquet.info.functions] == [f.name for f in from_dump.info.functions]


@pytest.mark.parametrize("filters", [
    {"db": [1]},
    {"types": ["hash", "zset"]},
    {"key_glob": "user:*"},
    {"key_glob": "user:10??:*"},
    {"key_glob": "cache:*", "db": [0, 5], "types": ["string"]},
])
def test_filters_on_parquet_match_the_scanner(keys_parquet, filters):
    scanned = rdbscope.load(DUMP, **filters).to_arrow()
    read = rdbscope.load(keys_parquet, **filters).to_arrow()
    assert read.num_rows == scanned.num_rows > 0
    assert read["key"].to_pylist() == scanned["key"].to_pylist()


def test_load_reports_bytes_as_it_reads():
    calls = []
    keys = rdbscope.load(DUMP, on_progress=lambda done, total: calls.append((done, total)), batch_rows=500)
    assert keys.num_rows == 2073 and len(calls) >= 2073 // 500
    assert [done for done, _total in calls] == sorted(done for done, _total in calls)
    assert calls[-1] == (DUMP.stat().st_size, DUMP.stat().st_size)


def test_a_foreign_parquet_file_is_bad_input(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "other.parquet"
    pq.write_table(pa.table({"x": [1]}), path)
    with pytest.raises(InputError, match="not a keys table"):
        rdbscope.load(path)


@pytest.mark.parametrize("glob, key, matches", [
    ("user:*", b"user:1", True),
    ("user:*", b"users:1", False),
    ("h?llo", b"hallo", True),
    ("h[ae]llo", b"hillo", False),
    ("h[^e]llo", b"hallo", True),
    ("h[^e]llo", b"hello", False),
    ("h[a-c]llo", b"hbllo", True),
    (r"a\*", b"a*", True),
    (r"a\*", b"ab", False),
    ("*", b"line\nbreak", True),
    ("bin:*", b"bin:\xff\xfe", True),
])
def test_glob_translation(glob, key, matches):
    import pyarrow as pa
    import pyarrow.compute as pc

    found = pc.match_substring_regex(pa.array([key], pa.binary()), glob_to_regex(glob))
    assert found.to_pylist() == [matches]
