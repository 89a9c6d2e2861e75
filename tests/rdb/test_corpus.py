"""The public dumps of ../shared/rdb-corpus (RDB 1 to 14, Valkey) against their server oracles."""

import pytest
from conftest import CORPUS, corpus_available, needs_corpus
from oracle import compare, read_oracle

import rdbscope

pytestmark = needs_corpus()

#: Files that must fail, the error they must raise, and why.
EXPECTED_ERRORS = {
    "redis__redis/corrupt_ziplist.rdb": (rdbscope.RdbFormatError, "a deliberately corrupt ziplist (Redis test asset)"),
    "redis__librdb/invalid_chksum_v8.rdb": (rdbscope.RdbFormatError, "a deliberately wrong CRC64"),
    "leonchen83__redis-replicator/module.rdb": (
        rdbscope.RdbUnsupportedError, "module values in the 4.0 RC format (type 6) carry no opcodes to skip by"),
    "redis__librdb/redis_ent_opcode_ram_lru.rdb": (
        rdbscope.RdbUnsupportedError, "Redis Enterprise type byte 107"),
    "redis__librdb/future_v19.rdb": (rdbscope.RdbUnsupportedError, "future version REDIS0099"),
    "hanxizh9910__valkey/encodings-rdb75-unknown-types.rdb": (
        rdbscope.RdbUnsupportedError, "foreign version REDIS0075 with an unknown type"),
    "hanxizh9910__valkey/encodings-rdb987-unknown-types.rdb": (
        rdbscope.RdbUnsupportedError, "future version VALKEY987 with an unknown type"),
    "hanxizh9910__valkey/encodings-rdb987.rdb": (
        rdbscope.RdbUnsupportedError, "future version VALKEY987 (read with relaxed_version=True)"),
}

#: Files no server loaded that rdbscope reads anyway (the oracle has no content for them).
READ_WITHOUT_ORACLE = {
    "modules": "module values (type 7) are skipped by their opcodes",
    "duplicates": "merged dumps with duplicate keys: a server aborts, a scanner lists both",
    "zipmap": "HDT3213 zipmap_big_len.rdb: the server's zipmap integrity check refuses it",
}


def manifest():
    if not corpus_available():
        return []
    lines = (CORPUS / "public" / "MANIFEST.tsv").read_text().splitlines()[1:]
    return [line.split("\t")[0] for line in lines]


FILES = manifest()


def oracle_for(name):
    return read_oracle(str(CORPUS / "oracle" / f"{name}.json"))


@pytest.mark.slow
@pytest.mark.parametrize("name", FILES)
def test_corpus_file(name, implementation):
    path = CORPUS / "public" / name
    oracle = oracle_for(name)
    if name in EXPECTED_ERRORS:
        error, _why = EXPECTED_ERRORS[name]
        with pytest.raises(error) as caught:
            rdbscope.load(path, implementation=implementation)
        assert caught.value.offset is not None
        assert str(path) in str(caught.value)
        return
    keys = rdbscope.load(path, implementation=implementation)
    if not oracle["loaded"]:
        rows = keys.to_arrow().to_pylist()
        assert all((r["module_name"] is not None) == (r["type"] == "module") for r in rows)
        return
    writer = keys.info.writer
    # Unstable builds all call themselves 255.255.255: only a released version names one server.
    same_server = (writer is not None and "255.255.255" not in writer
                   and oracle["server_version"].startswith(writer + " "))
    result = compare(keys, oracle, check_encoding=same_server)
    assert not result.missing, result.summary()
    assert not result.diffs, result.summary()
    extra = result.extra
    dropped = oracle.get("expired_keys_dropped_at_load") or 0
    skipped_empty = (oracle.get("load_stats_from_log") or {}).get("empty_keys_skipped") or 0
    if name == "Snapchat__KeyDB/corrupt_empty_keys.rdb":
        skipped_empty = 8  # KeyDB's copy of the Redis asset: the server skipped its 8 empty keys
    assert len(extra) == dropped + skipped_empty, result.summary()
    rows = {(r["db"], r["key"]): r for r in keys.to_arrow().to_pylist()}
    for key in extra:
        row = rows[key]
        assert row["expire_at"] is not None or row["n_elements"] == 0, (key, row)


def test_every_corpus_file_is_accounted_for():
    not_loaded = [n for n in FILES if not oracle_for(n)["loaded"] and n not in EXPECTED_ERRORS]
    modules = [n for n in not_loaded if "module" in (oracle_for(n).get("load_error") or "")
               or "JSON" in n or "TimeSeries" in n or "redis_json" in n]
    duplicates = [n for n in not_loaded if "Duplicated key" in (oracle_for(n).get("load_error") or "")]
    rest = sorted(set(not_loaded) - set(modules) - set(duplicates))
    assert rest == ["HDT3213__rdb/zipmap_big_len.rdb"], rest
    assert set(READ_WITHOUT_ORACLE) == {"modules", "duplicates", "zipmap"}
    assert len(FILES) == 195


def test_future_valkey_file_reads_in_relaxed_mode():
    name = "hanxizh9910__valkey/encodings-rdb987.rdb"
    keys = rdbscope.load(CORPUS / "public" / name, relaxed_version=True)
    result = compare(keys, oracle_for(name), check_encoding=False)
    assert not result.missing and not result.extra and not result.diffs, result.summary()


def test_bad_checksum_file_reads_with_the_check_off():
    name = "redis__librdb/invalid_chksum_v8.rdb"
    keys = rdbscope.load(CORPUS / "public" / name, verify_crc=False)
    assert keys.num_rows > 0 and not keys.info.checksum_verified


def test_module_names_decode():
    keys = rdbscope.load(CORPUS / "public" / "RedisTimeSeries__RedisTimeSeries/1.8.13.rdb")
    assert set(keys.to_arrow()["module_name"].to_pylist()) == {"TSDB-TYPE"}
    keys = rdbscope.load(CORPUS / "public" / "RedisJSON__RedisJSON/backward.rdb")
    assert set(keys.to_arrow()["module_name"].to_pylist()) == {"ReJSON-RL"}


def test_repeated_aux_fields_are_all_kept():
    keys = rdbscope.load(CORPUS / "public" / "dragonflydb__dragonfly/redis6_small.rdb")
    scripts = [value for name, value in keys.info.aux_fields if name == "lua"]
    assert len(scripts) == 2 and scripts[0] != scripts[1]
    assert keys.info.aux["lua"] == scripts[-1]
