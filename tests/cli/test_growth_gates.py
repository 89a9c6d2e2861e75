"""diff and trend --fail-on-growth (trend also takes its older --fail-if-growth) on dumps of different sizes."""

import json
import shutil

import pytest
import servers
from conftest import SAMPLE_DUMPS
from typer.testing import CliRunner

import rdbscope
from rdbscope.cli import app
from rdbscope.report.views import overview

SMALLER = SAMPLE_DUMPS / "redis-8.2-default.rdb"
LARGER = SAMPLE_DUMPS / "redis-7.0-default.rdb"


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def memory():
    """Each dump's total memory, as its own analysis says: {path: bytes}."""
    return {path: overview(rdbscope.analyze(path)).memory_bytes for path in (SMALLER, LARGER)}


def test_diff_says_the_total_memory_change_in_json_and_in_the_header(memory):
    old, new = memory[SMALLER], memory[LARGER]
    assert new - old == 22748  # the two samples differ by 22.2 KB, 1.8498% of the smaller
    result = invoke("diff", SMALLER, LARGER, "--format", "json")
    assert json.loads(result.stdout)["memory_change"] == {
        "memory_bytes_old": old, "memory_bytes_new": new, "memory_bytes_delta": new - old,
        "memory_change_share": (new - old) / old}
    header = invoke("diff", SMALLER, LARGER, "--top", "1").stderr.splitlines()
    assert header[:3] == ["old: redis-8.2-default.rdb: 2,092 keys, 1.2 MB",
                          "new: redis-7.0-default.rdb: 2,073 keys, 1.2 MB",
                          "memory: +22.2 KB (+1.8%)"]
    assert invoke("diff", LARGER, SMALLER, "--top", "1").stderr.splitlines()[2] == "memory: -22.2 KB (-1.8%)"


@pytest.mark.parametrize(("limit", "code"), [("1%", 1), ("1.84%", 1), ("1.85%", 0), ("20%", 0),
                                             ("20KB", 1), ("22748", 0), ("22747", 1), ("1MB", 0),
                                             # 22.2 KB printed is 22,748 bytes: 1024-based, as the limits typed
                                             ("22.2KB", 1), ("22.3KB", 0), ("22.3KiB", 0), ("22.3 kb", 0)])
def test_diff_fails_on_growth_above_the_limit(limit, code):
    result = invoke("diff", SMALLER, LARGER, "--format", "json", "--fail-on-growth", limit)
    assert result.exit_code == code, result.stderr
    said = f"total memory grew by 22.2 KB (+1.8%), more than --fail-on-growth {limit}"
    assert (said in result.stderr) == bool(code)


def test_diff_does_not_fail_when_memory_shrank():
    assert invoke("diff", LARGER, SMALLER, "--fail-on-growth", "0%").exit_code == 0


@pytest.mark.parametrize("limit", ["20 percent", "-5%", "%", "big", "0MB"])
def test_a_bad_growth_limit_is_a_usage_error(limit):
    result = invoke("diff", SMALLER, LARGER, "--fail-on-growth", limit)
    assert result.exit_code == 2 and result.stdout == ""
    (line,) = result.stderr.strip().splitlines()
    assert "'--fail-on-growth'" in line and "write e.g." in line and "Traceback" not in line


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """Instance ``grows`` goes from the smaller dump to the larger, ``shrinks`` the other way,
    ``once`` has one date only."""
    out = tmp_path_factory.mktemp("growth") / "ds"
    for instance, days in (("grows", (SMALLER, LARGER)), ("shrinks", (LARGER, SMALLER)), ("once", (LARGER,))):
        for day, path in zip(("2030-01-01", "2030-01-02"), days, strict=False):
            result = invoke("report", path, "--out", out, "--instance", instance, "--date", day, "--quiet",
                            "--format", "json")
            assert result.exit_code == 0, result.stderr
    return out


def test_trend_fails_naming_the_instance_that_grew(dataset):
    result = invoke("trend", dataset, "--fail-on-growth", "1%")
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == [
        "instance grows: total memory grew by 22.2 KB (+1.8%) from 2030-01-01 to 2030-01-02, "
        "more than --fail-on-growth 1%"]
    assert invoke("trend", dataset, "--fail-on-growth", "2%").exit_code == 0
    assert invoke("trend", dataset, "--fail-on-growth", "20KB", "--format", "json").exit_code == 1
    assert invoke("trend", dataset, "--fail-on-growth", "22.3KB", "--format", "json").exit_code == 0
    assert invoke("trend", dataset, "--instance", "shrinks", "--fail-on-growth", "0%").exit_code == 0


def test_trend_takes_the_growth_gate_by_diffs_name_and_its_older_one_unlisted(dataset):
    older = invoke("trend", dataset, "--fail-if-growth", "1%")
    assert older.exit_code == 1 and older.stderr.endswith("more than --fail-on-growth 1%\n")
    assert invoke("trend", dataset, "--fail-if-growth", "2%").exit_code == 0
    shown = invoke("trend", "--help").stdout
    assert "--fail-on-growth SIZE|PERCENT" in shown and "--fail-if-growth" not in shown


def test_trend_rejects_a_bad_growth_limit(dataset):
    result = invoke("trend", dataset, "--fail-on-growth", "lots")
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "'--fail-on-growth'" in result.stderr


@pytest.fixture(scope="module")
def grown_by_356_kb(tmp_path_factory):
    """Two dumps a Redis 7.0 wrote: 100 strings of 1,000 bytes, then 338 more (356.5 KB more memory)."""
    out = tmp_path_factory.mktemp("grown")
    with servers.make_sample_dumps.RunningServer(servers.server("redis-7.0"), {"save": ""}) as server:
        client = server.client(0)
        for first, end, name in ((0, 100, "old.rdb"), (100, 438, "new.rdb")):
            for i in range(first, end):
                client.set(f"page:{i}", b"x" * 1000)
            client.execute_command("SAVE")
            shutil.copy(server.dump_path, out / name)
    return out / "old.rdb", out / "new.rdb"


@pytest.mark.slow
def test_a_size_typed_reads_as_the_sizes_printed_1024_based(grown_by_356_kb):
    old, new = grown_by_356_kb
    within = invoke("diff", old, new, "--fail-on-growth", "360KB")
    assert within.exit_code == 0, within.stderr
    assert "memory: +356.5 KB" in within.stderr and "more than" not in within.stderr
    assert invoke("diff", old, new, "--fail-on-growth", "360KiB").exit_code == 0
    over = invoke("diff", old, new, "--fail-on-growth", "356KB", "--format", "json")
    assert over.exit_code == 1
    assert over.stderr.strip() == "total memory grew by 356.5 KB (+338.3%), more than --fail-on-growth 356KB"
    assert json.loads(over.stdout)["memory_change"]["memory_bytes_delta"] == 365_040  # 356.5 * 1024 bytes
