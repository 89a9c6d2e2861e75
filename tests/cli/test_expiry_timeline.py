"""`rdbscope expiry --timeline`: buckets on clock boundaries, and --top keeps the busiest, in time order.

The expected buckets are counted from what the servers said (PEXPIRETIME), not from our parser.
"""

import collections
import csv
import datetime
import io
import json
import shutil
import time

import pytest
import servers
from conftest import SAMPLE_DUMPS
from oracle import read_oracle
from typer.testing import CliRunner

from rdbscope.cli import app

SAMPLE = SAMPLE_DUMPS / "redis-8.2-default.rdb"
WEEK_S = 7 * 86400
MONDAY_S = 4 * 86400  # 1970-01-05


def invoke(*args):
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def epoch_s(text):
    return int(datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())


def busiest(counts, top):
    """The ``top`` buckets holding the most keys (the earlier of a tie), in time order."""
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:top]
    return sorted(ranked)


def timeline_rows(dump, *options):
    rows = json.loads(invoke("expiry", dump, "--timeline", "--format", "json", *options))["timeline"]
    return [(epoch_s(r["bucket_start"]), epoch_s(r["bucket_end"]), r["n_keys"]) for r in rows]


def test_top_keeps_the_busiest_weeks_in_time_order_starting_on_mondays():
    oracle = read_oracle(str(SAMPLE.with_suffix(".json")))
    weeks = collections.Counter((k["expire_at_ms"] // 1000 - MONDAY_S) // WEEK_S * WEEK_S + MONDAY_S
                                for k in oracle["keys"] if k["expire_at_ms"] is not None)
    expected = busiest(weeks, 8)

    rows = timeline_rows(SAMPLE, "--top", "8")
    assert [(start, n) for start, _end, n in rows] == expected
    assert all(end - start == WEEK_S for start, end, _n in rows)
    assert all(datetime.datetime.fromtimestamp(start, datetime.timezone.utc).strftime("%a %H:%M:%S")
               == "Mon 00:00:00" for start, _end, _n in rows)

    # CSV gives the same rows; the table too, under a title that says which rows these are.
    table = list(csv.DictReader(io.StringIO(invoke("expiry", SAMPLE, "--timeline", "--format", "csv",
                                                   "--top", "8"))))
    assert [(epoch_s(r["bucket_start"]), int(r["n_keys"])) for r in table] == expected
    screen = invoke("expiry", SAMPLE, "--timeline", "--top", "8")
    shown = screen[screen.index("Expiry timeline"):]
    assert f"the 8 busiest of {len(weeks)} with expiring keys, in time order" in shown.splitlines()[0]
    assert [line.split("│")[3].strip() for line in shown.splitlines() if line.startswith("│")] == [
        f"{n:,}" for _start, n in expected]


def test_without_a_smaller_top_every_week_with_expiring_keys_is_listed():
    oracle = read_oracle(str(SAMPLE.with_suffix(".json")))
    n_ttl = sum(1 for k in oracle["keys"] if k["expire_at_ms"] is not None)
    rows = timeline_rows(SAMPLE, "--top", "1000")
    assert sum(n for _s, _e, n in rows) == n_ttl and all(n > 0 for _s, _e, n in rows)


@pytest.fixture(scope="module")
def minutes_dump(tmp_path_factory):
    """A Redis 7.0 dump whose keys expire over the next five hours: one key at second 17 of every minute,
    and ten minutes holding 20 to 29 more; with the minute each key expires in, as the server says."""
    path = tmp_path_factory.mktemp("minutes") / "dump.rdb"
    with servers.make_sample_dumps.RunningServer(servers.server("redis-7.0"), {"save": ""}) as server:
        client = server.client(0)
        first_minute_s = (int(time.time()) // 60 + 2) * 60
        pipe = client.pipeline(transaction=False)
        n = 0
        for minute in range(300):
            extra = 20 + minute // 30 if minute % 30 == 7 else 0
            for _ in range(1 + extra):
                pipe.set(f"session:{n}", "x", pxat=(first_minute_s + minute * 60 + 17) * 1000)
                n += 1
        pipe.execute()
        pipe = client.pipeline(transaction=False)
        for i in range(n):
            pipe.pexpiretime(f"session:{i}")
        minutes = collections.Counter(ms // 60_000 * 60 for ms in pipe.execute())
        client.execute_command("SAVE")
        shutil.copy(server.dump_path, path)
    return path, minutes


@pytest.mark.slow
@pytest.mark.server
def test_minute_buckets_start_at_zero_seconds(minutes_dump):
    path, minutes = minutes_dump
    rows = timeline_rows(path, "--top", "8")
    assert [(start, n) for start, _end, n in rows] == busiest(minutes, 8)
    assert {end - start for start, end, _n in rows} == {60}
    every = timeline_rows(path, "--top", "1000")
    assert [(start, n) for start, _end, n in every] == sorted(minutes.items())
