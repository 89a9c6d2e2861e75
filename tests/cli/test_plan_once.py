"""A run is planned once: its inputs are expanded once and their sizes read once, by the CLI and by
``analyze()`` alike (for dumps in object storage, each of those is a request to the store)."""

import gzip
import json
import shutil
from collections import Counter

import pytest
from conftest import SAMPLE_DUMPS
from typer.testing import CliRunner

import rdbscope
from rdbscope import sources
from rdbscope.cli import app
from rdbscope.scale.budget import chunk_keys_for, core_count
from rdbscope.scale.planning import BOUNDED, LARGE_DUMP_BYTES, STREAM, TABLE, plan_run

NODES = [SAMPLE_DUMPS / "redis-6.2-lfu.rdb", SAMPLE_DUMPS / "redis-6.2-lru.rdb"]


@pytest.fixture
def calls(monkeypatch):
    """How often the inputs were expanded and their sizes read, per name (the real functions run)."""
    counted = Counter()

    def counting(name, real):
        def call(path, *args, **kwargs):
            counted[(name, str(path))] += 1
            return real(path, *args, **kwargs)
        return call

    monkeypatch.setattr(sources, "_expand", counting("expand", sources._expand))
    monkeypatch.setattr(sources, "size_and_head", counting("size", sources.size_and_head))
    return counted


@pytest.fixture
def backups(tmp_path):
    for node in NODES:
        shutil.copy(node, tmp_path / node.name)
    return tmp_path


@pytest.mark.parametrize("budget", [None, "100KB"], ids=["in-memory", "bounded"])
def test_the_cli_expands_a_directory_and_reads_each_size_once(backups, calls, budget):
    args = ["report", str(backups), "--combine", "--format", "json", "--quiet"]
    result = CliRunner().invoke(app, args + (["--memory-budget", budget] if budget else []))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["overview"]["n_sources"] == 2
    assert calls[("expand", str(backups))] == 1
    for node in NODES:
        assert calls[("size", str(backups / node.name))] == 1


@pytest.mark.parametrize("budget", [None, "100KB"], ids=["in-memory", "bounded"])
def test_analyze_expands_a_glob_and_reads_each_size_once(backups, calls, budget):
    result = rdbscope.analyze(str(backups / "*.rdb"), memory_budget=budget, combine=True, passes=["patterns"])
    assert result.bounded and result.n_keys == sum(rdbscope.load(node).num_rows for node in NODES)
    assert calls[("expand", str(backups / "*.rdb"))] == 1
    assert sorted(v for (kind, _p), v in calls.items() if kind == "size") == [1, 1]


def test_the_plan_says_how_each_input_is_read(tmp_path):
    dump = SAMPLE_DUMPS / "redis-6.2-default.rdb"
    chunked = plan_run(dump)  # every dump, whatever its size
    assert chunked.mode == BOUNDED and chunked.budget <= 1024**3 and chunked.peak < chunked.budget
    assert plan_run(dump, jobs=2).jobs == 1  # the default budget is too small to share
    assert chunked.threads == plan_run(dump, jobs=2).threads == min(2, core_count())  # two chunks at once
    # a budget large enough to share: a small dump is still read in this process, two chunks at once;
    # each process of a large one measures one chunk at a time
    shared = plan_run(dump, memory_budget="8GB", jobs=2)
    assert shared.jobs == 2 and shared.threads == min(2, core_count())
    assert shared.chunk_keys == chunk_keys_for(shared.budget, 1, shared.threads)
    large = tmp_path / "large.rdb"
    large.write_bytes(dump.read_bytes())
    with open(large, "r+b") as f:
        f.truncate(LARGE_DUMP_BYTES + 1)  # sparse: its size says large (the plan reads sizes, not keys)
    assert plan_run(large, memory_budget="8GB", jobs=2).threads == 1
    bounded = plan_run(dump, memory_budget="100KB")
    assert bounded.mode == BOUNDED and bounded.chunk_keys >= 50_000 and bounded.peak > bounded.budget
    assert plan_run(dump, chunk_keys=97).mode == BOUNDED and plan_run(dump, chunk_keys=97).chunk_keys == 97
    # a check that needs every key (GRO001) reads a dump that fits whole, and one that does not in chunks
    assert plan_run(dump, every_key=True).mode == TABLE
    assert plan_run(dump, memory_budget="100KB", every_key=True).mode == BOUNDED
    compressed = tmp_path / "dump.rdb.gz"
    compressed.write_bytes(gzip.compress(dump.read_bytes()))
    assert plan_run(compressed).mode == BOUNDED
    stream = plan_run(compressed, every_key=True)
    assert stream.mode == STREAM and stream.peak is None and stream.in_memory_up_to == stream.budget
    # a plan is what analyze() takes in place of the inputs
    assert rdbscope.analyze(bounded, passes=["patterns"]).bounded
    assert rdbscope.analyze(stream, passes=["patterns"]).n_keys == rdbscope.load(dump).num_rows
