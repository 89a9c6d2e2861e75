"""The activity pass: idle memory and LFU counters per pattern, against what live servers said before SAVE."""

import collections
import math

import pytest
import servers
from keytables import key, make_keys

import rdbscope
from rdbscope.config import Config
from rdbscope.passes.activity import ActivityOptions

HOUR, DAY = 3600, 86400


def rows_by_pattern(result):
    return {row["pattern"]: row for row in result.tables["activity"].to_pylist()}


def test_idle_keys_and_memory_are_counted_per_threshold():
    rows = []
    for i, idle in enumerate([10, 2 * HOUR, 2 * DAY, 8 * DAY]):
        rows.append(key(f"session:{i}", rdb_bytes=100 * (i + 1)) | {"idle_s": idle})
    rows.append(key("session:9", rdb_bytes=1000))  # no idle time: not counted
    activity = rows_by_pattern(rdbscope.analyze(make_keys(rows)))["session:{id}"]
    assert activity["n_with_idle"] == 4
    assert (activity["n_idle_over_1h"], activity["n_idle_over_1d"], activity["n_idle_over_7d"]) == (3, 2, 1)
    assert activity["memory_bytes_idle_over_1h"] == 200 + 300 + 400
    assert activity["memory_bytes_idle_over_7d"] == 400
    assert (activity["min_idle_s"], activity["max_idle_s"]) == (10, 8 * DAY)
    assert activity["n_with_lfu"] == 0 and activity["lfu_mean"] is None and activity["lfu_max"] is None


def test_cold_patterns_without_ttl_are_reported_with_ttl_not():
    rows = [key(f"archive:{i}", rdb_bytes=1000) | {"idle_s": 9 * DAY} for i in range(10)]
    rows += [key(f"cache:{i}", rdb_bytes=1000, ttl_s=DAY) | {"idle_s": 9 * DAY} for i in range(10)]
    config = Config(activity=ActivityOptions(cold_min_bytes=5000))
    findings = [f for f in rdbscope.analyze(make_keys(rows), config).finding_list if f.code == "TTL005"]
    assert [(f.pattern, f.n_keys, f.est_memory_bytes) for f in findings] == [("archive:{id}", 10, 10_000)]
    assert "9.8 KB of archive:{id} (10 keys without a TTL, 100% of its memory)" in findings[0].message
    assert "more than 7d" in findings[0].message
    strict = Config(activity=ActivityOptions(cold_min_bytes=20_000))
    assert not [f for f in rdbscope.analyze(make_keys(rows), strict).finding_list if f.code == "TTL005"]


def test_without_counters_every_count_is_zero():
    result = rdbscope.analyze(make_keys([key("user:1"), key("user:2")]))
    (row,) = result.tables["activity"].to_pylist()
    assert row["n_with_idle"] == 0 and row["n_with_lfu"] == 0 and row["max_idle_s"] is None


# ---- against live servers: keys aged with RESTORE ... IDLETIME / FREQ, read back with OBJECT before SAVE

#: Idle seconds given to each pattern's keys, far from the thresholds so the seconds between
#: reading them and the SAVE cannot move a key across one; (keys, value bytes, idle s, TTL s).
AGED = {
    "archive": [(30, 400, 10 * DAY, None), (10, 400, 2 * HOUR, None)],
    "cart": [(20, 150, 3 * DAY, DAY), (20, 150, 20, DAY)],
    "profile": [(40, 80, 0, None)],
}

#: LFU counters given to each pattern's keys: (keys, value bytes, counter, TTL s).
COUNTED = {"hot": [(20, 60, 200, None)], "warm": [(20, 60, 12, None), (5, 60, 30, DAY)],
           "cold": [(30, 60, 0, None)]}


LABELS = sorted(servers.EXPECTED)


@pytest.mark.slow
@pytest.mark.server
@pytest.mark.parametrize("label", LABELS)
def test_idle_memory_per_pattern_matches_object_idletime(label):
    keys, idletime, elapsed, _written = servers.aged_dump(label, "allkeys-lru", AGED, "IDLETIME")
    result = rdbscope.analyze(keys, Config(activity=ActivityOptions(cold_min_bytes=1)))
    table = keys.to_arrow().to_pylist()
    slack = math.ceil(elapsed) + 1
    memory = {}
    for row in table:
        name = row["key"].decode()
        assert idletime[name] <= row["idle_s"] <= idletime[name] + slack, name
        memory[name] = row["est_memory_bytes"]
    activity = rows_by_pattern(result)
    for prefix in AGED:
        (pattern,) = [p for p in activity if p.startswith(prefix + ":")]
        mine = [name for name in idletime if name.startswith(prefix + ":")]
        for label, threshold in (("1h", HOUR), ("1d", DAY), ("7d", 7 * DAY)):
            idle = [name for name in mine if idletime[name] > threshold]
            assert activity[pattern][f"n_idle_over_{label}"] == len(idle), (prefix, label)
            assert activity[pattern][f"memory_bytes_idle_over_{label}"] == sum(memory[n] for n in idle)
        assert activity[pattern]["max_idle_s"] >= max(idletime[n] for n in mine)
    cold = [f for f in result.finding_list if f.code == "TTL005"]
    # archive is cold without TTL; cart is idle as long but expires by itself
    assert [(f.pattern, f.n_keys) for f in cold] == [(next(p for p in activity if p.startswith("archive:")), 30)]
    assert all(row["n_with_lfu"] == 0 for row in activity.values())


@pytest.mark.slow
@pytest.mark.server
@pytest.mark.parametrize("label", LABELS)
def test_lfu_counters_per_pattern_match_object_freq(label):
    keys, freq, elapsed, _written = servers.aged_dump(label, "allkeys-lfu", COUNTED, "FREQ")
    result = rdbscope.analyze(keys)
    # The server takes a point off per minute without a read (lfu-decay-time 1) when it saves.
    decay = math.ceil(elapsed / 60) + 1
    counters = collections.defaultdict(list)
    for row in keys.to_arrow().to_pylist():
        name = row["key"].decode()
        assert max(0, freq[name] - decay) <= row["lfu_freq"] <= freq[name], name
        counters[name.split(":")[0]].append(freq[name])
    activity = rows_by_pattern(result)
    for prefix, values in counters.items():
        (pattern,) = [p for p in activity if p.startswith(prefix + ":")]
        row = activity[pattern]
        assert row["n_with_lfu"] == len(values) and row["n_with_idle"] == 0
        assert max(values) - decay <= row["lfu_max"] <= max(values)
        assert sum(values) / len(values) - decay <= row["lfu_mean"] <= sum(values) / len(values)
        assert row["n_lfu_zero"] == sum(1 for v in values if v == 0)
