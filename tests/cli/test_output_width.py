"""How wide the terminal output is: a pipe gets 120 columns (or COLUMNS), prose wraps between words,
tables fit the width they are given, on a terminal (a pseudo-terminal of 80 or 120 columns) as in a pipe."""

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios

import pytest
from conftest import SAMPLE_DUMPS
from typer.testing import CliRunner

from rdbscope.cli import _console, app

ROOT = SAMPLE_DUMPS.parent
SAMPLE = SAMPLE_DUMPS / "redis-8.2-default.rdb"
LIBRARIES = SAMPLE_DUMPS / "libraries.rdb"
ADVICE = "--allocator=jemalloc-16"
TABLE_EDGES = {"┏": "┓", "┃": "┃", "┡": "┩", "│": "│", "└": "┘"}


@pytest.fixture
def columns(monkeypatch):
    """Set COLUMNS (None: unset) for the next command, as a user's shell would before starting it."""
    def set_columns(n):
        if n is None:
            monkeypatch.delenv("COLUMNS", raising=False)
        else:
            monkeypatch.setenv("COLUMNS", str(n))
        monkeypatch.setattr(_console.out, "_made", None)  # the next command makes its console anew

    return set_columns


def invoke(*args):
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def widest(text):
    return max(len(line) for line in text.splitlines())


def tables_are_whole(lines):
    """Every line of a boxed table ends with its right edge: nothing was cut off at the screen's edge."""
    boxed = [line.rstrip() for line in lines if line[:1] in TABLE_EDGES]
    return bool(boxed) and all(line.endswith(TABLE_EDGES[line[0]]) for line in boxed)


def memory_model_lines(text):
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("Memory model: "))
    end = next(i for i in range(first + 1, len(lines)) if lines[i].startswith("TTL: "))
    return lines[first:end]


@pytest.mark.parametrize("command", [
    ["report", SAMPLE], ["report", LIBRARIES], ["info", SAMPLE], ["lint", SAMPLE], ["expiry", SAMPLE, "--timeline"],
    ["ttl", SAMPLE], ["rule", "--all"],
])
def test_a_pipe_gets_120_columns_and_every_table_whole(columns, command):
    columns(None)
    text = invoke(*command)
    assert widest(text) <= 120
    assert "┏" not in text or tables_are_whole(text.splitlines())


def test_columns_sets_the_width_of_a_pipe(columns):
    columns(90)
    text = invoke("report", SAMPLE)
    assert widest(text) <= 90 and tables_are_whole(text.splitlines())
    columns(200)
    assert widest(invoke("report", SAMPLE)) > 120  # the findings' messages spread out


def test_the_memory_model_wraps_between_words_keeping_its_advice(columns):
    columns(None)
    description = invoke("info", SAMPLE, "--format", "json")
    model = re.search(r'"model": "([^"]+)"', description).group(1)
    for width in (None, 80):
        columns(width)
        lines = memory_model_lines(invoke("report", SAMPLE))
        assert len(lines) > 1 and max(map(len, lines)) <= (width or 120)
        assert " ".join(lines) == f"Memory model: {model}"
        assert any(ADVICE in line for line in lines)


def test_a_real_pipe_is_120_columns_wide():
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    done = subprocess.run([sys.executable, "-m", "rdbscope", "report", str(SAMPLE)], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert widest(done.stdout) == 120 and tables_are_whole(done.stdout.splitlines())
    assert any(ADVICE in line for line in memory_model_lines(done.stdout))


def test_rule_all_on_80_columns_puts_each_summary_under_its_code(columns):
    columns(120)
    wide = invoke("rule", "--all").splitlines()
    assert wide[0].split() == ["code", "name", "severity", "on", "summary"]
    rows = [line.split() for line in wide[1:] if re.match(r"[A-Z]{3}\d{3} ", line)]
    columns(80)
    narrow = invoke("rule", "--all")
    assert widest(narrow) <= 80 and "…" not in narrow
    heads = [line.split() for line in narrow.splitlines() if re.match(r"[A-Z]{3}\d{3} ", line)]
    assert [(h[0], h[1]) for h in heads] == [(r[0], r[1]) for r in rows]
    assert "NAM007  key-over-recommended-length  info, on: short-keys\n" \
           "        Keys longer than the recommended 30 bytes (opt-in: preset short-keys).\n" in narrow


def on_a_terminal(width, *args):
    """What ``rdbscope ARGS`` shows on a terminal (a pseudo-terminal) ``width`` columns wide, as lines of the
    screen: colours and styles dropped."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, width, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    env["TERM"] = "xterm-256color"
    process = subprocess.Popen([sys.executable, "-m", "rdbscope", *map(str, args)], stdin=slave, stdout=slave,
                               stderr=subprocess.DEVNULL, cwd=ROOT, env=env)
    os.close(slave)
    shown = b""
    try:
        while select.select([master], [], [], 120)[0]:
            try:
                chunk = os.read(master, 1 << 16)
            except OSError:  # EIO: the command ended and closed the terminal
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(master)
        process.wait(timeout=30)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)", "", shown.decode())
    return text.replace("\r\n", "\n").splitlines()


@pytest.mark.parametrize("width", [80, 120])
def test_on_a_terminal_words_and_tables_stay_whole(width):
    screen = on_a_terminal(width, "report", SAMPLE)
    assert widest("\n".join(screen)) <= width and tables_are_whole(screen)
    model = memory_model_lines("\n".join(screen))
    assert any(ADVICE in line for line in model)
    assert all(not line.endswith(("-", "'")) for line in model)  # no word cut at the edge
    # The summary's two tables side by side on 120 columns; one under the other on 80, headers whole.
    header = "type      keys     memory       avg   largest key              its size"
    beside = [line for line in screen if line.startswith(header)]
    assert len(beside) == 1
    assert ("pattern" in beside[0]) == (width == 120)
