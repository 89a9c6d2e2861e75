"""A real 3-master Redis Cluster on 127.0.0.1: one node's dump is named by its slots, CLU001 stays off."""

import json
import pathlib
import shutil
import subprocess
import sys

import pytest
import redis
from conftest import SAMPLE_DUMPS
from redis.cluster import RedisCluster
from typer.testing import CliRunner

from rdbscope.cli import app

sys.path.insert(0, str(SAMPLE_DUMPS))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "rdb"))
import make_sample_dumps  # noqa: E402
from test_cluster_slots import cluster_capable_port  # noqa: E402

REDIS_7 = [s for s in make_sample_dumps.discover_servers() if s.label == "redis-7.0"]
REDIS_CLI = shutil.which("redis-cli")
N_KEYS = 3000

pytestmark = [pytest.mark.server, pytest.mark.slow,
              pytest.mark.skipif(not REDIS_7 or not REDIS_CLI, reason="Debian's redis-server 7.0 is not installed")]


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def cluster_dumps(tmp_path_factory):
    """``{(first slot, last slot): dump path}`` of each master, and what each master said it holds."""
    out = tmp_path_factory.mktemp("cluster")
    servers = [make_sample_dumps.RunningServer(REDIS_7[0], {
        "cluster-enabled": "yes", "cluster-config-file": "nodes.conf", "cluster-node-timeout": "5000",
        "save": "", "appendonly": "no"}) for _ in range(3)]
    for server in servers:
        server.port = cluster_capable_port()
    try:
        for server in servers:
            server.__enter__()
        subprocess.run([REDIS_CLI, "--cluster", "create", *(f"127.0.0.1:{s.port}" for s in servers),
                        "--cluster-yes"], check=True, capture_output=True, timeout=60)
        client = RedisCluster(host="127.0.0.1", port=servers[0].port)
        _wait_until_ok(client)
        for i in range(N_KEYS):
            client.set(f"session:{i}:token", "x" * 40)
        client.close()
        dumps = {}
        for n, server in enumerate(servers):
            node = server.client(0)
            (first, last), = [(int(r[0]), int(r[1])) for r in node.execute_command("CLUSTER", "SLOTS")
                              if int(r[2][1]) == server.port]
            node.execute_command("SAVE")
            path = out / f"node{n}.rdb"
            shutil.copy(server.dump_path, path)
            dumps[(first, last)] = (path, node.execute_command("DBSIZE"))
        return dumps
    finally:
        for server in servers:
            server.stop()


def _wait_until_ok(client, attempts=100):
    import time

    for _ in range(attempts):
        try:
            if client.cluster_info()["cluster_state"] == "ok":
                return
        except redis.exceptions.RedisError:
            pass
        time.sleep(0.1)
    raise RuntimeError("the cluster did not reach state ok")


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
