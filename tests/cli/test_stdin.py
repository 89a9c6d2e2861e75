"""`-` reads the dump from standard input: through real pipes from other processes."""

import gzip
import json
import subprocess
import sys

import pytest
from conftest import assert_same_but_values

from tests.conftest import ROOT, SAMPLE_DUMPS

DUMP = SAMPLE_DUMPS / "redis-6.2-default.rdb"


def piped(producer, *args):
    """Run ``rdbscope ARGS`` reading what ``producer`` (a command) writes to a pipe."""
    feeder = subprocess.Popen(producer, stdout=subprocess.PIPE, cwd=ROOT)
    try:
        return subprocess.run([sys.executable, "-m", "rdbscope", *map(str, args)], stdin=feeder.stdout,
                              capture_output=True, text=True, cwd=ROOT, timeout=180)
    finally:
        feeder.stdout.close()
        feeder.wait()


def run(*args, timeout=180, **kwargs):
    return subprocess.run([sys.executable, "-m", "rdbscope", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout, **kwargs)


@pytest.mark.slow
def test_cat_into_report_gives_the_files_report():
    result = piped(["cat", DUMP], "report", "-", "--format", "json", "--quiet")
    assert result.returncode == 0, result.stderr
    local = run("report", DUMP, "--format", "json", "--quiet")
    piped_report, file_report = json.loads(result.stdout), json.loads(local.stdout)
    assert piped_report["overview"].pop("source") == "<stdin>"
    file_report["overview"].pop("source")
    assert piped_report["overview"]["n_keys"] == 2073
    assert_same_but_values(piped_report, file_report)


@pytest.mark.slow
def test_gzip_into_patterns_gives_the_files_patterns():
    result = piped(["gzip", "-c", DUMP], "patterns", "-", "--format", "json", "--top", "1000")
    assert result.returncode == 0, result.stderr
    local = run("patterns", DUMP, "--format", "json", "--top", "1000")
    assert_same_but_values(json.loads(result.stdout), json.loads(local.stdout))
    assert len(json.loads(result.stdout)) == 80


@pytest.mark.slow
@pytest.mark.parametrize("command", ["bigkeys", "ttl", "expiry", "lint"])
def test_every_analysis_command_reads_a_pipe(command):
    result = piped(["cat", DUMP], command, "-", "--format", "json", "--fail-on", "never")
    local = run(command, DUMP, "--format", "json", "--fail-on", "never")
    assert result.returncode == local.returncode == 0, result.stderr
    piped_output, file_output = json.loads(result.stdout), json.loads(local.stdout)
    if command == "lint":  # it names what it linted
        assert (piped_output.pop("source"), file_output.pop("source")) == ("<stdin>", str(DUMP))
    assert piped_output == file_output


@pytest.mark.slow
def test_info_and_scan_read_a_pipe(tmp_path):
    result = piped(["gzip", "-c", DUMP], "info", "-", "--format", "json")
    assert result.returncode == 0, result.stderr
    info = json.loads(result.stdout)
    assert (info["path"], info["compression"], info["n_keys"]) == ("<stdin>", "gzip", 2073)
    out = tmp_path / "keys.parquet"
    result = piped(["cat", DUMP], "scan", "-", "-o", out, "--quiet")
    assert result.returncode == 0, result.stderr
    import pyarrow.parquet as pq

    assert pq.read_metadata(out).num_rows == 2073


def test_a_dump_cut_short_on_the_pipe_is_one_line_and_exit_2():
    half = DUMP.read_bytes()[: DUMP.stat().st_size // 2]
    result = run("report", "-", input=gzip.compress(half).decode("latin-1"), encoding="latin-1")
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: <stdin>: offset "), result.stderr


@pytest.mark.slow
def test_standard_input_twice_is_refused():
    result = run("report", "-", "-", input="")
    assert (result.returncode, result.stderr) == (2, "error: standard input (-) can be read only once\n")


@pytest.mark.slow
def test_a_missing_or_unreadable_local_dump_is_still_one_line(tmp_path):
    result = run("patterns", tmp_path / "nope.rdb")
    assert (result.returncode, result.stderr) == (2, f"error: {tmp_path / 'nope.rdb'}: no such file\n")
    result = run("info", tmp_path)
    assert (result.returncode, result.stderr) == (2, f"error: {tmp_path}: a directory, not a dump\n")


@pytest.mark.slow
def test_a_terminal_on_standard_input_is_refused_at_once():
    import os

    primary, secondary = os.openpty()
    try:
        result = run("report", "-", stdin=secondary, timeout=60)
    finally:
        os.close(primary)
        os.close(secondary)
    assert (result.returncode, result.stderr) == (
        2, "error: - reads the dump from standard input, which is a terminal here: pipe a dump in\n")


@pytest.mark.slow
def test_diff_reads_one_side_from_a_pipe():
    old, new = SAMPLE_DUMPS / "redis-7.0-default.rdb", SAMPLE_DUMPS / "redis-8.2-default.rdb"
    result = piped(["cat", old], "diff", "-", new, "--format", "json")
    local = run("diff", old, new, "--format", "json")
    assert result.returncode == local.returncode == 0, result.stderr
    piped_diff, file_diff = json.loads(result.stdout), json.loads(local.stdout)
    assert (piped_diff["old"].pop("source"), file_diff["old"].pop("source")) == ("<stdin>", old.name)
    assert piped_diff == file_diff
    assert piped_diff["memory_change"]["memory_bytes_delta"] != 0
    result = run("diff", "-", "-", input="")
    assert (result.returncode, result.stderr) == (2, "error: standard input (-) can be read only once\n")
