"""--memory-budget: a dump over the budget is analysed in bounded memory, and says what it left out."""

import gzip
import json
import re
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT, SAMPLE_DUMPS
from typer.testing import CliRunner

import rdbscope
from rdbscope.cli import app
from rdbscope.sizes import parse_size

DUMP = SAMPLE_DUMPS / "redis-7.0-default.rdb"


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args], terminal_width=200)


def one_line_error(result):
    assert result.exit_code == 2, (result.exit_code, result.output)
    (line,) = result.stderr.splitlines()
    return line


@pytest.mark.parametrize("command", ["report", "patterns", "bigkeys", "ttl", "expiry", "lint"])
def test_the_help_offers_a_budget(command):
    text = " ".join(invoke(command, "--help").stdout.split())
    assert "--memory-budget SIZE Memory the analysis may use" in text
    shown = re.search(r"\[default: \(1 GB, at most half the available memory: ([0-9.]+ [KMG]B) here now\)\]",
                      text)
    assert shown, text  # the figure itself moves with what the machine has free
    assert parse_size(shown.group(1)) > 0


def test_a_report_is_read_chunk_by_chunk_and_gives_the_in_memory_analysis():
    result = invoke("report", DUMP, "--format", "json", "--memory-budget", "100KB")
    assert result.exit_code == 0, result.output
    assert "note:" not in result.stderr  # chunks are how every dump is read: nothing was left out
    document = json.loads(result.stdout)
    bounded = rdbscope.analyze(DUMP, memory_budget="100KB")
    in_memory = rdbscope.analyze(rdbscope.load(DUMP))
    overview = document["overview"]
    assert overview["n_keys"] == in_memory.n_keys == 2073
    assert overview["n_patterns"] == in_memory.tables["patterns"].num_rows
    assert overview["n_with_ttl"] == 639 and overview["n_dbs"] == 3
    top = [row["pattern"] for row in document["patterns"]]
    assert top == bounded.tables["patterns"]["pattern"].to_pylist()[:10]
    assert top == in_memory.tables["patterns"]["pattern"].to_pylist()[:10]
    in_memory_doc = json.loads(invoke("report", DUMP, "--format", "json", "--memory-budget", "1GB").stdout)
    assert document["expiry"] == in_memory_doc["expiry"] and len(document["expiry"]["bursts"]) == 1
    in_memory_findings = [(f["code"], f["pattern"], f["n_keys"]) for f in in_memory_doc["findings"]]
    assert [(f["code"], f["pattern"], f["n_keys"]) for f in document["findings"]] == in_memory_findings
    assert {f["code"][:3] for f in document["findings"]} == {"BIG", "TTL", "EXP", "NAM", "CLU", "ENC"}


def test_a_report_within_the_budget_runs_in_memory():
    result = invoke("report", DUMP, "--format", "json", "--memory-budget", "1GB")
    assert result.exit_code == 0 and "bounded" not in result.stderr
    assert any(f["code"].startswith("NAM") for f in json.loads(result.stdout)["findings"])


def test_lint_over_the_budget_runs_in_bounded_memory_and_finds_what_it_finds_in_memory():
    bounded = invoke("lint", DUMP, "--memory-budget", "100KB", "--format", "json", "--fail-on", "never")
    in_memory = invoke("lint", DUMP, "--memory-budget", "1GB", "--format", "json", "--fail-on", "never")
    assert bounded.exit_code == 0, bounded.output
    assert "note:" not in bounded.stderr
    assert json.loads(bounded.stdout)["findings"] == json.loads(in_memory.stdout)["findings"]
    assert len(json.loads(bounded.stdout)["findings"]) > 10
    assert json.loads(bounded.stdout)["not_run"] == json.loads(in_memory.stdout)["not_run"] == []
    growth = invoke("lint", DUMP, "--memory-budget", "100KB", "--preset", "growth", "--fail-on", "never")
    assert "not run: GRO001 (they need every key in memory, about 3.3 MB, more than the memory budget of " \
           "100 KB)" in growth.stderr
    growth_json = invoke("lint", DUMP, "--memory-budget", "100KB", "--preset", "growth", "--format", "json",
                         "--fail-on", "never")
    document = json.loads(growth_json.stdout)
    assert document["not_run"] == ["GRO001"] and "GRO001" not in document["rules"]
    # GRO001 reads a dump that fits the budget whole
    whole = invoke("lint", DUMP, "--memory-budget", "1GB", "--preset", "growth", "--format", "json",
                   "--fail-on", "never")
    assert json.loads(whole.stdout)["not_run"] == [] and "GRO001" in json.loads(whole.stdout)["rules"]


def test_the_expiry_command_over_the_budget_prints_what_it_prints_in_memory():
    bounded = invoke("expiry", DUMP, "--memory-budget", "100KB", "--format", "json")
    in_memory = invoke("expiry", DUMP, "--memory-budget", "1GB", "--format", "json")
    assert bounded.exit_code == 0, bounded.output
    assert json.loads(bounded.stdout) == json.loads(in_memory.stdout)
    assert "EXP001" in bounded.stdout


@pytest.mark.parametrize("bad", ["lots", "-2GB", "0"])
def test_a_budget_that_is_not_a_size_is_one_line(bad):
    line = one_line_error(invoke("patterns", DUMP, "--memory-budget", bad))
    assert "--memory-budget" in line and "memory" in line


def expanding_dump(path, n_keys, open_packed):
    """A valid dump of ``n_keys`` copies of one small string key, packed by ``open_packed``: each copy is
    the same 52 bytes, so the packed file is hundreds (gzip, LZ4) to tens of thousands (zstd) of times
    smaller than the dump."""
    record = b"\x00" + bytes([40]) + b"session:00000000-0000-0000-0000-00000000" + bytes([10]) + b"0123456789"
    block = record * 20_000
    with open_packed(path) as out:
        out.write(b"REDIS0011\xfe\x00")
        for _ in range(n_keys // 20_000):  # n_keys: a multiple of 20,000
            out.write(block)
        out.write(b"\xff" + bytes(8))  # a checksum of 0: not computed, as with rdbchecksum no
    return path


def peak_rss_of(*command):
    """Peak resident bytes of ``command`` run in a process of its own (the wrapper measures its child alone)."""
    import subprocess
    import sys

    measure = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:], capture_output=True); "
               "sys.stdout.write(f'{done.returncode} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}')")
    done = subprocess.run([sys.executable, "-c", measure, sys.executable, "-m", "rdbscope", *map(str, command)],
                          capture_output=True, text=True, timeout=300, check=True)
    code, kib = done.stdout.split()
    return int(code), int(kib) * 1024


@pytest.mark.slow
@pytest.mark.parametrize("suffix", ["gz", "zst", "lz4"])
def test_a_compressed_dump_that_expands_a_thousandfold_stays_within_the_budget(tmp_path, suffix):
    """A compressed dump's size says nothing of its keys: it is read in memory only while its table fits
    the budget, then chunk by chunk, whatever it expands to."""
    import gzip

    import lz4.frame
    import zstandard

    openers = {"gz": lambda p: gzip.open(p, "wb", compresslevel=9),
               "zst": lambda p: zstandard.open(p, "wb"),
               "lz4": lambda p: lz4.frame.open(p, "wb")}
    n_keys = 8_000_000  # 416 MB expanded: in memory, a table and analysis of over 2 GB
    packed = expanding_dump(tmp_path / f"sessions.rdb.{suffix}", n_keys, openers[suffix])
    expanded = n_keys * 52
    assert packed.stat().st_size * 200 < expanded  # gzip about 340x, LZ4 about 250x, zstd far more
    code, peak = peak_rss_of("report", packed, "--format", "json", "--memory-budget", "1GB", "--quiet")
    assert code == 0
    assert peak < 1000**3, f"peak {peak / 1e6:.0f} MB over the 1GB budget"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("prlimit") is None, reason="prlimit (util-linux) is not installed")
def test_an_allocation_that_fails_is_one_line_naming_the_dump_and_the_budget(tmp_path):
    """The process may have less memory than the budget assumes (a container's limit): here an address-space
    limit (prlimit --as, as ulimit -v) far below half the machine's memory, and a 10 MB gzip of a generated
    dump of a million keys, which the estimate (a ratio of 4) takes for less than it is."""
    dump = tmp_path / "gen.rdb"
    subprocess.run([sys.executable, str(ROOT / "bench" / "make_rdb.py"), "--keys", "1000000", "--out", str(dump)],
                   check=True, capture_output=True, timeout=120)
    backup = tmp_path / "gen.rdb.gz"
    with open(dump, "rb") as plain, gzip.open(backup, "wb", compresslevel=1) as packed:
        shutil.copyfileobj(plain, packed)
    dump.unlink()
    result = subprocess.run([shutil.which("prlimit"), "--as=600000000", sys.executable, "-m", "rdbscope", "report",
                             str(backup), "--quiet"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 2, result.stderr
    assert re.fullmatch(r"error: gen\.rdb\.gz: out of memory within the memory budget of [0-9.]+ ?[KMGT]i?B \(this "
                        r"process may have less: a container's limit, ulimit -v\): give a smaller --memory-budget\n",
                        result.stderr), result.stderr
    assert result.stdout == ""
