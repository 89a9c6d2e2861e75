"""The second day with rdbscope (issue 29): units, options and the small things, through the CLI."""

import gzip
import hashlib
import importlib.metadata
import io
import json
import os
import pty
import re
import shutil
import subprocess
import sys
import time
import zlib

import pyarrow.parquet as pq
import pytest
import servers
from conftest import ROOT, SAMPLE_DUMPS
from typer.testing import CliRunner

import rdbscope
from rdbscope.cli import app

DUMP = SAMPLE_DUMPS / "redis-8.2-default.rdb"


def invoke(*args, **kwargs):
    return CliRunner().invoke(app, [str(a) for a in args], terminal_width=200, **kwargs)


def test_a_byte_threshold_in_the_config_takes_a_size_read_1024_based(tmp_path):
    config = tmp_path / "rdbscope.toml"
    config.write_text('[bigkeys]\nmemory_bytes = "250KB"\n')  # 256,000 bytes: the 261,464-byte list is over it
    result = invoke("bigkeys", DUMP, "--format", "json", "--config", config)
    assert result.exit_code == 0, result.output
    flagged = {row["key"]: row["memory_bytes"] for row in json.loads(result.stdout) if "BIG004" in row["codes"]}
    assert flagged == {"feed:{user42}:timeline": 261_464}
    config.write_text('[bigkeys]\nmemory_bytes = "255.4 KiB"\n')  # 261,529 bytes: over that list
    result = invoke("bigkeys", DUMP, "--format", "json", "--config", config)
    assert not [row for row in json.loads(result.stdout) if "BIG004" in row["codes"]]
    config.write_text('[bigkeys]\nmemory_bytes = "lots"\n')
    result = invoke("bigkeys", DUMP, "--config", config)
    assert result.exit_code == 2
    assert result.stderr.strip() == (f"error: {config}: [bigkeys] memory_bytes: not a size: 'lots' "
                                     "(write e.g. 512MB, 2GB or 1.5GiB; 1KB is 1024 bytes)")


def test_a_memory_budget_reads_and_prints_1024_based_with_a_space():
    growth = ("lint", DUMP, "--preset", "growth", "--fail-on", "never", "--memory-budget")
    result = invoke(*growth, "1000KB")
    assert result.exit_code == 0, result.output
    assert ("note: not run: GRO001 (they need every key in memory, about 3.5 MB, more than the memory budget "
            "of 1000 KB)") in result.stderr
    assert "the memory budget of 1000 KB" in invoke(*growth, "1000KiB").stderr


COMMANDS = ["report", "scan", "info", "patterns", "bigkeys", "ttl", "expiry", "lint", "rule", "diff", "trend"]


def helps():
    return {command: " ".join(invoke(command, "--help").stdout.split()) for command in COMMANDS}


def test_the_help_names_no_python_types_and_no_format_a_command_lacks():
    for command, text in helps().items():
        assert not re.findall(r"<[^|>]*>", text), command  # <str>, <list[str]>, <int range>, <file>: types
        offered = re.search(r"-f, --format \[([a-z|]+)\]", text)
        if offered and "csv" not in offered.group(1):
            assert "csv" not in text.replace("--csv-", ""), command
    text = helps()
    assert "-n, --db N Keep only this db" in text["report"] and "--top N Show at most" in text["report"]
    assert "--date YYYY-MM-DD Date of the --out partition" in text["report"]
    assert "Arguments: OLD A dump, a keys Parquet file" in text["diff"]
    assert "--format [table|json|sarif] table for people; json; sarif (for code-scanning tools). json is for " \
           "programs" in text["lint"]


def test_lint_alone_gates_at_a_warning_as_the_readme_says():
    defaults = {command: re.search(r"--fail-on <info\|warning\|error\|never> .*?\[default: (\w+)\]", text).group(1)
                for command, text in helps().items() if "--fail-on <" in text}
    assert {c: d for c, d in defaults.items() if d != "never"} == {"lint": "warning"}
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "(default `never`, and `warning` for `lint`, as linters do;" in readme
    assert "`--fail-on info|warning|error|never` (default `warning`)" in readme  # lint's own section
    result = invoke("lint", DUMP, "--quiet")
    assert result.exit_code == 1 and "[warning]" in result.stdout
    assert invoke("report", DUMP, "--quiet").exit_code == 0


def test_standard_input_is_called_stdin_everywhere():
    piped = DUMP.read_bytes()
    info = invoke("info", "-", input=piped)
    assert info.exit_code == 0 and info.stdout.startswith("<stdin>: REDIS RDB 12, written by redis 8.2.3")
    assert json.loads(invoke("info", "-", "--format", "json", input=piped).stdout)["path"] == "<stdin>"
    scanned = invoke("scan", "-", "-o", "/dev/null", input=piped)
    assert scanned.stderr.startswith("2,092 keys from <stdin> (REDIS RDB 12)")
    # report's own "<stdin>": tests/cli/test_stdin.py, through a real pipe


def test_scan_to_dash_writes_parquet_to_standard_output_and_no_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke("scan", DUMP, "-o", "-")
    assert result.exit_code == 0, result.stderr
    table = pq.read_table(io.BytesIO(result.stdout_bytes))
    assert table.num_rows == 2092 and table.equals(rdbscope.load(DUMP).to_arrow())
    assert result.stderr == "2,092 keys from " + str(DUMP) + " (REDIS RDB 12)\n"
    assert list(tmp_path.iterdir()) == []


def test_scan_to_dash_refuses_a_terminal(tmp_path):
    controller, terminal = pty.openpty()
    try:
        result = subprocess.run([sys.executable, "-m", "rdbscope", "scan", str(DUMP), "-o", "-"], stdout=terminal,
                                stderr=subprocess.PIPE, text=True, cwd=tmp_path, timeout=120)
    finally:
        os.close(controller)
        os.close(terminal)
    assert result.returncode == 2
    assert result.stderr.startswith("error: invalid value for '--output': '-' writes Parquet to standard output, "
                                    "which is a terminal here: pipe it into a file or a program, or name a file")
    assert list(tmp_path.iterdir()) == []


def test_rdbscope_alone_prints_its_help_on_stderr_as_a_usage_error():
    result = invoke()
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("Usage: rdbscope [OPTIONS] COMMAND [ARGS]...") and "report" in result.stderr


@pytest.mark.parametrize("command", [["report"], ["bigkeys", "--format", "csv"], ["patterns", "--format", "json"]])
def test_a_reader_that_goes_away_ends_the_run_quietly_with_0(command):
    process = subprocess.Popen([sys.executable, "-m", "rdbscope", command[0], str(DUMP), *command[1:]],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    process.stdout.close()  # as `| head -1` once it has its line: every write from here on meets a closed pipe
    stderr = process.stderr.read().decode()
    process.stderr.close()
    assert (process.wait(timeout=120), stderr) == (0, "")


@pytest.fixture(scope="module")
def sixty_second_ttls(tmp_path_factory):
    """A dump Redis 7.0 saved right after 20 keys got EXPIRE 60, late in a second: the ctime it records (the
    second, cut) is ~0.7 s before the save, so the TTLs measured from it are ~60.7 s."""
    path = tmp_path_factory.mktemp("ttl") / "ttl60.rdb"
    with servers.make_sample_dumps.RunningServer(servers.server("redis-7.0"), {"save": ""}) as server:
        client = server.client(0)
        while not 0.6 <= time.time() % 1 < 0.7:
            time.sleep(0.01)
        for i in range(20):
            client.set(f"session:{i}", b"x", ex=60)
        client.execute_command("SAVE")
        shutil.copy(server.dump_path, path)
    return path


@pytest.mark.slow
def test_a_60_second_ttl_shows_as_60_seconds(sixty_second_ttls):
    (row,) = json.loads(invoke("ttl", sixty_second_ttls, "--format", "json").stdout)["patterns"]
    assert (row["pattern"], row["ttl_s_p50"], row["ttl_s_max"]) == ("session:{id}", 60, 60)
    table = invoke("ttl", sixty_second_ttls).stdout
    assert re.search(r"│ session:\{id\} .* │ +1m │ +1m │$", table, re.MULTILINE), table


@pytest.mark.slow
def test_ttl_jitter_is_memory_at_risk_not_a_saving(tmp_path):
    html = tmp_path / "report.html"
    summary = json.loads(invoke("report", DUMP, "--format", "json", "--html", html).stdout)["summary"]
    assert not [s for s in summary["savings"] if s["code"].startswith("EXP")]
    assert [(s["code"], s["bytes"]) for s in summary["at_risk"]] == [("EXP002", 16_344), ("EXP001", 7_808)]
    text = invoke("report", DUMP).stdout
    at_risk = text.split("\nMemory at risk: expiring at once (jitter spreads it, frees none)\n")[1].splitlines()
    assert at_risk[0].startswith("1.   16.0 KB  add TTL jitter to cache:product:SKU-{*} (+2 patterns): 101 keys")
    assert "jitter" not in text.split("\nLargest savings\n")[1].split("\n\n")[0]
    page = html.read_text()
    savings, at_risk = page.split("<h3>Largest savings</h3>")[1].split("<h3>Memory at risk: expiring at once")
    assert "jitter" not in savings and "add TTL jitter to cache:product:SKU-{*}" in at_risk


@pytest.fixture(scope="module")
def letters_and_hashes(tmp_path_factory):
    """A dump Redis 7.0 wrote of a key of 300 ``a``, one of ``deadbeefcafe``, and 10 keys named by a hash."""
    path = tmp_path_factory.mktemp("hex") / "hex.rdb"
    with servers.make_sample_dumps.RunningServer(servers.server("redis-7.0"), {"save": ""}) as server:
        client = server.client(0)
        client.set("a" * 300, b"x")
        client.set("deadbeefcafe:config", b"x")
        for i in range(10):
            client.set(f"session:{hashlib.md5(str(i).encode()).hexdigest()}", b"x")
        client.execute_command("SAVE")
        shutil.copy(server.dump_path, path)
    return path


@pytest.mark.slow
def test_letters_a_to_f_alone_are_a_word_not_a_hex_id(letters_and_hashes):
    result = invoke("patterns", letters_and_hashes, "--format", "json")
    assert result.exit_code == 0, result.output
    shown = {row["pattern"]: row["n_keys"] for row in json.loads(result.stdout)}
    (letters,) = [pattern for pattern in shown if not pattern.startswith(("deadbeef", "session"))]
    assert letters.startswith("a" * 200) and "{" not in letters  # the key itself (the text may be cut)
    assert shown == {letters: 1, "deadbeefcafe:config": 1, "session:{hex}": 10}


def test_a_gzip_cut_short_says_how_far_it_got(tmp_path):
    whole = gzip.compress(DUMP.read_bytes())
    cut = len(whole) // 2
    path = tmp_path / "trunc.rdb.gz"
    path.write_bytes(whole[:cut])
    reached = len(zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(whole[:cut]))  # what gzip gives before the cut
    assert 0 < reached < len(DUMP.read_bytes())
    result = invoke("info", path)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        f"error: {path}: offset {reached}: the gzip stream is damaged at byte {cut:,} of the compressed file, "
        f"{reached:,} bytes into the dump (Compressed file ended before the end-of-stream marker was reached) "
        "while reading gzip data")


def test_what_the_readme_first_command_writes_is_ignored_by_git():
    readme = (ROOT / "README.md").read_text()
    first = re.search(r"^pip install \. && (rdbscope report .+)$", readme, re.MULTILINE).group(1)
    written = re.search(r"--html (\S+)", first).group(1)
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    ignored = subprocess.run(["git", "check-ignore", "-q", "--no-index", written], cwd=ROOT)
    assert ignored.returncode == 0, f"{written} is not ignored by .gitignore"


def test_the_notebook_command_the_readme_suggests_comes_with_the_test_extra():
    import tomllib

    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "nbconvert" not in readme  # not in the test extra: nbclient's jupyter-execute is
    command = re.search(r"`(jupyter-\w+) notebooks/explore\.ipynb`", readme).group(1)
    (script,) = importlib.metadata.entry_points(group="console_scripts", name=command)
    provider = script.dist.metadata["Name"].lower()
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    assert provider in {re.split(r"[<>=\[; ]", requirement)[0].lower() for requirement in extras}
