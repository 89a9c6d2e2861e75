"""The expiry pass: bursts per pattern and for the dump, TTL jitter, the timeline."""

import datetime
import itertools

from keytables import CTIME_MS, CTIME_S, key, make_keys

import rdbscope
from rdbscope.config import Config
from rdbscope.passes.expiry import ExpiryOptions

HOUR_MS = 3600 * 1000
DAY_MS = 24 * HOUR_MS


def spread(prefix, n, start_ms, span_ms, first_id=0, **columns):
    """n keys whose expiries are evenly spread over [start, start + span)."""
    return [key(f"{prefix}:{first_id + i}", expire_at_ms=start_ms + i * span_ms // n, **columns)
            for i in range(n)]


def batch(prefix, n, at_ms, first_id=0):
    return [key(f"{prefix}:{first_id + i}", expire_at_ms=at_ms) for i in range(n)]


def analyze(rows, **options):
    return rdbscope.analyze(make_keys(rows), Config(expiry=ExpiryOptions(**options)))


def found(result, code):
    return [f for f in result.finding_list if f.code == code]


def at(ms):
    return datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.timezone.utc).isoformat().replace("+00:00", "Z")


def test_a_batch_in_one_second_is_a_burst_and_has_no_jitter():
    instant = CTIME_MS + HOUR_MS
    rows = batch("cache:page", 150, instant) + spread("cache:page", 50, CTIME_MS, 10 * DAY_MS, first_id=1000)
    result = analyze(rows)
    bursts = found(result, "EXP001")
    assert len(bursts) == 1
    burst = bursts[0]
    details = burst.details_dict
    assert burst.pattern == "cache:page:{id}" and burst.n_keys == 150
    assert details["start"] == at(instant) and details["end"] == at(instant + 1000)
    assert [w["window_s"] for w in details["windows"]] == [1] and details["peak_ratio"] > 100
    assert details["share_of_ttl_keys"] == 0.75 and details["n_with_ttl"] == 200
    assert burst.examples[0] == "cache:page:0"
    assert "150 keys of cache:page:{id} (75% of its keys with a TTL" in burst.message
    assert "expire in the same second at 2030-01-01T01:00:00Z; 150 of them share one millisecond" in burst.message
    assert "times" not in burst.message  # the ratio is in details only
    # the batch is inside the incident: EXP001 says it, no EXP003 repeats it
    assert details["keys_in_batches"] == 150 and details["largest_batch_at"] == at(instant).replace("Z", ".000Z")
    assert not found(result, "EXP003")
    # the minute and the hour around it are that same burst: not reported again
    assert not found(result, "EXP002")
    table = result.tables["expiry_bursts"].to_pylist()
    assert [(r["scope"], r["pattern"], r["window_s"], r["n_keys"], r["keys_in_batches"]) for r in table] == \
        [("pattern", "cache:page:{id}", 1, 150, 150)]


def test_adjacent_busy_seconds_are_one_incident():
    first = CTIME_MS + HOUR_MS
    rows = []
    for n in range(3):
        rows += batch("cart", 15_000, first + n * 1000, first_id=n * 15_000)
    rows += spread("cart", 5000, CTIME_MS, 10 * DAY_MS, first_id=100_000)
    result = analyze(rows)
    incidents = found(result, "EXP001")
    assert len(incidents) == 1
    incident = incidents[0]
    assert incident.n_keys == 45_000 and incident.details_dict["end"] == at(first + 3000)
    assert "within 3 s from 2030-01-01T01:00:00Z" in incident.message
    assert incident.est_memory_bytes == 45_000 * 100  # rdb_bytes: the test keys have no estimate
    assert not found(result, "EXP003") and not found(result, "EXP002")
    table = result.tables["expiry_bursts"].to_pylist()
    assert len(table) == 1 and table[0]["n_keys"] == 45_000 and table[0]["share_of_ttl_keys"] == 0.9


def test_steady_writes_are_no_burst_however_many():
    # written at a steady rate with TTLs of 100 s: expiring evenly over the next 100 s
    rows = spread("cache:page", 10_000, CTIME_MS, 100 * 1000)
    result = analyze(rows)
    assert not found(result, "EXP001") and not found(result, "EXP002") and not found(result, "EXP003")


def test_a_warm_up_expires_as_a_burst_even_when_spread_over_seconds():
    # 10,000 keys written within 100 s (a warm-up) with a one-hour TTL
    rows = spread("cache:page", 10_000, CTIME_MS + HOUR_MS, 100 * 1000)
    bursts = found(analyze(rows), "EXP001")
    assert len(bursts) == 1 and bursts[0].n_keys == 10_000
    assert {w["window_s"] for w in bursts[0].details_dict["windows"]} == {60}


def test_short_ttls_do_not_make_the_first_windows_a_dump_burst():
    rows = spread("typing", 5000, CTIME_MS, 10 * 1000) + spread("lock", 5000, CTIME_MS, 60 * 1000)
    rows += spread("session", 20_000, CTIME_MS, 2 * HOUR_MS) + spread("user", 20_000, CTIME_MS, 30 * DAY_MS)
    result = analyze(rows)
    assert not [f for f in result.finding_list if f.code.startswith("EXP")]


def test_jittered_batch_is_a_burst_but_has_jitter():
    instant = CTIME_MS + HOUR_MS
    rows = spread("cache:page", 120, instant, 900) + spread("cache:page", 50, CTIME_MS, 10 * DAY_MS, 1000)
    result = analyze(rows)
    assert len(found(result, "EXP001")) == 1
    assert not found(result, "EXP003") and "millisecond" not in found(result, "EXP001")[0].message


def test_a_minute_long_burst_is_found_with_the_longer_window():
    minute = CTIME_MS + 2 * HOUR_MS
    rows = spread("token", 600, minute, 60 * 1000) + spread("token", 100, CTIME_MS, 10 * DAY_MS, 1000)
    result = analyze(rows)
    bursts = found(result, "EXP001")
    assert [w["window_s"] for w in bursts[0].details_dict["windows"]] == [60]
    assert bursts[0].details_dict["start"] == at(minute) and bursts[0].n_keys == 600
    assert "within 1 min from" in bursts[0].message
    assert not found(analyze(rows, windows_s=(1,)), "EXP001")


def test_patterns_expiring_together_make_a_dump_burst():
    instant = CTIME_MS + 3 * HOUR_MS
    rows = []
    for prefix in ("cache:a", "cache:b", "cache:c"):
        rows += spread(prefix, 60, instant, 500)
        rows += spread(prefix, 100, CTIME_MS, 10 * DAY_MS, first_id=1000)
    result = analyze(rows)
    assert not found(result, "EXP001")
    dump = found(result, "EXP002")
    assert len(dump) == 1
    assert dump[0].pattern is None and dump[0].n_keys >= 180
    details = dump[0].details_dict
    assert {p["pattern"] for p in details["patterns"]} == {"cache:a:{id}", "cache:b:{id}", "cache:c:{id}"}
    assert details["start"] == at(instant) and dump[0].n_keys == 180
    rows_table = result.tables["expiry_bursts"].to_pylist()
    assert rows_table[0]["scope"] == "all" and rows_table[0]["pattern"] is None


def test_a_cliff_one_pattern_mostly_holds_is_that_pattern_s_one_finding():
    instant = CTIME_MS + 3 * HOUR_MS
    rows = batch("rate:ip", 150, instant) + spread("rate:ip", 10, CTIME_MS, 10 * DAY_MS, first_id=1000)
    rows += spread("session", 60, instant, 1000) + spread("session", 2000, CTIME_MS + 1500, 10 * DAY_MS, first_id=1000)
    result = analyze(rows)
    assert not found(result, "EXP002")
    (incident,) = found(result, "EXP001")
    assert incident.pattern == "rate:ip:{id}" and incident.n_keys == 150
    assert ("same second at 2030-01-01T03:00:00Z; 150 of them share one millisecond; with them 60 keys of "
            "session:{id} expire in the same span: add random jitter to the TTL") in incident.message
    cliff = incident.details_dict["dump_cliff"]
    assert cliff["start"] == at(instant) and cliff["end"] == at(instant + 1000)
    assert (cliff["n_keys"], cliff["keys_of_pattern"], cliff["keys_of_other_patterns"]) == (210, 150, 60)
    assert cliff["other_patterns"] == [{"db": 0, "pattern": "session:{id}", "n_keys": 60}]
    assert [(r["scope"], r["n_keys"]) for r in result.tables["expiry_bursts"].to_pylist()] == [("pattern", 150)]


def test_a_cliff_no_pattern_mostly_holds_stays_the_dump_s():
    instant = CTIME_MS + 3 * HOUR_MS
    rows = batch("rate:ip", 150, instant) + spread("rate:ip", 10, CTIME_MS, 10 * DAY_MS, first_id=1000)
    for prefix in ("cache:a", "cache:b"):
        rows += spread(prefix, 90, instant, 1000) + spread(prefix, 2000, CTIME_MS + 1500, 10 * DAY_MS, first_id=1000)
    result = analyze(rows)
    (incident,) = found(result, "EXP001")
    assert "dump_cliff" not in incident.details_dict and "with them" not in incident.message
    (dump,) = found(result, "EXP002")
    assert dump.n_keys == 330 and [p["n_keys"] for p in dump.details_dict["patterns"]] == [150, 90, 90]


def test_thresholds_are_configurable():
    instant = CTIME_MS + HOUR_MS
    rows = batch("session", 40, instant) + spread("session", 40, CTIME_MS, 10 * DAY_MS, 1000)
    assert not found(analyze(rows), "EXP001") and not found(analyze(rows), "EXP003")
    result = analyze(rows, min_keys=20, min_batch_keys=20)
    assert len(found(result, "EXP001")) == 1 and found(result, "EXP001")[0].details_dict["keys_in_batches"] == 40
    assert not found(analyze(rows, min_keys=20, min_batch_keys=41), "EXP001")[0].details_dict.get("keys_in_batches")
    # a batch that is no burst (the pattern's spread predicts as much) is EXP003's
    jitter = found(analyze(rows, min_batch_keys=20, min_ratio=1e12, min_keys=20), "EXP003")
    assert len(jitter) == 1 and jitter[0].n_keys == 40
    assert not found(analyze(rows, min_keys=20, min_ratio=1e12), "EXP001")


def test_max_bursts_and_share_in_busiest_windows():
    rows = []
    for n in range(5):
        rows += batch("lock:job", 100 + n, CTIME_MS + (n + 1) * HOUR_MS, first_id=1000 * n)
    rows += spread("lock:job", 100, CTIME_MS, 30 * DAY_MS, first_id=90_000)
    result = analyze(rows, max_bursts=2)
    incidents = found(result, "EXP001")
    assert [i.n_keys for i in incidents] == [104, 103]
    assert all(i.details_dict["incidents_of_pattern"] == 5 and "(one of its 5 incidents)" in i.message
               for i in incidents)
    assert abs(incidents[0].details_dict["share_of_ttl_keys"] - 104 / 610) < 1e-3
    # each batch is its own incident; the three not reported are no EXP003 either
    assert not found(result, "EXP003")
    assert [r["n_keys"] for r in result.tables["expiry_bursts"].to_pylist()] == [104, 103]


def test_expired_and_far_future_keys_stay_out():
    rows = batch("cache:x", 200, CTIME_MS - 1000)  # already expired: the ttl pass reports them
    rows += batch("cache:y", 200, CTIME_MS + 200 * 365 * DAY_MS)  # EXPIREAT far in the future
    result = analyze(rows)
    assert not [f for f in result.finding_list if f.code.startswith("EXP")]
    assert result.tables["expiry_timeline"].num_rows == 0


def test_timeline_counts_every_expiring_key_from_ctime():
    rows = spread("cache", 1000, CTIME_MS, 2 * DAY_MS) + batch("old", 5, CTIME_MS - 1)
    timeline = analyze(rows, timeline_buckets=100).tables["expiry_timeline"].to_pylist()
    assert timeline[0]["bucket_start"] == datetime.datetime.fromtimestamp(CTIME_S, datetime.timezone.utc)
    assert sum(r["n_keys"] for r in timeline) == 1000 and timeline[-1]["n_keys_cumulative"] == 1000
    assert len(timeline) <= 101
    widths = {r["bucket_s"] for r in timeline[:-1]}
    assert widths == {1800}  # two days in at most 100 buckets: 30 minutes each
    for previous, row in itertools.pairwise(timeline):
        assert previous["bucket_end"] == row["bucket_start"]


def test_without_ctime_windows_start_at_the_first_expiry():
    instant = CTIME_MS + HOUR_MS
    rows = batch("cache:page", 150, instant) + spread("cache:page", 50, CTIME_MS, 10 * DAY_MS, 1000)
    result = rdbscope.analyze(make_keys(rows, ctime_s=None))
    assert len(found(result, "EXP001")) == 1
    timeline = result.tables["expiry_timeline"].to_pylist()
    assert sum(r["n_keys"] for r in timeline) == 200
