"""Dumps written by real servers (sample_dumps/) against what the live server said."""

import sys

import pytest
from conftest import SAMPLE_DUMPS, sample_dumps
from oracle import compare, read_oracle

import rdbscope

sys.path.insert(0, str(SAMPLE_DUMPS))
from make_sample_dumps import BUILD_RELEASE  # noqa: E402

DUMPS = sample_dumps()


def test_sample_dumps_are_present():
    servers = {p.name.rsplit("-", 1)[0] for p in DUMPS}
    assert {"redis-7.0", "redis-8.2", "valkey-8.1"} <= servers


@pytest.mark.parametrize("path", DUMPS, ids=[p.stem for p in DUMPS])
def test_every_key_matches_the_live_server(path, implementation):
    oracle = read_oracle(str(path.with_suffix(".json")))
    # an unstable build whose RDB version does not tell its release is named, as a user would
    keys = rdbscope.load(path, implementation=implementation, server_version=BUILD_RELEASE.get(oracle["server"]))
    result = compare(keys, oracle, check_encoding=True)
    assert not result.missing and not result.extra, result.summary()
    assert not result.diffs, result.summary()
    assert keys.num_rows == len(oracle["keys"])
    assert keys.info.checksum_verified


@pytest.mark.parametrize("path", DUMPS, ids=[p.stem for p in DUMPS])
def test_dump_metadata(path):
    oracle = read_oracle(str(path.with_suffix(".json")))
    info = rdbscope.load(path).info
    assert info.rdb_version == int(oracle["rdb_version"])
    assert info.magic == ("VALKEY" if int(oracle["rdb_version"]) >= 80 else "REDIS")  # Valkey 9 writes VALKEY
    server, version = oracle["server_version"].split()[:2]
    assert info.writer == f"{server} {version}"
    assert int(info.aux["used-mem"]) > 0
    resized = sum(keys for keys, _expires in info.resizedb.values())
    assert resized == len(oracle["keys"])
    if oracle.get("functions"):
        ours = {lib.name: lib.functions for lib in info.functions}
        theirs = {lib["library_name"]: sorted(f["name"] for f in lib["functions"]) for lib in oracle["functions"]}
        assert ours == theirs


def test_lfu_and_lru_columns_are_filled_only_by_their_policy():
    lfu = rdbscope.load(next(p for p in DUMPS if p.stem == "redis-7.0-lfu")).to_arrow()
    lru = rdbscope.load(next(p for p in DUMPS if p.stem == "redis-7.0-lru")).to_arrow()
    assert lfu["lfu_freq"].null_count == 0 and lfu["idle_s"].null_count == lfu.num_rows
    assert lru["idle_s"].null_count == 0 and lru["lfu_freq"].null_count == lru.num_rows


def test_module_keys_name_their_module():
    keys = rdbscope.load(next(p for p in DUMPS if p.stem == "redis-8.2-default")).to_arrow()
    rows = [r for r in keys.to_pylist() if r["type"] == "module"]
    assert {r["module_name"] for r in rows} >= {"graphdata"}
    assert all(r["n_elements"] is None and r["max_element_bytes"] is None for r in rows)
    assert all(r["module_name"] is None for r in keys.to_pylist() if r["type"] != "module")


def test_the_newest_unstable_build_writes_its_new_types():
    """RDB 14: arrays (type 28), a stream with idempotent-producer ids and one with NACKed entries."""
    path = SAMPLE_DUMPS / "redis-unstable-rdb14-default.rdb"
    oracle = {r.get("key_text"): r for r in read_oracle(str(path.with_suffix(".json")))["keys"]}
    rows = {r["key"].decode(): r for r in rdbscope.load(path).table.to_pylist() if r["type"] in ("array", "stream")}
    arrays = [key for key, r in rows.items() if r["type"] == "array"]
    assert len(arrays) >= 5 and all(rows[key]["n_elements"] == oracle[key]["count"] for key in arrays)
    assert oracle["events:payments"]["stream"]["pids-tracked"] == 4
    assert oracle["events:payments"]["stream"]["iids-tracked"] == 30
    assert [g["nacked-count"] for g in oracle["events:orders"]["stream"]["groups"]] == [2, 0]
