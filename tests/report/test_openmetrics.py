"""report --format openmetrics, read back by prometheus_client's own parsers and held against the analysis."""

import shutil
import sys
from collections import Counter

import pytest
from conftest import SAMPLE_DUMPS
from prometheus_client.openmetrics.parser import text_string_to_metric_families
from prometheus_client.parser import text_string_to_metric_families as prometheus_text_families
from typer.testing import CliRunner

import rdbscope
from rdbscope.cli import app
from rdbscope.report.openmetrics import OTHER
from rdbscope.report.views import overview, pattern_rows

sys.path.insert(0, str(SAMPLE_DUMPS))
import make_sample_dumps  # noqa: E402

DUMP = SAMPLE_DUMPS / "redis-8.2-default.rdb"
TOP = 5
REDIS_7 = [s for s in make_sample_dumps.discover_servers() if s.label == "redis-7.0"]


def exposition(path, *args):
    result = CliRunner().invoke(app, ["report", str(path), "--format", "openmetrics", "--quiet", *map(str, args)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def samples(text):
    """{family name: {frozenset of label items: value}} as the OpenMetrics parser reads ``text``."""
    return {family.name: {frozenset(s.labels.items()): s.value for s in family.samples}
            for family in text_string_to_metric_families(text)}


@pytest.fixture(scope="module")
def sample():
    return exposition(DUMP, "--top", str(TOP)), rdbscope.analyze(DUMP)


def test_the_totals_are_the_overviews(sample):
    text, res = sample
    o = overview(res, DUMP.name)
    got = samples(text)
    dump = frozenset({("dump", DUMP.name)})
    assert got["rdbscope_keys"] == {dump: o.n_keys} and o.n_keys == 2092
    assert got["rdbscope_keys_with_ttl"] == {dump: o.n_with_ttl}
    assert got["rdbscope_memory_bytes"] == {dump: o.memory_bytes}
    assert got["rdbscope_dump_timestamp_seconds"] == {dump: o.ctime.timestamp()}
    assert text.endswith("\n# EOF\n")


def test_the_top_patterns_and_one_other_row_per_db_add_up_to_the_patterns_table(sample):
    text, res = sample
    table = pattern_rows(res)
    top, rest = table.head(TOP), table.iloc[TOP:]
    expected = {(str(r.db), r.pattern): (r.memory_bytes_sum, r.n_keys, r.n_with_ttl / r.n_keys)
                for r in top.itertuples()}
    for db, group in rest.groupby("db"):
        expected[(str(db), OTHER)] = (group["memory_bytes_sum"].sum(), group["n_keys"].sum(),
                                      group["n_with_ttl"].sum() / group["n_keys"].sum())
    got = samples(text)
    by_key = {name: {(dict(labels)["db"], dict(labels)["pattern"]): value for labels, value in rows.items()}
              for name, rows in got.items() if name.startswith("rdbscope_pattern_")}
    assert len(by_key["rdbscope_pattern_memory_bytes"]) == TOP + rest["db"].nunique() == TOP + 3
    for (db, pattern), (memory, n_keys, ttl_ratio) in expected.items():
        assert by_key["rdbscope_pattern_memory_bytes"][(db, pattern)] == memory
        assert by_key["rdbscope_pattern_keys"][(db, pattern)] == n_keys
        assert by_key["rdbscope_pattern_ttl_ratio"][(db, pattern)] == pytest.approx(ttl_ratio)
    assert sum(by_key["rdbscope_pattern_memory_bytes"].values()) == overview(res).memory_bytes
    assert sum(by_key["rdbscope_pattern_keys"].values()) == res.n_keys


def test_findings_are_counted_per_code_and_severity(sample):
    text, res = sample
    got = {(dict(labels)["code"], dict(labels)["severity"]): value
           for labels, value in samples(text)["rdbscope_findings"].items()}
    assert got == Counter((f.code, str(f.severity)) for f in res.finding_list)
    assert got[("TTL002", "error")] == 7 and sum(got.values()) == len(res.finding_list) == 43


def test_units_and_types_are_declared_and_the_prometheus_text_parser_reads_it_too(sample):
    text, _ = sample
    families = {f.name: f for f in text_string_to_metric_families(text)}
    assert {name: (f.type, f.unit) for name, f in families.items()} == {
        "rdbscope_keys": ("gauge", ""), "rdbscope_keys_with_ttl": ("gauge", ""),
        "rdbscope_memory_bytes": ("gauge", "bytes"), "rdbscope_dump_timestamp_seconds": ("gauge", "seconds"),
        "rdbscope_pattern_memory_bytes": ("gauge", "bytes"), "rdbscope_pattern_keys": ("gauge", ""),
        "rdbscope_pattern_ttl_ratio": ("gauge", "ratio"), "rdbscope_findings": ("gauge", ""),
    }
    assert all(f.documentation for f in families.values())
    # node_exporter's textfile collector reads the older Prometheus text format: the same samples.
    classic = {f.name: {(frozenset(s.labels.items()), s.value) for s in f.samples}
               for f in prometheus_text_families(text)}
    assert classic == {name: set(rows.items()) for name, rows in samples(text).items()}


def test_without_more_patterns_than_top_there_is_no_other_row(sample):
    _, res = sample
    n_patterns = len(pattern_rows(res))
    got = samples(exposition(DUMP, "--top", str(n_patterns)))["rdbscope_pattern_keys"]
    assert len(got) == n_patterns and all(dict(labels)["pattern"] != OTHER for labels in got)


@pytest.mark.server
@pytest.mark.skipif(not REDIS_7, reason="Debian's redis-server 7.0 is not installed")
def test_label_values_with_quotes_backslashes_and_newlines_come_back_as_they_were(tmp_path):
    names = [f'say:"hi"\\{i}' for i in range(30)] + [f"two\nlines:{i}" for i in range(30)] + ["plain"]
    with make_sample_dumps.RunningServer(REDIS_7[0], {}) as server:
        client = server.client(0)
        for name in names:
            client.execute_command("SET", name, "v")
        client.execute_command("SAVE")
        shutil.copy(server.dump_path, tmp_path / "odd.rdb")
    res = rdbscope.analyze(tmp_path / "odd.rdb")
    patterns = set(res.tables["patterns"].column("pattern").to_pylist())
    assert any('"' in p and "\\" in p for p in patterns) and any("\n" in p for p in patterns), patterns
    text = exposition(tmp_path / "odd.rdb")
    got = {dict(labels)["pattern"]: value for labels, value in samples(text)["rdbscope_pattern_keys"].items()}
    counts = dict(zip(res.tables["patterns"].column("pattern").to_pylist(),
                      res.tables["patterns"].column("n_keys").to_pylist(), strict=True))
    assert got == counts and sum(got.values()) == len(names)


def test_a_cluster_of_dumps_is_one_keyspace_without_a_dump_time():
    other = SAMPLE_DUMPS / "redis-7.0-lfu.rdb"
    got = samples(exposition(DUMP, other, "--combine"))  # two servers' dumps: not one cluster's nodes
    res = rdbscope.analyze([DUMP, other], combine=True)
    assert got["rdbscope_keys"] == {frozenset({("dump", "2 dumps")}): res.n_keys}
    assert res.n_keys == 2092 + rdbscope.load(other).num_rows
    assert "rdbscope_dump_timestamp_seconds" not in got  # the dumps were written at different times
