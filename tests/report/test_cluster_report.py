"""A whole cluster in one report: the dumps of a real 3-master Redis Cluster read as one keyspace."""

import json
import re

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from redis_cluster import MISSING, running_cluster, save_dumps
from typer.testing import CliRunner

import rdbscope
from rdbscope.cli import app
from rdbscope.rdb.cluster import key_slot

N_SESSIONS = 3000
N_TENANT_KEYS = 300
HOT_TAG = "tenant:acme"

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.skipif(MISSING is not None, reason=MISSING or "")]


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """The masters' dumps in one directory, and what the live cluster said: ``(directory, saved, truth)``.

    ``saved`` is ``[(path, (first slot, last slot), DBSIZE)]``; ``truth`` holds the keys with a TTL
    per master and which master owns the hot tag's slot (asked with CLUSTER KEYSLOT and CLUSTER SLOTS)."""
    out = tmp_path_factory.mktemp("cluster")
    with running_cluster() as (servers, client):
        for i in range(N_SESSIONS):
            client.set(f"session:{i}:token", "x" * 40, ex=3600 if i % 3 == 0 else None)
        for i in range(N_TENANT_KEYS):  # one tenant's orders all behind one hash tag: one slot, one master
            client.set(f"{{{HOT_TAG}}}:order:{i}", "o" * 200)
        hot_slot = client.keyslot(f"{{{HOT_TAG}}}:order:0")
        saved = save_dumps(servers, out)
        with_ttl = {}
        for (path, _slots, _n), server in zip(saved, servers, strict=True):
            with_ttl[path.name] = _expires(server.client(0).execute_command("INFO", "keyspace"))
        (hot_node,) = [path.name for path, (first, last), _n in saved if first <= hot_slot <= last]
    return out, saved, {"with_ttl": with_ttl, "hot_slot": hot_slot, "hot_node": hot_node}


def _expires(info):
    """Keys with an expiry in db 0, from INFO keyspace's ``db0:keys=…,expires=…`` line."""
    text = info.decode() if isinstance(info, bytes) else str(info)
    for line in text.splitlines():
        if line.startswith("db0:"):
            return int(dict(part.split("=") for part in line[4:].split(","))["expires"])
    return 0


def test_the_report_is_one_keyspace_with_a_row_per_node(cluster):
    directory, saved, truth = cluster
    result = invoke("report", *(path for path, _s, _n in saved), "--format", "json", "--fail-on", "never")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["overview"]["n_keys"] == N_SESSIONS + N_TENANT_KEYS == sum(n for _p, _s, n in saved)
    assert document["overview"]["n_sources"] == 3
    nodes = document["nodes"]
    assert [row["source"] for row in nodes] == [str(path) for path, _s, _n in saved]
    for row, (path, (first, last), n_keys) in zip(nodes, saved, strict=True):
        assert row["n_keys"] == n_keys
        assert row["slots"] == f"{first}-{last}"  # the range redis-cli gave this master, seen in its keys
        assert row["writer"].startswith("redis 7.0")
        assert row["n_with_ttl"] == truth["with_ttl"][path.name]
        assert row["ttl_share"] == pytest.approx(truth["with_ttl"][path.name] / n_keys)
    assert sum(row["memory_bytes"] for row in nodes) == document["overview"]["memory_bytes"]


def test_the_hot_hash_tag_is_reported_against_its_real_node(cluster):
    directory, saved, truth = cluster
    document = json.loads(invoke("report", directory / "node*.rdb", "-f", "json", "--fail-on", "never").stdout)
    (hot,) = [f for f in document["findings"] if f["code"] == "CLU002"]
    hot["details"] = json.loads(hot["details"])
    hot_path = str(directory / truth["hot_node"])
    assert f"{{{HOT_TAG}}}" in hot["message"] and f"to slot {truth['hot_slot']} on node {hot_path}" in hot["message"]
    assert hot["details"]["tags"][0] == {**hot["details"]["tags"][0], "slot": truth["hot_slot"],
                                         "node": hot_path, "n_keys": N_TENANT_KEYS}
    assert key_slot(f"{{{HOT_TAG}}}:x") == truth["hot_slot"]
    # Each dump is one node's: CLU004 names each, no simulated masters are needed.
    named = sorted(json.loads(f["details"])["node"] for f in document["findings"] if f["code"] == "CLU004")
    assert named == sorted(str(path) for path, _s, _n in saved)


def test_one_node_holding_far_more_memory_is_named(cluster):
    directory, saved, truth = cluster
    document = json.loads(invoke("report", directory, "-f", "json", "--fail-on", "never").stdout)
    (imbalance,) = [f for f in document["findings"] if f["code"] == "CLU001"]
    imbalance["details"] = json.loads(imbalance["details"])
    heavy = max(document["nodes"], key=lambda row: row["memory_bytes"])
    assert heavy["source"] == str(directory / truth["hot_node"])
    assert imbalance["details"]["node"] == heavy["source"] and imbalance["details"]["real_nodes"] is True
    assert imbalance["est_memory_bytes"] == heavy["memory_bytes"]
    assert imbalance["message"].startswith(f"Of 3 nodes, {heavy['source']} (slots {heavy['slots']}) holds")
    assert "{tenant:acme}:order:{id}" in imbalance["message"]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_bounded_report_of_the_cluster_is_the_in_memory_report(cluster, jobs):
    """Over the budget, on one process or one per node: the same nodes table and findings, the hot tag and the
    heavy node among them."""
    directory, _saved, truth = cluster
    in_memory = invoke("report", directory, "-f", "json", "--fail-on", "never")
    bounded = invoke("report", directory, "-f", "json", "--fail-on", "never", "--memory-budget", "100KB",
                     "--jobs", jobs)
    assert "note:" not in bounded.stderr  # nothing left out
    expected, got = json.loads(in_memory.stdout), json.loads(bounded.stdout)
    assert got["nodes"] == expected["nodes"]
    found = [(f["code"], f["pattern"], f["n_keys"], f["message"]) for f in got["findings"]]
    assert found == [(f["code"], f["pattern"], f["n_keys"], f["message"]) for f in expected["findings"]]
    hot_path = str(directory / truth["hot_node"])
    assert any(code == "CLU002" and hot_path in message for code, _p, _n, message in found)
    assert any(code == "CLU001" and message.startswith(f"Of 3 nodes, {hot_path}") for code, _p, _n, message in found)


def test_the_cluster_report_is_the_same_whatever_the_chunking(cluster):
    """The three masters' dumps as one keyspace: chunks of 97 and 500 keys, one chunk per dump and the
    joined table loaded first give the same tables, findings and HTML report."""
    from test_same_report_any_chunking import render_html, tables_and_findings

    directory, _saved, _truth = cluster
    one_chunk = rdbscope.analyze(directory, chunk_keys=1_000_000)
    assert one_chunk.keys.n_sources == 3 and one_chunk.n_keys == 3300
    expected_json, expected_html = tables_and_findings(one_chunk), render_html(one_chunk, source="cluster")
    for res in (rdbscope.analyze(directory, chunk_keys=97), rdbscope.analyze(directory, chunk_keys=500),
                rdbscope.analyze(rdbscope.load(directory))):
        assert tables_and_findings(res) == expected_json
        assert render_html(res, source="cluster") == expected_html


def test_analyze_of_a_list_gives_a_source_column(cluster):
    _directory, saved, _truth = cluster
    paths = [path for path, _s, _n in saved]
    keys = rdbscope.load(paths)
    assert keys.n_sources == 3 and [s.n_keys for s in keys.sources] == [n for _p, _s, n in saved]
    field = keys.to_arrow().schema.field("source")
    assert field.type == pa.dictionary(pa.int16(), pa.string()) and b"doc" in field.metadata
    by_source = keys.to_arrow().group_by("source").aggregate([("key", "count")]).to_pylist()
    assert {str(row["source"]): row["key_count"] for row in by_source} == {str(p): n for p, _s, n in saved}
    res = rdbscope.analyze(keys)
    assert res.keys.n_sources == 3 and "source" in res.keys.to_arrow().column_names
    assert "CLU002" in {f.code for f in res.finding_list}


def test_lint_reads_several_dumps(cluster):
    directory, saved, truth = cluster
    result = invoke("lint", *(path for path, _s, _n in saved), "--format", "json", "--fail-on", "never")
    document = json.loads(result.stdout)
    assert document["n_keys"] == N_SESSIONS + N_TENANT_KEYS
    assert {"CLU001", "CLU002"} <= {f["code"] for f in document["findings"]}


def test_the_out_partition_holds_the_nodes_and_diff_reads_it(cluster, tmp_path):
    directory, saved, _truth = cluster
    dataset = tmp_path / "reports"
    for day in ("2026-01-01", "2026-01-02"):
        result = invoke("report", directory, "--out", dataset, "--instance", "cluster", "--date", day,
                        "--keys", "--quiet", "--fail-on", "never")
        assert result.exit_code == 0, result.stderr
    partition = dataset / "instance=cluster" / "date=2026-01-01"
    nodes = pq.read_table(partition / "nodes.parquet").to_pylist()
    assert [row["source"] for row in nodes] == [str(path) for path, _s, _n in saved]
    assert [row["n_keys"] for row in nodes] == [n for _p, _s, n in saved]
    summary = pq.read_table(partition / "summary.parquet").to_pylist()[0]
    assert summary["n_keys"] == N_SESSIONS + N_TENANT_KEYS and summary["source"] == "3 dumps"
    keys = pq.read_table(partition / "keys.parquet")
    assert "source" in keys.column_names
    diff = invoke("diff", partition, dataset / "instance=cluster" / "date=2026-01-02", "--format", "json")
    assert diff.exit_code == 0, diff.stderr
    trend = invoke("trend", dataset, "--format", "json")
    assert trend.exit_code == 0, trend.stderr


def test_a_path_that_is_not_a_dump_among_several_is_named(cluster, tmp_path):
    _directory, saved, _truth = cluster
    bad = tmp_path / "notes.rdb"
    bad.write_bytes(b"hello, not a dump")
    result = invoke("report", saved[0][0], bad, saved[1][0])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(bad) in lines[0] and "offset 0" in lines[0] and "expected b'REDIS'" in lines[0]
    for missing in (tmp_path / "gone.rdb", tmp_path / "node-*.rdb", tmp_path / "empty"):
        if missing.name == "empty":
            missing.mkdir()
        result = invoke("report", saved[0][0], missing)
        assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
        assert str(missing) in result.stderr and "Traceback" not in result.stderr


def test_the_html_report_has_a_nodes_section(cluster, tmp_path):
    import shutil

    from test_html_in_chromium import BROWSERS, run_chromium

    browser = next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)
    if browser is None:
        pytest.skip("no Chromium on this machine; apt-get install chromium")
    directory, saved, _truth = cluster
    page = tmp_path / "cluster.html"
    assert invoke("report", directory, "--html", page, "--quiet", "--fail-on", "never").exit_code == 0
    dom = run_chromium(browser, tmp_path, page, "--dump-dom")
    nav = re.search(r"<nav>(.*?)</nav>", dom).group(1)
    assert re.findall(r'href="#(\w+)"', nav)[:4] == ["overview", "nodes", "summary", "memory"]
    section = re.search(r'<section id="nodes">(.*?)</section>', dom, re.DOTALL).group(1)
    rows = re.findall(r"<tr>(.*?)</tr>", section)[1:]
    assert len(rows) == 3
    for row, (path, (first, last), n_keys) in zip(rows, saved, strict=True):
        assert str(path) in row and f"{n_keys:,}" in row and f"{first}-{last}" in row


def test_the_readme_cluster_blocks_run_on_a_real_cluster(cluster, tmp_path, monkeypatch):
    import shutil

    from test_docs import first_line, readme_blocks, run_python, run_shell

    _directory, saved, _truth = cluster
    for (path, _slots, _n), name in zip(saved, ("node-a.rdb", "node-b.rdb", "node-c.rdb"), strict=True):
        shutil.copy(path, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    blocks = {first_line(text): text for _line, _language, text in readme_blocks()}
    shell = blocks["rdbscope report node-a.rdb node-b.rdb node-c.rdb --html cluster.html"]
    results = run_shell(shell, tmp_path)
    assert [r.exit_code for r in results] == [0, 0, 1]  # lint fails on the CLU001/CLU002 warnings
    assert 'id="nodes"' in (tmp_path / "cluster.html").read_text()
    document = json.loads((tmp_path / "cluster.json").read_text())
    assert [row["source"] for row in document["nodes"]] == ["node-a.rdb", "node-b.rdb", "node-c.rdb"]
    assert "CLU004" in results[2].stdout and "node-c.rdb" in results[2].stdout
    namespace = run_python("import rdbscope\n" + blocks['keys = rdbscope.load(["node-a.rdb", "node-b.rdb", '
                                                         '"node-c.rdb"])'], tmp_path)
    memory = namespace["memory"]
    assert list(memory.index) == ["node-a.rdb", "node-b.rdb", "node-c.rdb"]
    assert memory.to_dict() == {row["source"]: row["memory_bytes"] for row in document["nodes"]}
