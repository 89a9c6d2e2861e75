"""The rules on dumps written by real servers: what each finds, and savings against MEMORY USAGE.

sample_dumps/make_sample_dumps.py writes lint-worthy keys on purpose (spaces,
tabs, capitals, Latin-1 and binary bytes, an emoji, paths, hash tags, and
collections one element over each listpack limit). Its oracle JSON holds what
the server reported for every key after reloading the dump.
"""

import json

import pytest
from conftest import CORPUS, SAMPLE_DUMPS, needs_corpus

import rdbscope
from rdbscope import lint
from rdbscope.config import config_from_mapping
from rdbscope.rules import PRESETS

DEFAULT_DUMPS = ("redis-6.2-default", "redis-7.0-default", "redis-8.2-default", "valkey-8.1-default")

# (code, db, pattern) every default dump yields.
EVERY_DUMP = {
    ("NAM001", 0, "User Profile {id}"), ("NAM003", 0, "User Profile {id}"), ("NAM008", 0, "User Profile {id}"),
    ("NAM001", 0, "TEMP KEY (copy)"), ("NAM003", 0, "TEMP KEY (copy)"), ("NAM008", 0, "TEMP KEY (copy)"),
    ("NAM003", 0, "  leading-spaces"), ("NAM008", 0, "  leading-spaces"),
    ("NAM003", 0, "key\twith\ttabs"), ("NAM008", 0, "key\twith\ttabs"),
    ("NAM004", 0, "bin:\\xff\\xfe\x00token"), ("NAM004", 0, "caf\\xe9:menu"),
    ("NAM005", 0, "emoji:\U0001F355:orders"),
    ("NAM012", 0, "page:html:/docs/api-reference"), ("NAM012", 0, "page:html:/docs/getting-started"),
    ("CLU003", 0, "feed:{user42}:timeline"), ("CLU003", 0, "history:search:{user{id}}"),
    ("ENC001", 0, "inventory:warehouse:b"), ("ENC001", 0, "ranking:cohort:b"),
    ("ENC003", 0, "feed:{user42}:timeline"),
}
# Listpack sets came with Redis 7.2; hash-field TTLs (a 600-field hash) with 7.4.
LISTPACK_SETS = {("ENC001", 0, "interests:cohort:b"), ("ENC001", 0, "tags:member-len:over-limit")}
EXPECTED = {
    "redis-6.2-default": EVERY_DUMP,
    "redis-7.0-default": EVERY_DUMP,
    "redis-8.2-default": EVERY_DUMP | LISTPACK_SETS | {("ENC001", 0, "cache:fields:pricing")},
    "valkey-8.1-default": EVERY_DUMP | LISTPACK_SETS,
}


@pytest.fixture(scope="module", params=DEFAULT_DUMPS)
def dump(request):
    name = request.param
    keys = rdbscope.load(SAMPLE_DUMPS / f"{name}.rdb")
    oracle = json.loads((SAMPLE_DUMPS / f"{name}.json").read_text())
    loaded = {bytes.fromhex(r["key"]): r["memory_usage_loaded"] for r in oracle["keys"]}
    return name, keys, lint(keys), loaded


def test_what_each_rule_finds(dump):
    name, _keys, result, _loaded = dump
    assert {(f.code, f.db, f.pattern) for f in result.finding_list} == EXPECTED[name]


def test_findings_count_keys_and_memory_of_their_pattern(dump):
    _name, keys, result, _loaded = dump
    table = keys.to_arrow().to_pandas()
    table["text"] = [k.decode("utf-8", "backslashreplace") for k in table["key"]]
    for finding in result.finding_list:
        if finding.pattern is None or finding.code == "CLU001":
            continue
        rows = table[table["text"].isin(finding.examples)]
        assert len(rows) == len(finding.examples) and finding.n_keys >= len(rows)
        if finding.n_keys == len(rows):
            assert finding.est_memory_bytes == rows["est_memory_bytes"].sum(), finding.code


@pytest.mark.parametrize("over, at_limit", [("inventory:warehouse:b", "inventory:warehouse:a"),
                                            ("ranking:cohort:b", "ranking:cohort:a"),
                                            ("interests:cohort:b", "interests:cohort:a")])
def test_listpack_savings_against_the_key_at_the_limit(dump, over, at_limit):
    """The saving ENC001 estimates for a key one element over the limit is close to what
    the server reports for the same key one element smaller, as a listpack."""
    _name, _keys, result, loaded = dump
    finding = next((f for f in result.finding_list if f.code == "ENC001" and f.pattern == over), None)
    if finding is None:
        pytest.skip(f"{over} is not over a listpack limit on this server")
    actual = loaded[over.encode()] - loaded[at_limit.encode()]
    estimated = finding.details_dict["est_saving_bytes"]
    assert 0.65 * actual <= estimated <= 1.05 * actual, (estimated, actual)


def test_list_compression_estimate_against_the_server(dump):
    """These servers ran with list-compress-depth 1: what they report for the timeline is
    what ENC003 says it would take compressed (the scan assumed depth 0)."""
    _name, _keys, result, loaded = dump
    finding = next(f for f in result.finding_list if f.code == "ENC003")
    compressed = finding.est_memory_bytes - finding.details_dict["est_saving_bytes"]
    actual = loaded[b"feed:{user42}:timeline"]
    assert 0.88 * actual <= compressed <= 1.12 * actual, (compressed, actual)


def test_no_list_compression_finding_when_the_scan_knows_the_depth():
    keys = rdbscope.load(SAMPLE_DUMPS / "redis-8.2-default.rdb", list_compress_depth=1)
    assert not [f for f in lint(keys).finding_list if f.code == "ENC003"]


def test_opt_in_rules_on_a_real_dump():
    keys = rdbscope.load(SAMPLE_DUMPS / "redis-7.0-default.rdb")
    config = config_from_mapping({"select": [*PRESETS["layered-names"], *PRESETS["short-keys"]]})
    found = {(f.code, f.pattern): f for f in lint(keys, config).finding_list}
    assert ("NAM007", "session:{uuid}") in found  # 44 bytes each
    assert found[("NAM007", "session:{uuid}")].details_dict["longest_bytes"] == 44
    assert found[("NAM013", "stats:balance:acct{id}")].details_dict["words"] == "acct"
    assert found[("NAM014", "user:{id}:profile")].details_dict["reason"] == "it has 3 levels, fewer than 4"


CLUSTER_DUMPS = {
    # corpus file: (slots recorded, keys the record counts)
    "leonchen83__redis-replicator/dump-slot.rdb": ("98, 230, 4163, 4772", 5),
    "redis__librdb/cluster_slot_info.rdb": ("7638", 1),
    "catcherwong__rdb-tools/redis74_cluster_slotinfo.rdb": ("1165, 2589", 2),
    "HDT3213__rdb/valkey_cluster_slot_info.rdb": ("16383", 1),
}


@needs_corpus()
@pytest.mark.parametrize("path", CLUSTER_DUMPS)
def test_cluster_node_dumps(path):
    keys = rdbscope.load(CORPUS / "public" / path)
    findings = lint(keys, config_from_mapping({"select": ["CLU"]})).finding_list
    ranges, recorded = CLUSTER_DUMPS[path]
    node = [f for f in findings if f.code == "CLU004"]
    assert len(node) == 1 and node[0].details_dict["ranges"] == ranges
    assert node[0].details_dict["recorded_keys"] == recorded == keys.num_rows
    # The keys agree with the record; these fixtures tag keys to aim at slots, one key per tag.
    assert {f.code for f in findings} <= {"CLU003", "CLU004"}


CORPUS_OCCURRENCES = [
    # corpus file, code, pattern: rules the sample dumps hold no example of, in dumps of other projects
    ("RedisTimeSeries__RedisTimeSeries/1.4.9.rdb", "NAM002", "AverageTemperature:{*}"),
    ("RedisTimeSeries__RedisTimeSeries/1.4.9.rdb", "NAM003", "AverageTemperature:{*}"),  # "Belo Horizonte"
    ("leonchen83__redis-rdb-cli/dump.rdb", "NAM002", "myLong"),
    ("leonchen83__redis-rdb-cli/dump.rdb", "NAM006", "a" * 200),  # a run of a-f letters stays a word
    ("sripathikrishnan__redis-rdb-tools/rdb_version_5_with_checksum.rdb", "NAM009", "foo"),
    ("sripathikrishnan__redis-rdb-tools/rdb_version_5_with_checksum.rdb", "NAM009", "bar"),
]


@needs_corpus()
@pytest.mark.parametrize("path, code, pattern", CORPUS_OCCURRENCES)
def test_occurrences_in_other_projects_dumps(path, code, pattern):
    findings = lint(rdbscope.load(CORPUS / "public" / path), config_from_mapping({"select": [code]})).finding_list
    assert pattern in {f.pattern for f in findings}
