"""The triage summary: its parts against the sample dumps' oracles, on one screen, and with a pass skipped."""

import collections
import io
import json

import pytest
from conftest import SAMPLE_DUMPS
from rich.console import Console

import rdbscope
from rdbscope.cli._summary import summary_renderable
from rdbscope.report.html import render_html
from rdbscope.report.triage import Saving, largest_savings, triage

VARIANTS = sorted(p.name for p in SAMPLE_DUMPS.glob("*.rdb") if p.stem.endswith(("-default", "-lfu", "-lru")))


@pytest.fixture(scope="module", params=VARIANTS)
def analysed(request):
    path = SAMPLE_DUMPS / request.param
    oracle = json.loads(path.with_suffix(".json").read_text())
    return rdbscope.analyze(rdbscope.load(path)), oracle


def test_memory_by_type_counts_the_oracle_keys(analysed):
    res, oracle = analysed
    by_type = triage(res).by_type
    expected = collections.Counter(r["type"] for r in oracle["keys"])
    got = dict(zip(by_type["type"], by_type["n_keys"], strict=True))
    for type_name in ("string", "list", "set", "zset", "hash", "stream"):
        assert got.get(type_name, 0) == expected[type_name], type_name
    assert sum(got.values()) == len(oracle["keys"])  # module keys too
    table = res.keys.to_arrow().to_pylist()
    for row in by_type.itertuples(index=False):
        mine = [r for r in table if r["type"] == row.type]
        assert row.memory_bytes == sum(r["est_memory_bytes"] or r["rdb_bytes"] for r in mine)
        assert row.largest_bytes == max(r["est_memory_bytes"] or r["rdb_bytes"] for r in mine)
        assert row.avg_bytes == round(row.memory_bytes / row.n_keys)
    assert list(by_type["memory_bytes"]) == sorted(by_type["memory_bytes"], reverse=True)


def test_ttl_buckets_follow_the_oracle_expiries(analysed):
    res, oracle = analysed
    buckets = triage(res).ttl_buckets.set_index("expires")
    ctime_ms = int(res.info.aux["ctime"]) * 1000
    left = [(r["expire_at_ms"] - ctime_ms) / 1000 for r in oracle["keys"] if r["expire_at_ms"] is not None]
    assert buckets.loc["never", "n_keys"] == sum(1 for r in oracle["keys"] if r["expire_at_ms"] is None)
    bounds = {"< 1 h": (0, 3600), "1-4 h": (3600, 14400), "4-12 h": (14400, 43200), "12-24 h": (43200, 86400),
              "1-7 d": (86400, 604800), "> 7 d": (604800, float("inf"))}
    for label, (low, high) in bounds.items():
        assert buckets.loc[label, "n_keys"] == sum(1 for s in left if s > 0 and low <= s < high), label
    assert buckets["n_keys"].sum() == len(oracle["keys"])
    assert abs(buckets["memory_share"].sum() - 1) < 1e-9


def test_activity_says_which_counter_the_dump_has(analysed):
    res, oracle = analysed
    activity = triage(res).activity
    variant = oracle["variant"]
    if variant == "lru":
        assert activity.counter == "idle" and "maxmemory-policy *-lru" in activity.note
        longest = max(r["idle_s"] for r in oracle["keys"])
        assert activity.note.endswith("none idle more than 1h")
        assert longest < 3600
    elif variant == "lfu":
        assert activity.counter == "lfu" and "lfu-decay-time 1" in activity.note
        hottest = activity.rows.iloc[0]
        assert hottest["pattern"] == "user:{id}:profile"  # read 3000 times, the others never
        assert hottest["lfu_mean"] == max(activity.rows["lfu_mean"])
    else:
        assert activity.counter is None
        assert "allkeys-lru" in activity.note and "allkeys-lfu" in activity.note and not len(activity.rows)


def test_savings_are_the_largest_actions_with_their_bytes(analysed):
    res, _oracle = analysed
    savings = triage(res).savings
    assert 0 < len(savings) <= 5
    assert [s.bytes for s in savings] == sorted((s.bytes for s in savings), reverse=True)
    enc001 = [f for f in res.finding_list if f.code == "ENC001"]
    for setting in {f.details_dict["setting"] for f in enc001}:
        mine = [f for f in enc001 if f.details_dict["setting"] == setting]
        action = f"CONFIG SET {setting} {max(f.details_dict['largest'] for f in mine)}"
        total = sum(f.details_dict["est_saving_bytes"] for f in mine)
        assert any(s.action == action and s.bytes == total for s in savings) or total < savings[-1].bytes


def test_the_summary_fits_one_screen_of_120_by_40(analysed):
    res, _oracle = analysed
    screen = io.StringIO()
    Console(file=screen, width=120, color_system=None).print(summary_renderable(triage(res)))
    lines = screen.getvalue().rstrip("\n").splitlines()
    assert len(lines) <= 34  # and the four lines of the headline above it
    assert max(len(line.rstrip()) for line in lines) <= 120
    text = screen.getvalue()
    for part in ("Memory by type", "Top patterns by memory", "Memory freed over time", "Expiry incidents",
                 "Cold and hot memory", "Largest savings"):
        assert part in text


def test_incidents_and_savings_merge_one_setting_and_name_the_jitter():
    def finding(code, details, **fields):
        return rdbscope.Finding(code=code, name="x", severity=rdbscope.Severity.INFO, message="m",
                                details=json.dumps(details), **fields)

    findings = [
        finding("ENC001", {"setting": "hash-max-listpack-entries", "largest": 600, "est_saving_bytes": 100}),
        finding("ENC001", {"setting": "hash-max-listpack-entries", "largest": 700, "est_saving_bytes": 50}),
        finding("EXP001", {"start": "2030-01-01T00:42:08Z", "end": "2030-01-01T00:42:09Z"}, pattern="api:{hex}",
                n_keys=150_000, est_memory_bytes=90),
        finding("TTL005", {"cold_idle_s": 604800}, pattern="session:{uuid}", n_keys=3, est_memory_bytes=2000),
        finding("TTL002", {"n_without_ttl": 3}, pattern="session:{uuid}", n_keys=3, est_memory_bytes=2000),
        finding("BIG001", {}, pattern="big", n_keys=1, est_memory_bytes=10**9),
        finding("LIB001", {"library": "BullMQ", "setting": "removeOnComplete / removeOnFail job options (default: "
                           "keep every job)"}, pattern="bull:q:{id}", n_keys=400, est_memory_bytes=120),
        finding("TTL002", {"n_without_ttl": 400}, pattern="bull:q:{id}", n_keys=400, est_memory_bytes=120),
        finding("EXP001", {"start": "2030-01-02T00:00:00Z", "end": "2030-01-02T00:01:00Z"}, pattern="lock:{id}",
                n_keys=500, est_memory_bytes=60),
        finding("EXP001", {"start": "2030-01-03T00:00:00Z", "end": "2030-01-03T00:00:01Z"}, pattern="lock:{id}",
                n_keys=400, est_memory_bytes=50),
    ]
    assert largest_savings(findings) == [
        Saving("session:{uuid}: 3 keys without TTL idle more than 7 d: delete them or add a TTL", 2000, "TTL005",
               "session:{uuid}"),
        Saving("CONFIG SET hash-max-listpack-entries 700", 150, "ENC001"),
        Saving("bull:q:{id} (BullMQ): set removeOnComplete / removeOnFail job options", 120, "LIB001",
               "bull:q:{id}"),
        Saving("add ±10% TTL jitter to lock:{id}: 2 incidents, the largest 500 keys in 1 min from "
               "2030-01-02 00:00:00Z", 110, "EXP001", "lock:{id}"),
        Saving("add ±10% TTL jitter to api:{hex}: 150,000 keys expire at 2030-01-01 00:42:08Z", 90, "EXP001",
               "api:{hex}"),
    ]


def test_a_bounded_run_renders_what_it_has():
    res = rdbscope.analyze(SAMPLE_DUMPS / "redis-7.0-default.rdb", memory_budget="100KB")
    assert res.skipped == ("rules",)
    tri = triage(res)
    assert tri.by_type is None and tri.ttl_buckets is None
    in_memory = triage(rdbscope.analyze(SAMPLE_DUMPS / "redis-7.0-default.rdb"))
    assert tri.incidents.equals(in_memory.incidents) and len(tri.incidents) == 1
    assert tri.activity is not None and tri.activity.counter is None  # a dump without counters, said so
    assert "bounded run" in tri.notes["by_type"] and "incidents" not in tri.notes and "activity" not in tri.notes
    assert len(tri.top_patterns) == 5 and tri.savings
    screen = io.StringIO()
    Console(file=screen, width=120, color_system=None).print(summary_renderable(tri))
    assert "not made in a bounded run" in screen.getvalue()
    assert "not made in a bounded run" in render_html(res)
    data = tri.as_dict(lambda frame: frame.to_dict("records"))
    assert data["incidents"] and data["top_patterns"] and data["notes"]["by_type"]
