"""A real 3-master Redis 7.0 Cluster on 127.0.0.1 for the tests that need one.

Started with ``redis-server --cluster-enabled yes`` and joined by
``redis-cli --cluster create``; the tests write to it with redis-py's
``RedisCluster`` and take one ``SAVE`` per master.
"""

import contextlib
import pathlib
import shutil
import subprocess
import sys
import time

import redis
from conftest import SAMPLE_DUMPS
from redis.cluster import RedisCluster

sys.path.insert(0, str(SAMPLE_DUMPS))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "rdb"))
import make_sample_dumps  # noqa: E402
from test_cluster_slots import cluster_capable_port  # noqa: E402

REDIS_7 = [s for s in make_sample_dumps.discover_servers() if s.label == "redis-7.0"]
REDIS_CLI = shutil.which("redis-cli")
#: Why a test that needs a cluster skips, or None when one can be started.
MISSING = None if REDIS_7 and REDIS_CLI else "Debian's redis-server 7.0 (and redis-cli) is not installed"


@contextlib.contextmanager
def running_cluster(masters=3):
    """Yield ``(servers, client)``: the masters (``make_sample_dumps.RunningServer``) and a
    ``RedisCluster`` client of them, once the cluster's state is ok; stops them all after."""
    servers = [make_sample_dumps.RunningServer(REDIS_7[0], {
        "cluster-enabled": "yes", "cluster-config-file": "nodes.conf", "cluster-node-timeout": "5000",
        "save": "", "appendonly": "no"}) for _ in range(masters)]
    for server in servers:
        server.port = cluster_capable_port()
    client = None
    try:
        for server in servers:
            server.__enter__()
        subprocess.run([REDIS_CLI, "--cluster", "create", *(f"127.0.0.1:{s.port}" for s in servers),
                        "--cluster-yes"], check=True, capture_output=True, timeout=60)
        client = RedisCluster(host="127.0.0.1", port=servers[0].port)
        _wait_until_ok(client)
        yield servers, client
    finally:
        if client is not None:
            client.close()
        for server in servers:
            server.stop()


def save_dumps(servers, directory, name="node{n}.rdb"):
    """``SAVE`` on every master and copy its dump to ``directory``; returns
    ``[(path, (first slot, last slot), keys the master holds)]`` in the servers' order."""
    saved = []
    for n, server in enumerate(servers):
        node = server.client(0)
        (first, last), = [(int(r[0]), int(r[1])) for r in node.execute_command("CLUSTER", "SLOTS")
                          if int(r[2][1]) == server.port]
        node.execute_command("SAVE")
        path = directory / name.format(n=n)
        shutil.copy(server.dump_path, path)
        saved.append((path, (first, last), node.execute_command("DBSIZE")))
    return saved


def _wait_until_ok(client, attempts=100):
    for _ in range(attempts):
        try:
            if client.cluster_info()["cluster_state"] == "ok":
                return
        except redis.exceptions.RedisError:
            pass
        time.sleep(0.1)
    raise RuntimeError("the cluster did not reach state ok")
