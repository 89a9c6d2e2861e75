"""diff and trend confirm GRO001 when a later dump of the same server holds more of the growing keys."""

import json
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
DAYS = (("2030-01-01", 1200), ("2030-01-02", 1500), ("2030-01-03", 1900))

pytestmark = [pytest.mark.server, pytest.mark.slow,
              pytest.mark.skipif(not REDIS_7, reason="Debian's redis-server 7.0 is not installed")]


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


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
                      "-f", "json").exit_code == 0
    return out


def test_diff_confirms_the_growing_ids_of_the_later_dump(days):
    result = json.loads(invoke("diff", days / "2030-01-01.rdb", days / "2030-01-02.rdb", "-f", "json").stdout)
    (row,) = result["patterns"]
    assert (row["change"], row["leak"], row["pattern"]) == ("grew", "GRO001", "audit:event:{id}")
    assert row["n_keys_delta"] == DAYS[1][1] - DAYS[0][1]


def test_trend_shows_the_pattern_growing_every_day(days):
    table = pivot_trend(trend_rows(days / "ds"), "n_keys").set_index("pattern")
    assert [table.loc["audit:event:{id}", day] for day, _ in DAYS] == [total for _, total in DAYS]
    assert table.loc["audit:event:{id}", "grew_each_date"]
    row = next(line for line in invoke("trend", days / "ds").stdout.splitlines() if "audit:event" in line)
    assert "│ yes " in row
