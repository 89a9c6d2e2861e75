"""The ttl pass: missing TTLs per pattern, volatile names, persistent memory, expired keys."""

import pytest
from keytables import CTIME_MS, key, make_keys

import rdbscope
from rdbscope.config import Config
from rdbscope.passes.ttl import TtlOptions, volatile_words

WORDS = set(TtlOptions().volatile_words)


def ttl_findings(rows, code=None, **options):
    result = rdbscope.analyze(make_keys(rows), Config(ttl=TtlOptions(**options)))
    found = [f for f in result.finding_list if f.code.startswith("TTL")]
    return result, [f for f in found if code is None or f.code == code]


def test_mixed_ttl_fires_when_some_keys_lost_their_ttl():
    rows = [key(f"user:{i}:profile", ttl_s=3600 if i < 8 else None, rdb_bytes=10) for i in range(10)]
    _, found = ttl_findings(rows, "TTL001")
    assert len(found) == 1
    f = found[0]
    assert (f.pattern, f.n_keys, f.est_memory_bytes) == ("user:{id}:profile", 2, 20)
    assert f.examples == ("user:8:profile", "user:9:profile")
    assert f.details_dict["n_with_ttl"] == 8 and f.details_dict["share_without_ttl"] == 0.2


@pytest.mark.parametrize("ttls", [[3600] * 10, [None] * 10, [3600] * 8 + [None]])
def test_mixed_ttl_quiet_when_uniform_or_small(ttls):
    rows = [key(f"user:{i}:profile", ttl_s=t) for i, t in enumerate(ttls)]
    assert ttl_findings(rows, "TTL001")[1] == []


def test_volatile_name_without_ttl_is_an_error():
    rows = [key(f"cache:page:{i}", ttl_s=60 if i < 3 else None) for i in range(5)]
    rows += [key(f"sessions:{i}", ttl_s=60) for i in range(5)]
    _, found = ttl_findings(rows)
    assert [(f.code, f.pattern, f.n_keys) for f in found] == [("TTL002", "cache:page:{id}", 2)]
    assert found[0].severity is rdbscope.Severity.ERROR
    assert found[0].details_dict["words"] == ["cache"]
    assert "name says 'cache'" in found[0].message


@pytest.mark.parametrize("with_ttl", [False, True])
def test_examples_when_no_key_or_some_keys_have_a_ttl(with_ttl):
    # Without TTLs every key is a candidate example (the path a big dump of plain keys takes).
    rows = [key(f"session:{i}" if i % 2 else f"cache:page:{i}", db=i % 3 // 2) for i in range(30)]
    if with_ttl:
        rows += [key("session:100", ttl_s=60)]
    _, found = ttl_findings(rows, "TTL002")
    assert sorted((f.db, f.pattern, f.n_keys, f.examples) for f in found) == [
        (0, "cache:page:{id}", 10, ("cache:page:0", "cache:page:4", "cache:page:6")),
        (0, "session:{id}", 10, ("session:1", "session:3", "session:7")),
        (1, "cache:page:{id}", 5, ("cache:page:2", "cache:page:8", "cache:page:14")),
        (1, "session:{id}", 5, ("session:5", "session:11", "session:17")),
    ]


def test_volatile_words_are_whole_words_outside_placeholders():
    assert volatile_words("rateLimit:{ip}", WORDS) == ["rate"]
    assert volatile_words("api_tokens:{id}", WORDS) == ["tokens"]
    assert volatile_words("TEMP KEY (copy)", WORDS) == ["temp"]
    assert volatile_words("sensor:temps:room{id}", WORDS) == []
    assert volatile_words("template:{id}", WORDS) == []
    assert volatile_words("user:{token}", WORDS) == []
    assert volatile_words("locksmith:{id}", WORDS) == []
    assert volatile_words("ratelimiter:{ip}", WORDS) == ["ratelimiter"]


def test_volatile_words_are_configurable():
    rows = [key(f"scratch:{i}") for i in range(3)]
    assert ttl_findings(rows, "TTL002")[1] == []
    assert len(ttl_findings(rows, "TTL002", volatile_words=("scratch",))[1]) == 1


def test_persistent_memory_share():
    rows = [key(f"user:{i}", rdb_bytes=100) for i in range(3)] + [key("cache:x", ttl_s=5, rdb_bytes=100)]
    _, found = ttl_findings(rows, "TTL003")
    assert len(found) == 1 and found[0].n_keys == 3 and found[0].est_memory_bytes == 300
    assert found[0].details_dict["persistent_memory_share"] == 0.75
    assert ttl_findings(rows, "TTL003", persistent_memory_share=0.8)[1] == []


def test_expired_at_save():
    rows = [key(f"otp:{i}", expire_at_ms=CTIME_MS - 1000 * (i + 1)) for i in range(4)]
    rows += [key("otp:9", expire_at_ms=CTIME_MS), key("otp:10", ttl_s=30)]
    _, found = ttl_findings(rows, "TTL004")
    assert len(found) == 1 and found[0].n_keys == 4
    assert found[0].details_dict["by_pattern"] == [{"db": 0, "pattern": "otp:{id}", "n_keys": 4}]
    assert found[0].details_dict["most_overdue_ms"] == 4000
    assert ttl_findings([key("otp:1", ttl_s=1)], "TTL004")[1] == []
    no_ctime = rdbscope.analyze(make_keys(rows, ctime_s=None))
    assert not [f for f in no_ctime.finding_list if f.code == "TTL004"]


def test_coverage_and_overview_tables():
    rows = [key(f"user:{i}", ttl_s=60 if i == 0 else None, rdb_bytes=10) for i in range(4)]
    rows += [key(f"lock:{i}", db=1, ttl_s=-5, rdb_bytes=1) for i in range(2)]
    result = rdbscope.analyze(make_keys(rows))
    coverage = {r["pattern"]: r for r in result.tables["ttl_coverage"].to_pylist()}
    user = coverage["user:{id}"]
    assert (user["n_keys"], user["n_with_ttl"], user["n_without_ttl"], user["memory_bytes_without_ttl"]) == \
        (4, 1, 3, 30)
    assert user["share_without_ttl"] == 0.75 and user["volatile_name"] is False
    assert coverage["lock:{id}"]["volatile_name"] is True and coverage["lock:{id}"]["n_expired"] == 2
    overview = {r["db"]: r for r in result.tables["ttl_overview"].to_pylist()}
    assert set(overview) == {0, 1, None}
    assert overview[None]["n_keys"] == 6 and overview[None]["n_persistent"] == 3
    assert overview[None]["memory_bytes_persistent"] == 30 and overview[None]["n_expired"] == 2
    assert overview[0]["persistent_memory_share"] == 0.75


def test_field_ttls_are_reported_in_details():
    rows = [key(f"session:meta:{i}", "hash", n_fields_with_ttl=1) for i in range(3)]
    _, found = ttl_findings(rows, "TTL002")
    assert found[0].details_dict["n_with_field_ttl"] == 3
