"""The triage summary: its parts against the sample dumps' oracles, on one screen, and with a pass skipped;
all five on dumps that live servers wrote under LRU and LFU policies (cold keys, TTLs in every bucket, a cliff)."""

import collections
import io
import json
import math
import re

import pytest
import servers
from conftest import SAMPLE_DUMPS
from rich.console import Console

import rdbscope
from rdbscope.cli._summary import summary_renderable, summary_text
from rdbscope.findings import format_bytes
from rdbscope.report.html import render_html
from rdbscope.report.triage import Saving, largest_savings, memory_at_risk, triage

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
    ]  # TTL jitter frees nothing: the keys expiring together are memory at risk
    assert memory_at_risk(findings) == [
        Saving("add ±10% TTL jitter to lock:{id}: 2 incidents, the largest 500 keys in 1 min from "
               "2030-01-02 00:00:00Z", 110, "EXP001", "lock:{id}"),
        Saving("add ±10% TTL jitter to api:{hex}: 150,000 keys expire at 2030-01-01 00:42:08Z", 90, "EXP001",
               "api:{hex}"),
    ]


def test_a_bounded_run_renders_what_it_has():
    res = rdbscope.analyze(SAMPLE_DUMPS / "redis-7.0-default.rdb", memory_budget="100KB")
    assert res.bounded and res.skipped == ()
    tri = triage(res)
    in_memory = triage(rdbscope.analyze(SAMPLE_DUMPS / "redis-7.0-default.rdb"))
    assert tri.by_type.equals(in_memory.by_type) and tri.ttl_buckets.equals(in_memory.ttl_buckets)
    assert tri.incidents.equals(in_memory.incidents) and len(tri.incidents) == 1
    assert tri.activity is not None and tri.activity.counter is None  # a dump without counters, said so
    assert not tri.notes.keys() & {"by_type", "ttl_buckets", "incidents", "activity"}
    assert len(tri.top_patterns) == 5 and tri.savings == in_memory.savings
    data = tri.as_dict(lambda frame: frame.to_dict("records"))
    assert data == in_memory.as_dict(lambda frame: frame.to_dict("records"))
    screen = io.StringIO()
    Console(file=screen, width=120, color_system=None).print(summary_renderable(tri))
    assert "not made" not in screen.getvalue() and "Memory by type" in screen.getvalue()
    assert "not made" not in render_html(res)


def test_a_bounded_run_of_a_dump_without_ctime_says_why_it_has_no_ttl_buckets(tmp_path):
    """Redis 6.2 and later write ctime; a dump without it (older servers, other writers) is made here by
    dropping the AUX field from a sample dump, whose keys are read all the same."""
    data = (SAMPLE_DUMPS / "redis-7.0-default.rdb").read_bytes()
    field = b"\xfa\x05ctime\xc2"
    start = data.index(field)
    stripped = data[:start] + data[start + len(field) + 4:]
    path = tmp_path / "no-ctime.rdb"
    path.write_bytes(stripped[:-8] + b"\0" * 8)  # no checksum: a zero checksum is not checked
    res = rdbscope.analyze(path, memory_budget="100KB")
    assert res.bounded and "ctime" not in res.info.aux
    tri = triage(res)
    assert tri.ttl_buckets is None and "ctime" in tri.notes["ttl_buckets"]
    assert tri.by_type is not None


# ---- on live servers with LRU and LFU policies: keys aged with RESTORE ... IDLETIME / FREQ, TTLs in each bucket

HOUR, DAY = 3600, 86400
USER_HASH = {f"field{i}": "x" * 20 for i in range(8)}
#: (prefix, keys, value, idle s, LFU counter, TTL s): values far from every bucket's and threshold's edges.
AGED_KEYS = [
    ("archive", 40, 40_000, 10 * DAY, 0, None),  # over 1 MB idle more than 7 d without a TTL: TTL005
    ("report", 20, 300, 2 * DAY, 0, None),
    ("user", 30, USER_HASH, 0, 200, None),
    ("otp", 10, 50, 0, 0, 20 * 60),
    ("rate", 150, 20, 0, 5, 2 * HOUR),  # one millisecond for all: the cliff
    ("feed", 10, 50, 0, 0, 8 * HOUR),
    ("token", 10, 50, 0, 0, 18 * HOUR),
    ("cart", 10, 50, 0, 0, 3 * DAY),
    ("promo", 10, 50, 0, 0, 10 * DAY),
]
#: Keys per TTL bucket of the summary.
BUCKET_KEYS = {"< 1 h": 10, "1-4 h": 150, "4-12 h": 10, "12-24 h": 10, "1-7 d": 10, "> 7 d": 10, "never": 90}


def aged_summary(label, policy):
    """The summary of a dump of AGED_KEYS written on ``label`` under ``policy``, the :class:`servers.AgedDump`
    (what OBJECT said before SAVE), and each key's memory as the dump gives it."""
    option = "IDLETIME" if policy.endswith("lru") else "FREQ"
    layout = {prefix: [(n, value, idle if option == "IDLETIME" else freq, ttl)]
              for prefix, n, value, idle, freq, ttl in AGED_KEYS}
    aged = servers.aged_dump(label, policy, layout, option)
    rows = aged.keys.to_arrow().select(["key", "est_memory_bytes"]).to_pylist()
    memory = {row["key"].decode(): row["est_memory_bytes"] for row in rows}
    return triage(rdbscope.analyze(aged.keys)), aged, memory


def pattern_of(frame, prefix):
    (name,) = [p for p in frame["pattern"] if p.startswith(prefix + ":")]
    return name


def assert_the_first_four_parts(tri, aged, memory):
    """Memory by type, top patterns, TTL buckets and the cliff, against what was written."""
    by_type = tri.by_type.set_index("type")
    strings = [name for name in memory if not name.startswith("user:")]
    assert by_type.loc["string", "n_keys"] == 260 and by_type.loc["hash", "n_keys"] == 30
    assert by_type.loc["string", "memory_bytes"] == sum(memory[n] for n in strings)
    assert by_type.loc["string", "largest_key"].startswith("archive:")
    assert by_type.loc["string", "largest_bytes"] == max(memory[n] for n in strings) > 40_000
    top = tri.top_patterns
    assert top["pattern"][0] == pattern_of(top, "archive") and top["n_keys"][0] == 40
    buckets = tri.ttl_buckets.set_index("expires")
    assert buckets["n_keys"].to_dict() == BUCKET_KEYS
    for prefix, bucket in (("rate", "1-4 h"), ("promo", "> 7 d")):
        assert buckets.loc[bucket, "memory_bytes"] == sum(v for n, v in memory.items() if n.startswith(prefix + ":"))
    (incident,) = tri.incidents.itertuples(index=False)
    cliff_s = (aged.written_ms + 2 * HOUR * 1000) // 1000
    assert (incident.scope, incident.pattern, incident.n_keys, incident.keys_in_batches) == \
        ("pattern", pattern_of(tri.incidents, "rate"), 150, 150)
    assert (int(incident.start.timestamp()), int(incident.end.timestamp())) == (cliff_s, cliff_s + 1)


@pytest.mark.slow
@pytest.mark.server
@pytest.mark.parametrize("label", sorted(servers.EXPECTED))
def test_the_summary_of_an_lru_dump_names_its_cold_pattern(label):
    tri, aged, memory = aged_summary(label, "allkeys-lru")
    assert_the_first_four_parts(tri, aged, memory)
    activity = tri.activity
    assert activity.counter == "idle" and "longest unread: 10 d" in activity.note
    rows = activity.rows.set_index("pattern")
    archive, report = pattern_of(activity.rows, "archive"), pattern_of(activity.rows, "report")
    assert list(rows.index) == [archive, report]  # nothing else was idle more than 1 h
    # what the server said of each key before SAVE
    cold = sum(memory[n] for n, idle in aged.read.items() if idle > 7 * DAY)
    over_a_day = sum(memory[n] for n, idle in aged.read.items() if n.startswith("report:") and idle > DAY)
    assert cold == sum(v for n, v in memory.items() if n.startswith("archive:")) > 1 << 20
    assert rows.loc[archive, "memory_bytes_idle_over_7d"] == cold
    assert rows.loc[report, "memory_bytes_idle_over_1d"] == over_a_day > 0
    assert rows.loc[report, "memory_bytes_idle_over_7d"] == 0
    saving = tri.savings[0]
    assert (saving.code, saving.pattern, saving.bytes) == ("TTL005", archive, cold)
    assert saving.action == f"{archive}: 40 keys without TTL idle more than 7 d: delete them or add a TTL"
    assert any(s.code == "EXP001" and s.pattern == pattern_of(tri.incidents, "rate") for s in tri.at_risk)
    text = summary_text(tri)
    assert_the_screen_shows_the_first_four_parts(text, tri)
    # memory, then idle more than 1 h, 1 d and 7 d: all of archive's
    assert re.search(rf" {re.escape(archive)}( +{re.escape(format_bytes(cold))}){{4}}$", text, re.MULTILINE)
    assert re.search(rf" {re.escape(report)}( +{re.escape(format_bytes(over_a_day))}){{3}} +0 B$", text, re.MULTILINE)
    assert f"{format_bytes(cold)}  {saving.action}  (TTL005)" in text


@pytest.mark.slow
@pytest.mark.server
@pytest.mark.parametrize("label", sorted(servers.EXPECTED))
def test_the_summary_of_an_lfu_dump_names_its_hot_and_cold_patterns(label):
    tri, aged, memory = aged_summary(label, "allkeys-lfu")
    assert_the_first_four_parts(tri, aged, memory)
    activity = tri.activity
    assert activity.counter == "lfu" and "lfu-decay-time 1" in activity.note
    user, rate, archive = (pattern_of(activity.rows, p) for p in ("user", "rate", "archive"))
    assert list(activity.rows["pattern"][:3]) == [user, rate, archive]  # hottest first, then the largest cold
    rows = activity.rows.set_index("pattern")
    # The server takes a point off per minute without a read when it saves.
    decay = math.ceil(aged.elapsed_s / 60) + 1
    told = [aged.read[n] for n in aged.read if n.startswith("user:")]
    assert set(told) == {200} and 200 - decay <= rows.loc[user, "lfu_mean"] <= 200
    zero = [n for n, freq in aged.read.items() if n.startswith("archive:") and freq == 0]
    assert len(zero) == 40 and rows.loc[archive, "memory_bytes_lfu_zero"] == sum(memory[n] for n in zero)
    assert tri.at_risk and any(s.code == "EXP001" and s.pattern == rate for s in tri.at_risk)
    text = summary_text(tri)
    assert_the_screen_shows_the_first_four_parts(text, tri)
    assert re.search(rf" {re.escape(user)} +30 .* 200 +0 B$", text, re.MULTILINE)
    archive_memory = re.escape(format_bytes(rows.loc[archive, "memory_bytes"]))
    assert re.search(rf" {re.escape(archive)} +40 +{archive_memory} +0\.0 +0 +{archive_memory}$", text, re.MULTILINE)
    assert f"add ±10% TTL jitter to {rate}: 150 keys expire at " in text


def assert_the_screen_shows_the_first_four_parts(text, tri):
    by_type = tri.by_type.set_index("type")
    for type_name, n_keys in (("string", 260), ("hash", 30)):
        assert re.search(rf"^{type_name} +{n_keys} +{re.escape(format_bytes(by_type.loc[type_name, 'memory_bytes']))} ",
                         text, re.MULTILINE), type_name
    for bucket, n_keys in BUCKET_KEYS.items():
        assert re.search(rf"^{re.escape(bucket)} +{n_keys} ", text, re.MULTILINE), bucket
    (incident,) = tri.incidents.itertuples(index=False)
    assert re.search(rf"{re.escape(incident.pattern)} +{incident.start:%Y-%m-%d %H:%M:%S}Z +1s +150 ", text)
    for part in ("Memory by type", "Top patterns by memory", "Memory freed over time", "Expiry incidents",
                 "Cold and hot memory", "Largest savings"):
        assert part in text
