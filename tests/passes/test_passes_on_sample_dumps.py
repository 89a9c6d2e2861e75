"""The passes on the real sample dumps, checked against what the live server said (oracle JSON).

Our scan supplies the key bytes and the inferred pattern of each key; every
number compared (TTLs, element counts, expiry instants) comes from the oracle.
"""

import collections
import datetime
import pathlib

import pytest
from conftest import sample_dumps
from oracle import read_oracle

import rdbscope
from rdbscope.config import Config
from rdbscope.passes.bigkeys import BigKeyOptions
from rdbscope.passes.expiry import ExpiryOptions

DUMPS = sample_dumps()
# Low thresholds so that every type has keys over them in the small sample dumps.
LOW = Config(bigkeys=BigKeyOptions(string_bytes=4000, hash_fields=100, list_elements=100,
                                   set_members=100, zset_members=100, stream_entries=100),
             expiry=ExpiryOptions(min_batch_keys=20))


@pytest.fixture(scope="module", params=DUMPS, ids=[p.name for p in DUMPS])
def analysed(request):
    path = request.param
    oracle = read_oracle(str(path.with_suffix(".json")))
    result = rdbscope.analyze(rdbscope.load(path), LOW)
    table = result.keys.to_arrow()
    db_and_key = zip(table["db"].to_pylist(), table["key"].to_pylist(), strict=True)
    pattern_of = dict(zip(db_and_key, table["pattern"].to_pylist(), strict=True))
    records = []
    for record in oracle["keys"]:
        record = dict(record, pattern=pattern_of[(record["db"], bytes.fromhex(record["key"]))])
        records.append(record)
    return result, records


def by_pattern(records):
    groups = collections.defaultdict(list)
    for r in records:
        groups[(r["db"], r["pattern"])].append(r)
    return groups


def ctime_ms(result):
    return int(result.info.aux["ctime"]) * 1000


def test_every_key_has_a_pattern_and_counts_match(analysed):
    result, records = analysed
    patterns = {(r["db"], r["pattern"]): r for r in result.tables["patterns"].to_pylist()}
    expected = by_pattern(records)
    assert set(patterns) == set(expected)
    for group, members in expected.items():
        assert patterns[group]["n_keys"] == len(members)
        assert set(patterns[group]["types"]) <= {"string", "list", "set", "zset", "hash", "stream", "module", "array"}


def test_ttl_counts_and_percentiles_per_pattern(analysed):
    result, records = analysed
    now = ctime_ms(result)
    patterns = {(r["db"], r["pattern"]): r for r in result.tables["patterns"].to_pylist()}
    for group, members in by_pattern(records).items():
        expiries = sorted(r["expire_at_ms"] for r in members if r["expire_at_ms"] is not None)
        row = patterns[group]
        assert row["n_with_ttl"] == len(expiries), group
        if expiries:
            ttl_s = sorted(max(e - now, 0) // 1000 for e in expiries)  # ctime is cut to seconds: round down
            assert row["ttl_s_max"] == ttl_s[-1]
            assert row["ttl_s_p50"] == ttl_s[max(-(-len(ttl_s) // 2) - 1, 0)]
        else:
            assert row["ttl_s_p50"] is None


def test_ttl_coverage_and_no_expired_keys(analysed):
    result, records = analysed
    coverage = {(r["db"], r["pattern"]): r for r in result.tables["ttl_coverage"].to_pylist()}
    for group, members in by_pattern(records).items():
        without = sum(1 for r in members if r["expire_at_ms"] is None)
        assert coverage[group]["n_without_ttl"] == without
    # every expiry in the sample dumps lies in 2030-2031, after the dumps were written
    assert all(r["expire_at_ms"] is None or r["expire_at_ms"] > ctime_ms(result) for r in records)
    assert not [f for f in result.finding_list if f.code == "TTL004"]
    overview = {r["db"]: r for r in result.tables["ttl_overview"].to_pylist()}
    assert overview[None]["n_with_ttl"] == sum(1 for r in records if r["expire_at_ms"] is not None)


def test_volatile_patterns_without_ttl(analysed):
    result, records = analysed
    fired = {(f.db, f.pattern): f.n_keys for f in result.finding_list if f.code == "TTL002"}
    cache = [r for r in records if r["db"] == 1 and r.get("key_text", "").startswith("cache:product:")]
    if cache:
        (group,) = {(1, r["pattern"]) for r in cache}
        assert fired[group] == sum(1 for r in cache if r["expire_at_ms"] is None)


def test_big_keys_match_oracle_counts(analysed):
    result, records = analysed
    limits = LOW.bigkeys.element_limits()
    expected = collections.defaultdict(set)
    for r in records:
        name = (r["db"], bytes.fromhex(r["key"]).decode("utf-8", "backslashreplace"))
        if r["type"] == "string" and r["count"] > LOW.bigkeys.string_bytes:
            expected["BIG001"].add(name)
        elif r["type"] in ("hash", "list", "set", "zset") and r["count"] > limits[r["type"]]:
            expected["BIG002"].add(name)
        elif r["type"] == "stream" and r["count"] > limits["stream"]:
            expected["BIG003"].add(name)
    got = collections.defaultdict(set)
    for row in result.tables["big_keys"].to_pylist():
        for code in row["codes"]:
            got[code].add((row["db"], row["key"]))
    for code in ("BIG001", "BIG002", "BIG003"):
        assert got[code] == expected[code], code
    assert expected["BIG002"], "the sample dumps have collections over 100 elements"
    finding_keys = sum(f.n_keys for f in result.finding_list if f.code == "BIG002")
    assert finding_keys == len(expected["BIG002"])


def test_top_keys_by_length_per_type(analysed):
    result, records = analysed
    top = collections.defaultdict(list)
    for row in result.tables["top_keys"].to_pylist():
        if row["ranking"] == "length":
            top[row["scope"]].append(row["n_elements"])
    for type_name in ("string", "list", "set", "zset", "hash", "stream"):
        lengths = sorted((r["count"] for r in records if r["type"] == type_name), reverse=True)
        assert top[type_name] == lengths[:LOW.bigkeys.top_n], type_name


def test_jitter_batches_match_oracle_expiries(analysed):
    result, records = analysed
    expected = {}
    for group, members in by_pattern(records).items():
        per_instant = collections.Counter(r["expire_at_ms"] for r in members if r["expire_at_ms"] is not None)
        in_batches = sum(n for n in per_instant.values() if n >= LOW.expiry.min_batch_keys)
        if in_batches:
            expected[group] = in_batches
    # batches inside an expiry incident are counted by its EXP001 finding, the others by EXP003
    got = collections.Counter()
    for f in result.finding_list:
        if f.code == "EXP003":
            got[f.db, f.pattern] += f.n_keys
        elif f.code == "EXP001" and f.details_dict.get("keys_in_batches"):
            got[f.db, f.pattern] += f.details_dict["keys_in_batches"]
    assert got == expected


def test_expiry_timeline_matches_oracle_expiries(analysed):
    result, records = analysed
    expiries = [r["expire_at_ms"] for r in records if r["expire_at_ms"] is not None]
    timeline = result.tables["expiry_timeline"].to_pylist()
    assert sum(row["n_keys"] for row in timeline) == len(expiries)
    for row in timeline:
        start = int(row["bucket_start"].timestamp() * 1000)
        end = int(row["bucket_end"].timestamp() * 1000)
        assert row["n_keys"] == sum(1 for e in expiries if start <= e < end)


def test_default_dumps_have_one_expiry_cliff_at_a_shared_instant(analysed):
    """The writers' shared instant is one incident and one finding: rate:ip:{ip}'s, which holds most
    of its keys and counts the whole dump's there."""
    result, records = analysed
    path = pathlib.Path(result.info.path)
    if not path.name.endswith("-default.rdb"):
        pytest.skip("the small variants have few shared expiries")
    second = datetime.datetime(2030, 3, 17, 17, 46, tzinfo=datetime.timezone.utc)
    start_ms = int(second.timestamp() * 1000)
    in_minute = sum(1 for r in records if r["expire_at_ms"] is not None
                    and start_ms <= r["expire_at_ms"] < start_ms + 60_000)
    incidents = [r for r in result.tables["expiry_bursts"].to_pylist()
                 if r["start"] < second + datetime.timedelta(minutes=1) and r["end"] > second]
    assert in_minute >= 200 and [(r["scope"], r["pattern"]) for r in incidents] == [("pattern", "rate:ip:{ip}")]
    (finding,) = [f for f in result.finding_list if f.code.startswith("EXP") and f.code != "EXP003"
                  and datetime.datetime.fromisoformat(f.details_dict["start"]) == incidents[0]["start"]]
    assert finding.code == "EXP001" and finding.n_keys == incidents[0]["n_keys"]
    cliff = finding.details_dict["dump_cliff"]
    start_ms, end_ms = (int(datetime.datetime.fromisoformat(cliff[name]).timestamp() * 1000)
                        for name in ("start", "end"))
    assert cliff["n_keys"] == sum(1 for r in records if r["expire_at_ms"] is not None
                                  and start_ms <= r["expire_at_ms"] < end_ms) >= in_minute
    assert cliff["keys_of_other_patterns"] == cliff["n_keys"] - finding.n_keys > 0
    assert f"with them {cliff['keys_of_other_patterns']} keys of" in finding.message
