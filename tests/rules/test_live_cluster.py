"""A real 3-master Redis Cluster on 127.0.0.1: one node's dump is named by its slots, CLU001 stays off."""

import json

import pytest
from conftest import SAMPLE_DUMPS
from redis_cluster import MISSING, running_cluster, save_dumps
from typer.testing import CliRunner

from rdbscope.cli import app

N_KEYS = 3000

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.skipif(MISSING is not None, reason=MISSING or "")]


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def cluster_dumps(tmp_path_factory):
    """``{(first slot, last slot): (dump path, keys the master said it holds)}`` of each master."""
    out = tmp_path_factory.mktemp("cluster")
    with running_cluster() as (servers, client):
        for i in range(N_KEYS):
            client.set(f"session:{i}:token", "x" * 40)
        return {slots: (path, n_keys) for path, slots, n_keys in save_dumps(servers, out)}


def test_each_node_dump_is_named_by_its_slots(cluster_dumps):
    assert sorted(cluster_dumps) == [(0, 5460), (5461, 10922), (10923, 16383)]
    assert sum(n for _path, n in cluster_dumps.values()) == N_KEYS
    for (first, last), (path, n_keys) in cluster_dumps.items():
        result = invoke("lint", path, "--format", "json", "--masters", "3")
        document = json.loads(result.stdout)
        codes = [f["code"] for f in document["findings"]]
        assert "CLU001" not in codes and document["n_keys"] == n_keys
        (node,) = [f for f in document["findings"] if f["code"] == "CLU004"]
        assert node["message"].startswith(f"Cluster node dump: slots {first}-{last}; all {n_keys:,} keys")
        assert node["details"]["recorded"] is False and node["details"]["masters"] == 3
        assert result.exit_code == 0  # an info notice does not reach --fail-on warning


def test_the_report_names_the_node(cluster_dumps):
    path, _n = cluster_dumps[(0, 5460)]
    document = json.loads(invoke("report", path, "-f", "json", "--masters", "3").stdout)
    codes = {f["code"]: f for f in document["findings"]}
    assert "CLU001" not in codes and "slots 0-5460" in codes["CLU004"]["message"]


def test_a_multi_db_dump_gets_clu001_only_when_asked():
    dump = SAMPLE_DUMPS / "redis-7.0-default.rdb"
    plain = json.loads(invoke("lint", dump, "--format", "json", "--fail-on", "never").stdout)
    assert {f["code"] for f in plain["findings"]}.isdisjoint({"CLU001", "CLU004"})
    asked = json.loads(invoke("lint", dump, "--format", "json", "--fail-on", "never", "--masters", "3").stdout)
    (clu001,) = [f for f in asked["findings"] if f["code"] == "CLU001"]
    assert clu001["details"]["masters"] == 3
    report = json.loads(invoke("report", dump, "-f", "json", "--masters", "3").stdout)
    assert "CLU001" in {f["code"] for f in report["findings"]}
