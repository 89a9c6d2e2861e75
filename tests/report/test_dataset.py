"""The scheduled report dataset: layout, schema, atomic partitions, readers across days and instances."""

import datetime
import subprocess
import sys

import duckdb
import pandas as pd
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from conftest import ROOT, SAMPLE_DUMPS
from oracle import read_oracle

import rdbscope
from rdbscope.errors import InputError
from rdbscope.findings import FINDINGS_SCHEMA
from rdbscope.report import dataset

DUMP_A = SAMPLE_DUMPS / "redis-7.0-default.rdb"
DUMP_B = SAMPLE_DUMPS / "valkey-8.1-lfu.rdb"


@pytest.fixture(scope="module")
def results():
    return {name: rdbscope.analyze(rdbscope.load(path)) for name, path in (("a", DUMP_A), ("b", DUMP_B))}


@pytest.fixture(scope="module")
def two_by_two(tmp_path_factory, results):
    """Two instances, each reported on two days."""
    root = tmp_path_factory.mktemp("reports")
    for instance, res in (("cache-a", results["a"]), ("cache-b", results["b"])):
        for day in ("2030-01-01", "2030-01-02"):
            dataset.write_report(res, root, instance, date=day)
    return root


def oracle_keys(dump):
    return len(read_oracle(str(dump.with_suffix(".json")))["keys"])


def test_partition_layout_and_date_from_ctime(tmp_path, results):
    res = results["a"]
    path = dataset.write_report(res, tmp_path, "cache-a", keys=True)
    ctime = int(res.info.aux["ctime"])
    day = datetime.datetime.fromtimestamp(ctime, datetime.timezone.utc).date().isoformat()
    assert path == tmp_path / "instance=cache-a" / f"date={day}"
    assert sorted(p.name for p in path.iterdir()) == [
        "findings.parquet", "keys.parquet", "patterns.parquet", "summary.parquet"]
    assert [p.name for p in tmp_path.iterdir() if not p.name.startswith(".")] == ["instance=cache-a"]


def test_every_file_carries_the_schema_version(two_by_two):
    for path in two_by_two.glob("instance=*/date=*/*.parquet"):
        assert dataset.schema_version(path) == dataset.SCHEMA_VERSION == "1"


def test_schemas_are_the_declared_ones(two_by_two):
    partition = two_by_two / "instance=cache-a" / "date=2030-01-01"
    declared = {"patterns": dataset.PATTERNS_SCHEMA, "summary": dataset.SUMMARY_SCHEMA, "findings": FINDINGS_SCHEMA}
    for name, schema in declared.items():
        assert pq.read_schema(partition / f"{name}.parquet").remove_metadata().equals(schema.remove_metadata()), name


def test_summary_figures_match_the_oracle(two_by_two):
    summary = pq.read_table(two_by_two / "instance=cache-b" / "date=2030-01-02" / "summary.parquet").to_pylist()[0]
    oracle = read_oracle(str(DUMP_B.with_suffix(".json")))
    assert summary["n_keys"] == len(oracle["keys"])
    assert summary["n_with_ttl"] == sum(1 for k in oracle["keys"] if k["expire_at_ms"] is not None)
    assert summary["writer"] == oracle["server_version"]
    assert summary["used_mem_bytes"] is not None


def test_patterns_sum_to_the_keys(two_by_two, results):
    table = pq.read_table(two_by_two / "instance=cache-a" / "date=2030-01-01" / "patterns.parquet")
    keys = results["a"].keys.to_arrow()
    assert sum(table["n_keys"].to_pylist()) == keys.num_rows == oracle_keys(DUMP_A)
    assert sum(table["memory_bytes_sum"].to_pylist()) == sum(keys["est_memory_bytes"].to_pylist())
    with_ttl = table["n_with_ttl"].to_pylist()
    without = table["n_without_ttl"].to_pylist()
    assert [a + b for a, b in zip(with_ttl, without, strict=True)] == table["n_keys"].to_pylist()


def test_pandas_reads_one_table_across_days_and_instances(two_by_two):
    files = dataset.table_files(two_by_two, "patterns")
    frame = pd.read_parquet(files, partitioning="hive")
    assert len(files) == 4
    assert sorted(frame.groupby(["instance", "date"], observed=True).size().index.tolist()) == [
        ("cache-a", "2030-01-01"), ("cache-a", "2030-01-02"), ("cache-b", "2030-01-01"), ("cache-b", "2030-01-02")]
    per_partition = frame.groupby(["instance", "date"], observed=True)["n_keys"].sum()
    assert per_partition[("cache-a", "2030-01-02")] == oracle_keys(DUMP_A)
    assert per_partition[("cache-b", "2030-01-01")] == oracle_keys(DUMP_B)


def test_pyarrow_dataset_reads_the_directory(two_by_two):
    table = dataset.read_table(two_by_two, "summary")
    assert table.num_rows == 4
    assert set(zip(table["instance"].to_pylist(), table["date"].to_pylist(), strict=True)) == {
        ("cache-a", "2030-01-01"), ("cache-a", "2030-01-02"), ("cache-b", "2030-01-01"), ("cache-b", "2030-01-02")}
    direct = ds.dataset(str(two_by_two), partitioning="hive", exclude_invalid_files=True)
    assert {pathlib_name(f) for f in direct.files} == {"summary.parquet", "patterns.parquet", "findings.parquet"}


def pathlib_name(path):
    return path.rsplit("/", 1)[-1]


def test_duckdb_reads_the_dataset(two_by_two):
    con = duckdb.connect()
    rows = con.execute(f"""
        SELECT instance, date, sum(memory_bytes_sum) AS memory, sum(n_keys) AS keys
        FROM read_parquet('{two_by_two}/instance=*/date=*/patterns.parquet', hive_partitioning = true)
        GROUP BY ALL ORDER BY instance, date
    """).fetchall()
    assert [(r[0], str(r[1])) for r in rows] == [
        ("cache-a", "2030-01-01"), ("cache-a", "2030-01-02"), ("cache-b", "2030-01-01"), ("cache-b", "2030-01-02")]
    assert rows[0][3] == oracle_keys(DUMP_A) and rows[2][3] == oracle_keys(DUMP_B)
    n_findings = con.execute(f"""
        SELECT count(*) FROM read_parquet('{two_by_two}/instance=*/date=*/findings.parquet', hive_partitioning = true)
    """).fetchall()[0][0]
    per_day = sum(pq.read_metadata(p).num_rows for p in two_by_two.glob("instance=*/date=2030-01-01/findings.parquet"))
    assert n_findings == 2 * per_day > 0


def test_a_rerun_replaces_only_its_partition(tmp_path, results):
    first = dataset.write_report(results["a"], tmp_path, "x", date="2030-01-01", keys=True)
    other = dataset.write_report(results["a"], tmp_path, "x", date="2030-01-02")
    before = (other / "patterns.parquet").stat().st_mtime_ns
    again = dataset.write_report(results["b"], tmp_path, "x", date="2030-01-01")
    assert again == first
    assert not (first / "keys.parquet").exists()  # the new run did not ask for keys
    assert pq.read_table(first / "summary.parquet")["n_keys"][0].as_py() == oracle_keys(DUMP_B)
    assert (other / "patterns.parquet").stat().st_mtime_ns == before
    assert list((tmp_path / dataset.SCRATCH).glob("run-*")) == []


def test_a_failed_run_keeps_the_old_partition(tmp_path, results, monkeypatch):
    path = dataset.write_report(results["a"], tmp_path, "x", date="2030-01-01")
    before = (path / "summary.parquet").read_bytes()

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(dataset, "patterns_table", broken)
    with pytest.raises(OSError):
        dataset.write_report(results["b"], tmp_path, "x", date="2030-01-01")
    assert (path / "summary.parquet").read_bytes() == before
    assert list((tmp_path / dataset.SCRATCH).glob("run-*")) == []


WRITER = """
import sys
import rdbscope
from rdbscope.report.dataset import write_report
res = rdbscope.analyze(rdbscope.load(sys.argv[1]))
for _ in range(int(sys.argv[3])):
    write_report(res, sys.argv[2], "shared", date="2030-01-01", keys=True)
"""


@pytest.mark.slow
def test_two_processes_at_once_leave_one_whole_partition(tmp_path):
    env = {"PYTHONPATH": str(ROOT)}
    import os

    env = {**os.environ, **env}
    runs = [subprocess.Popen([sys.executable, "-c", WRITER, str(dump), str(tmp_path), "4"], env=env)
            for dump in (DUMP_A, DUMP_B)]
    assert [p.wait(timeout=300) for p in runs] == [0, 0]
    partition = tmp_path / "instance=shared" / "date=2030-01-01"
    summary = pq.read_table(partition / "summary.parquet")
    n_keys = summary["n_keys"][0].as_py()
    assert n_keys in (oracle_keys(DUMP_A), oracle_keys(DUMP_B))
    # every file of the partition comes from the same run
    assert pq.read_table(partition / "keys.parquet").num_rows == n_keys
    assert sum(pq.read_table(partition / "patterns.parquet")["n_keys"].to_pylist()) == n_keys
    assert list((tmp_path / dataset.SCRATCH).glob("run-*")) == []


def test_keys_parquet_of_a_report_is_an_input(tmp_path, results):
    path = dataset.write_report(results["a"], tmp_path, "x", keys=True)
    keys = rdbscope.load(path / "keys.parquet")
    assert keys.num_rows == oracle_keys(DUMP_A)
    assert keys.info.aux["ctime"] == results["a"].info.aux["ctime"]


def test_bad_instance_and_missing_date(tmp_path, results):
    with pytest.raises(InputError, match="instance name"):
        dataset.write_report(results["a"], tmp_path, "../etc", date="2030-01-01")
    info = results["a"].info
    no_ctime = type(info)(aux={k: v for k, v in info.aux.items() if k != "ctime"})
    with pytest.raises(InputError, match="--date"):
        dataset.report_date(no_ctime)
    assert dataset.report_date(no_ctime, "2030-02-03") == datetime.date(2030, 2, 3)
