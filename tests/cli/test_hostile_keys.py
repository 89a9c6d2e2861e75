"""A hostile keyspace written by a real server, through the CLI: every output shows each key as one text that
reads back to its bytes, acts on no terminal, turns no name into emoji, and stays bounded by a 1 MiB name."""

import csv
import io
import json
import re
import time

import pytest
from conftest import SAMPLE_DUMPS
from hostile_keyspace import BIDI, HIGH_BYTE, LITERAL_ESCAPE, LONG, write_hostile_dump
from prometheus_client.openmetrics.parser import text_string_to_metric_families
from typer.testing import CliRunner

import rdbscope
from rdbscope.cli import app
from rdbscope.rdb.keytext import SHOWN_CHARS, SPOOFING, key_bytes

pytestmark = [pytest.mark.server, pytest.mark.slow]  # each writes its dumps with a real server
runner = CliRunner()
#: What no output may hold raw: C0 controls but the newline, DEL, C1 controls, bidi and zero-width characters.
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f" + "".join(map(chr, sorted(SPOOFING))) + "]")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """``(dump path, the keys the server listed)``."""
    path = tmp_path_factory.mktemp("hostile") / "hostile.rdb"
    return path, write_hostile_dump(path)


def invoke(*args):
    result = runner.invoke(app, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result


def test_json_keys_read_back_to_exactly_the_keys_the_server_listed(hostile):
    dump, listed = hostile
    rows = json.loads(invoke("bigkeys", dump, "--format", "json", "--top", len(listed) + 10, "--quiet").stdout)
    assert {key_bytes(r["key"]) for r in rows} == listed and len(rows) == len(listed)
    shown = {r["key"] for r in rows}
    assert "bin:\\xff:1" in shown and "bin:\\\\xff:1" in shown  # 0xFF and the four characters \xff


def test_a_high_byte_and_a_literal_backslash_escape_are_two_patterns(hostile):
    dump, _ = hostile
    rows = json.loads(invoke("patterns", dump, "--format", "json", "--quiet").stdout)
    counts = {r["pattern"]: r["n_keys"] for r in rows}
    assert counts["bin:\\xff:{id}"] == len(HIGH_BYTE) and counts["bin:\\\\xff:{id}"] == len(LITERAL_ESCAPE)


def test_csv_escapes_control_and_bidi_characters_and_reads_back_exactly(hostile):
    dump, listed = hostile
    text = invoke("bigkeys", dump, "--format", "csv", "--top", len(listed) + 10, "--quiet").stdout
    assert not RAW_CONTROL.search(text)
    csv.field_size_limit(len(text))  # the 1 MiB name is whole in CSV
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {key_bytes(r["key"]) for r in rows} == listed
    shown = {r["key"] for r in rows}
    assert "\\x1b]0;pwned\\x07:title" in shown and "nul:\\x00:key" in shown and "bidi:\\u202egnp.exe" in shown


@pytest.mark.slow  # a whole report (or two lint runs)
def test_terminal_report_shows_names_verbatim_escaped_and_cut(hostile, monkeypatch):
    dump, _ = hostile
    from rdbscope.cli import _console

    monkeypatch.setenv("COLUMNS", "1000")  # wide enough that no table cell folds a cut name
    monkeypatch.setattr(_console.out, "_made", None)  # the command makes its console anew
    result = invoke("report", dump)
    out = result.stdout
    assert not RAW_CONTROL.search(out) and "🔑" not in out and "✉" not in out
    summary = out[:out.index("Largest savings")]
    assert "big:key:45386" in summary and "bull:email:events" in summary  # the summary's largest key and pattern
    assert "bidi:\\u202egnp.exe" in out and "\\x1b[2J\\x1b[H:clear" in out
    assert "long:word:word:" in out and len(out) < 200_000  # 1.3 MB of one name before
    assert max(len(run) for run in re.findall(r"[^\s─━│┃┏┳┓┡╇┩└┴┘]+", out)) == SHOWN_CHARS


def test_an_error_line_names_the_key_verbatim(hostile, tmp_path):
    dump, _ = hostile
    table = rdbscope.load(dump).table
    row = table["key"].to_pylist().index(b"big:key:45386")
    cut = tmp_path / "cut.rdb"
    cut.write_bytes(dump.read_bytes()[:table["offset"][row].as_py() + 30])
    result = runner.invoke(app, ["report", str(cut)])
    assert result.exit_code == 2
    assert "key 'big:key:45386'" in result.stderr and "🔑" not in result.stderr


@pytest.mark.slow  # a whole report (or two lint runs)
def test_openmetrics_labels_are_escaped_and_cut(hostile):
    dump, _ = hostile
    text = invoke("report", dump, "--format", "openmetrics", "--quiet").stdout
    assert not RAW_CONTROL.search(text) and len(text) < 20_000  # 3 MB with the name whole
    patterns = {s.labels["pattern"] for family in text_string_to_metric_families(text) for s in family.samples
                if "pattern" in s.labels}
    assert {"bin:\\xff:{id}", "bin:\\\\xff:{id}", "bidi:\\u202egnp.exe", "big:key:{id}"} <= patterns
    assert max(len(p) for p in patterns) == SHOWN_CHARS and any(p.startswith("long:word:") for p in patterns)


@pytest.mark.slow  # a whole report (or two lint runs)
def test_html_report_is_escaped_and_bounded(hostile, tmp_path):
    dump, _ = hostile
    page = tmp_path / "report.html"
    invoke("report", dump, "--html", page, "--quiet")
    text = page.read_text()
    assert not RAW_CONTROL.search(text)
    assert len(text) < 2_000_000  # 18.6 MB with 17 whole copies of the name
    assert text.count("long:word:word") <= 20 and "word:" * 300 not in text
    assert "bidi:\\u202egnp.exe" in text and "bin:\\\\xff:{id}" in text


@pytest.mark.slow  # a whole report (or two lint runs)
def test_lint_warns_of_a_bidi_override_and_costs_no_more_than_a_larger_dump(hostile):
    dump, _ = hostile
    started = time.perf_counter()
    result = invoke("lint", dump, "--format", "json", "--quiet")
    hostile_s = time.perf_counter() - started
    findings = json.loads(result.stdout)["findings"]
    bidi = [f for f in findings if f["code"] == "NAM004" and f["pattern"] == BIDI.decode()]
    assert bidi and bidi[0]["severity"] == "warning"
    assert any(f["code"] == "NAM006" and f["pattern"].startswith(LONG[:20].decode()) for f in findings)
    # Linear work: a dump of 228 keys and 2 MB of names takes no longer than many times a 2,092-key dump.
    started = time.perf_counter()
    invoke("lint", SAMPLE_DUMPS / "redis-8.2-default.rdb", "--format", "json", "--quiet")
    sample_s = time.perf_counter() - started
    assert hostile_s < 20 * sample_s + 5, (hostile_s, sample_s)
