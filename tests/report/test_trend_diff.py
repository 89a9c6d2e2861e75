"""trend and diff on a pattern that shrank between two dumps written by a real server, and on one that grew."""

import json
import re
import shutil
import sys

import pytest
from conftest import SAMPLE_DUMPS
from typer.testing import CliRunner

from rdbscope.cli import app
from rdbscope.report.compare import pivot_trend, trend_rows

sys.path.insert(0, str(SAMPLE_DUMPS))
import make_sample_dumps  # noqa: E402

REDIS_7 = [s for s in make_sample_dumps.discover_servers() if s.label == "redis-7.0"]
N_KEYS, N_DELETED = 1000, 50

pytestmark = [pytest.mark.server, pytest.mark.slow,
              pytest.mark.skipif(not REDIS_7, reason="Debian's redis-server 7.0 is not installed")]


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def shrinking(tmp_path_factory):
    """Two dumps of one server, the second after deleting some ``rate:{ip}`` keys, and their key counts."""
    out = tmp_path_factory.mktemp("shrinking")
    counts = []
    with make_sample_dumps.RunningServer(REDIS_7[0], {}) as server:
        client = server.client(0)
        names = [f"rate:10.0.{i // 250}.{i % 250}" for i in range(N_KEYS)]
        for name in names:
            client.execute_command("SET", name, "x" * 900)
        for day, deleted in (("before", []), ("after", names[:N_DELETED])):
            if deleted:
                client.execute_command("DEL", *deleted)
            client.execute_command("SAVE")
            counts.append(client.execute_command("DBSIZE"))
            shutil.copy(server.dump_path, out / f"{day}.rdb")
    return out, counts


@pytest.fixture(scope="module")
def dataset(shrinking):
    out, _ = shrinking
    for day, name in (("2030-01-01", "before"), ("2030-01-02", "after")):
        assert invoke("report", out / f"{name}.rdb", "--out", out / "ds", "--instance", "a", "--date", day,
                      "-f", "json").exit_code == 0
    return out / "ds"


def test_trend_shows_a_shrinking_pattern_as_negative(dataset, shrinking):
    _, (before, after) = shrinking
    rows = trend_rows(dataset)
    keys = pivot_trend(rows, "n_keys").set_index("pattern")
    assert keys.loc["rate:{ip}", "2030-01-01"] == before == N_KEYS
    assert keys.loc["rate:{ip}", "change"] == after - before == -N_DELETED
    memory = pivot_trend(rows, "memory_bytes_sum").set_index("pattern")
    assert memory.loc["rate:{ip}", "change"] == (memory.loc["rate:{ip}", "2030-01-02"]
                                                 - memory.loc["rate:{ip}", "2030-01-01"]) < 0
    table = invoke("trend", dataset)
    row = next(line for line in table.stdout.splitlines() if "rate:{ip}" in line)
    assert table.exit_code == 0 and re.search(r"│ +-\d+\.\d KB │$", row), row


def test_diff_shows_the_shrinking_pattern_on_dumps_and_partitions(dataset, shrinking):
    out, (before, after) = shrinking
    for old, new in ((out / "before.rdb", out / "after.rdb"),
                     (dataset / "instance=a" / "date=2030-01-01", dataset / "instance=a" / "date=2030-01-02")):
        result = json.loads(invoke("diff", old, new, "-f", "json").stdout)
        (row,) = result["patterns"]
        assert row["change"] == "shrank" and row["pattern"] == "rate:{ip}"
        assert row["n_keys_delta"] == after - before
        assert row["memory_bytes_delta"] == row["memory_bytes_new"] - row["memory_bytes_old"] < 0


def test_diff_lists_unchanged_patterns_only_with_all(shrinking):
    out, (before, _) = shrinking
    same = out / "before.rdb"
    assert json.loads(invoke("diff", same, same, "-f", "json").stdout)["patterns"] == []
    (row,) = json.loads(invoke("diff", same, same, "--all", "-f", "json").stdout)["patterns"]
    assert row["change"] == "unchanged" and row["pattern"] == "rate:{ip}"
    assert row["n_keys_old"] == row["n_keys_new"] == before and row["memory_bytes_delta"] == 0


#: An audit log numbered by a counter, never expired: (date, keys written by then).

DAYS = (("2030-01-01", 1200), ("2030-01-02", 1500), ("2030-01-03", 1900))

@pytest.fixture(scope="module")
def days(tmp_path_factory):
    """A dump per day of an audit log numbered by a counter, never expired, and a dataset of their reports."""
    out = tmp_path_factory.mktemp("growing")
    with make_sample_dumps.RunningServer(REDIS_7[0], {}) as server:
        client = server.client(0)
        written = 0
        for day, total in DAYS:
            pipe = client.pipeline(transaction=False)
            for event in range(written + 1, total + 1):
                pipe.execute_command("SET", f"audit:event:{event}", '{"action": "login"}')
            pipe.execute()
            written = total
            client.execute_command("SAVE")
            shutil.copy(server.dump_path, out / f"{day}.rdb")
    for day, _total in DAYS:
        assert invoke("report", out / f"{day}.rdb", "--out", out / "ds", "--instance", "a", "--date", day,
                      "--extend-select", "GRO001", "-f", "json").exit_code == 0
    (out / "rdbscope.toml").write_text('extend_select = ["GRO001"]\n')
    return out


def test_diff_confirms_the_growing_ids_of_the_later_dump(days):
    partitions = days / "ds" / "instance=a"
    for old, new in ((days / "2030-01-01.rdb", days / "2030-01-02.rdb"),
                     (partitions / "date=2030-01-02", partitions / "date=2030-01-03")):
        result = json.loads(invoke("diff", old, new, "--config", days / "rdbscope.toml", "-f", "json").stdout)
        (row,) = result["patterns"]
        assert (row["change"], row["leak"], row["pattern"]) == ("grew", "GRO001", "audit:event:{id}")
    assert row["n_keys_delta"] == DAYS[2][1] - DAYS[1][1]
    result = json.loads(invoke("diff", days / "2030-01-01.rdb", days / "2030-01-02.rdb", "-f", "json").stdout)
    assert result["patterns"][0]["leak"] == ""  # GRO001 not selected: nothing to confirm


def test_trend_shows_the_pattern_growing_every_day(days):
    table = pivot_trend(trend_rows(days / "ds"), "n_keys").set_index("pattern")
    assert [table.loc["audit:event:{id}", day] for day, _ in DAYS] == [total for _, total in DAYS]
    assert table.loc["audit:event:{id}", "grew_each_date"]
    row = next(line for line in invoke("trend", days / "ds").stdout.splitlines() if "audit:event" in line)
    assert "│ yes " in row
