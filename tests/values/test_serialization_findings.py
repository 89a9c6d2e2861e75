"""The serialization findings of a real dump, end to end: values written to Redis 7.0, the dump it saves
analysed like any other, and each finding's saving held against what the server reports once the values
are rewritten as the finding says (MEMORY USAGE before and after)."""

import json
import random

import msgpack
import pytest
import zstandard
from servers import server
from value_fixtures import document, json_bytes, write_values

import rdbscope
from rdbscope.config import Config
from rdbscope.passes.patterns import PatternOptions

pytestmark = pytest.mark.server

N_KEYS = 300
#: The thresholds made small enough for a test keyspace of a few megabytes.
SMALL = Config(patterns=PatternOptions(serialization_min_saving_bytes=10_000,
                                       serialization_big_pattern_bytes=100_000))


@pytest.fixture(scope="module")
def redis_70():
    from make_sample_dumps import RunningServer

    with RunningServer(server("redis-7.0"), {"save": "", "appendonly": "no"}) as running:
        yield running


def write(running, values, prefix):
    return write_values(running.client(0), values, prefix)


def findings_of(running, tmp_path, name):
    running.client(0).execute_command("SAVE")
    dump = tmp_path / f"{name}.rdb"
    dump.write_bytes(running.dump_path.read_bytes())
    res = rdbscope.analyze(dump, SMALL)
    return res, [f for f in res.finding_list if f.code.startswith("SER")]


def assert_within_10_percent(finding, before, after):
    real = before - after
    assert real > 0
    assert abs(finding.details_dict["bytes_saved"] - real) <= 0.10 * real, (finding.details_dict, real)


def test_large_uncompressed_json_is_ser001_and_saves_what_compressing_saves(redis_70, tmp_path):
    rng = random.Random(1)
    values = [json_bytes(document(rng.randrange(45, 120), seed=i)) for i in range(N_KEYS)]
    before = write(redis_70, values, "report")
    res, findings = findings_of(redis_70, tmp_path, "large-json")
    row = res.tables["patterns"].to_pylist()[0]
    assert (row["pattern"], row["value_format"], row["values_sampled"]) == ("report:{id}", "json", 32)
    assert [f.code for f in findings] == ["SER001"]
    assert "compressing them would save about" in findings[0].message
    compressor = zstandard.ZstdCompressor(level=3)
    after = write(redis_70, [compressor.compress(v) for v in values], "report")
    assert_within_10_percent(findings[0], before, after)
    # written compressed, the values are zstd frames and nothing is left to say
    res, findings = findings_of(redis_70, tmp_path, "compressed")
    assert res.tables["patterns"].to_pylist()[0]["value_format"] == "zstd"
    assert findings == []


def test_json_in_a_big_pattern_is_ser003_and_saves_what_messagepack_saves(redis_70, tmp_path):
    rng = random.Random(2)
    values = [json_bytes(document(rng.randrange(1, 8), seed=i)) for i in range(N_KEYS)]
    before = write(redis_70, values, "event")
    _res, findings = findings_of(redis_70, tmp_path, "small-json")
    assert [f.code for f in findings] == ["SER003"]
    after = write(redis_70, [msgpack.packb(json.loads(v)) for v in values], "event")
    assert_within_10_percent(findings[0], before, after)


def test_large_json_in_hash_fields_is_ser002(redis_70, tmp_path):
    rng = random.Random(3)
    hashes = [{"profile": json_bytes(document(rng.randrange(16, 40), seed=i)),
               "name": f"user {i}".encode()} for i in range(N_KEYS)]
    before = write(redis_70, hashes, "account")
    res, findings = findings_of(redis_70, tmp_path, "hash-json")
    row = res.tables["patterns"].to_pylist()[0]
    assert row["element_format"] == "json"
    assert "SER002" in [f.code for f in findings]
    ser002 = next(f for f in findings if f.code == "SER002")
    compressor = zstandard.ZstdCompressor(level=3)
    after = write(redis_70, [{"profile": compressor.compress(h["profile"]), "name": h["name"]} for h in hashes],
                  "account")
    assert_within_10_percent(ser002, before, after)


def test_no_values_read_no_serialization_finding(redis_70, tmp_path):
    rng = random.Random(1)
    write(redis_70, [json_bytes(document(rng.randrange(45, 120), seed=i)) for i in range(N_KEYS)], "report")
    redis_70.client(0).execute_command("SAVE")
    dump = tmp_path / "no-values.rdb"
    dump.write_bytes(redis_70.dump_path.read_bytes())
    res = rdbscope.analyze(dump, SMALL, values=False)
    assert not [f for f in res.finding_list if f.code.startswith("SER")]
    assert res.tables["patterns"].to_pylist()[0]["value_format"] is None
