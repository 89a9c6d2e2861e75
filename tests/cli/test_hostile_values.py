"""Valid dumps with hostile values (issue 29, items 10 and 11): expiries in the year 9999, at 2**62 ms and at
2**63-1 ms, written by a real Redis 7.0; a ctime or redis-ver out of range and expiries before the year 1,
edited into such a dump byte-exactly (see tests/hostile_dumps.py). Every command runs on them through the
CLI under a time limit and says something true, with exit 0 or 1, never a traceback."""

import contextlib
import json
import signal

import hostile_dumps
import numpy as np
import pyarrow.dataset as ds
import pytest
from typer.testing import CliRunner

from rdbscope.cli import app
from rdbscope.keyspace.grouping import SortedGroups

pytestmark = pytest.mark.slow  # each writes its dumps with a real server

#: Seconds any one command may take on a 121-key dump (the hang of item 10 never ended).
TIME_LIMIT_S = 60
#: How each sentinel prints as an expiry: the real date, years past 9999 included.
SHOWN = {
    "year-9999": "9999-12-31T23:59:59Z",
    "2-pow-62-ms": "146140482-04-24T15:36:27.904Z",
    "int64-max-ms": "292278994-08-17T07:12:55.807Z",
}
BEFORE_YEAR_1_MS = -62135596800001  # 0000-12-31T23:59:59.999Z


@contextlib.contextmanager
def time_limit(seconds):
    def stop(_signum, _frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def invoke(*args):
    with time_limit(TIME_LIMIT_S):
        result = CliRunner().invoke(app, [str(a) for a in args])
    assert not isinstance(result.exception, TimeoutError), (args, result.exception)
    assert result.exit_code in (0, 1), (args, result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.output, result.output
    return result


@pytest.fixture(scope="module")
def dumps(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    paths = {}
    for name, (command, when) in hostile_dumps.SENTINELS.items():
        paths[name] = folder / f"{name}.rdb"
        paths[name].write_bytes(hostile_dumps.server_dump(command, when))
    return paths


def test_merged_quantiles_of_63_bit_values_end():
    """The binary search of merged_quantiles took (low + high) // 2, which wraps around in int64 once low
    passes 2**62 with one or two groups (63 bits of value): it never ended."""
    values = np.array([1, 1 << 62, (1 << 63) - 1, 3600], np.uint64)
    groups = np.array([0, 0, 1, 1], np.int64)
    sorted_groups = SortedGroups.build(groups, values, 2)
    with time_limit(10):
        merged = sorted_groups.merged_quantiles([np.array([0, 1])], [0.5, 1.0])
    # 63 bits are kept with two groups: the largest value sorts as 2**63-1 (see SortedGroups.build).
    assert merged.tolist() == [[3600, (1 << 63) - 1]]


@pytest.mark.parametrize("name", list(hostile_dumps.SENTINELS))
def test_every_command_ends_and_shows_the_real_expiry(dumps, name, tmp_path):
    dump = dumps[name]
    for command in ("info", "ttl", "expiry", "patterns", "lint"):
        invoke(command, dump)
    assert "never" in invoke("ttl", dump).output
    assert "never" in invoke("patterns", dump).output
    shown = SHOWN[name]
    table = invoke("bigkeys", "--top", 500, dump).output
    in_table = shown.replace("T", " ") if name == "year-9999" else shown  # a datetime prints with a space
    assert in_table in next(line for line in table.splitlines() if " never " in line)
    rows = json.loads(invoke("bigkeys", "--top", 500, "--format", "json", dump).output)
    assert {row["key"]: row["expire_at"] for row in rows}["never"] == shown
    assert f"never,never,string,embstr,56,18,1,{shown}," in invoke("bigkeys", "--top", 500, "--format", "csv",
                                                                   dump).output
    for command in ("ttl", "bigkeys", "report"):  # the chunked path
        invoke(command, "--memory-budget", "1MB", dump)
    html, out = tmp_path / "report.html", tmp_path / "dataset"
    invoke("report", "--html", html, "--out", out, "--keys", dump)
    assert "never" in html.read_text()
    keys = ds.dataset(next(out.rglob("keys.parquet")), format="parquet").to_table(
        filter=ds.field("key") == b"never", columns=["expire_at"])
    assert keys["expire_at"].cast("int64").to_pylist() == [hostile_dumps.SENTINELS[name][1]
                                                           * (1000 if name == "year-9999" else 1)]


@pytest.mark.parametrize(("expire_ms", "shown"), [(BEFORE_YEAR_1_MS, "0000-12-31T23:59:59.999Z"),
                                                  (-(1 << 63), f"{-(1 << 63)} ms since the epoch")])
def test_an_expiry_before_the_year_1_is_an_expired_key(dumps, tmp_path, expire_ms, shown):
    """No server writes it (it deletes such a key): the 9999 expiry of a real dump, edited. -2**63 was the
    scanner's mark of "no expiry", and such a key was counted as one without TTL."""
    dump = tmp_path / "before-year-1.rdb"
    dump.write_bytes(hostile_dumps.with_expiry(dumps["year-9999"].read_bytes(), 253402300799000, expire_ms))
    rows = json.loads(invoke("bigkeys", "--top", 500, "--format", "json", dump).output)
    assert {row["key"]: row["expire_at"] for row in rows}["never"] == shown
    ttl = json.loads(invoke("ttl", "--format", "json", dump).output)
    assert [row["n_expired"] for row in ttl["patterns"] if row["pattern"] == "never"] == [1]
    for command in ("info", "expiry", "patterns", "lint", "report"):
        invoke(command, dump)


@pytest.mark.parametrize("ctime", [str(1 << 64), str((1 << 63) - 1), str(-(1 << 63)), "-1"])
def test_a_ctime_out_of_range_is_shown_raw_and_the_analysis_goes_on_without_it(dumps, ctime, tmp_path):
    """No server writes it: the ctime of a real dump, rewritten."""
    dump = tmp_path / "ctime.rdb"
    dump.write_bytes(hostile_dumps.with_aux(dumps["year-9999"].read_bytes(), b"ctime", ctime.encode()))
    assert f"{ctime} (out of range)" in invoke("info", dump).output
    for command in ("ttl", "expiry", "patterns", "lint", "bigkeys"):
        invoke(command, dump)
    invoke("report", "--html", tmp_path / "report.html", dump)
    dated = CliRunner().invoke(app, ["report", "--out", str(tmp_path / "dataset"), str(dump)])
    assert dated.exit_code == 2 and f"ctime AUX field ({ctime[:40]}) is not a time" in dated.output
    assert len(dated.output.strip().splitlines()) == 1
    invoke("report", "--out", tmp_path / "dataset", "--date", "2026-11-27", dump)


@pytest.mark.parametrize("field", [b"redis-ver"])
@pytest.mark.parametrize("version", [str(1 << 64), str((1 << 63) - 1), f"{1 << 64}.1.1", "256.0.0"])
def test_a_writer_version_out_of_range_is_no_version(dumps, field, version, tmp_path):
    """No server writes it: the redis-ver of a real dump, rewritten; the memory model says it is no version."""
    dump = tmp_path / "version.rdb"
    dump.write_bytes(hostile_dumps.with_aux(dumps["year-9999"].read_bytes(), field, version.encode()))
    assert f"{field.decode()} {version} is not a version" in " ".join(invoke("info", dump).output.split())
    for command in ("ttl", "expiry", "patterns", "lint", "bigkeys", "report"):
        invoke(command, dump)


@pytest.mark.parametrize("expire_ms", [-(1 << 63), (1 << 63) - 1])
def test_without_a_ctime_the_expiry_counts_from_an_expiry_at_either_end_of_int64(dumps, expire_ms, tmp_path):
    """Without a usable ctime the expiry pass counts from the earliest expiry: -2**63, less its milliseconds,
    did not fit in an int64. No server writes either edit."""
    data = hostile_dumps.with_expiry(dumps["year-9999"].read_bytes(), 253402300799000, expire_ms)
    dump = tmp_path / "no-ctime.rdb"
    dump.write_bytes(hostile_dumps.with_aux(data, b"ctime", str(1 << 64).encode()))
    for args in (["expiry"], ["expiry", "--timeline"], ["report"], ["expiry", "--memory-budget", "1MB"],
                 ["report", "--memory-budget", "1MB"]):
        invoke(*args, dump)
    ttl = json.loads(invoke("ttl", "--format", "json", dump).output)
    assert ttl["overview"][-1]["n_with_ttl"] == 1 + hostile_dumps.N_USERS
    # buckets a whole number of years wide when even years are too many (not 292 million of them)
    timeline = json.loads(invoke("expiry", "--timeline", "--top", "1000", "--format", "json", dump).output)["timeline"]
    assert len(timeline) <= 401 and timeline[-1]["n_keys_cumulative"] >= hostile_dumps.N_USERS
