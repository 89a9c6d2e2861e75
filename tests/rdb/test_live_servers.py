"""Dumps written just now by every real server found here, against what that server said."""

import os
import sys

import pytest

import rdbscope
from conftest import SAMPLE_DUMPS
from oracle import compare

sys.path.insert(0, str(SAMPLE_DUMPS))
import make_sample_dumps  # noqa: E402  (the script that also made the committed sample dumps)

SERVERS = make_sample_dumps.discover_servers()

pytestmark = pytest.mark.server


@pytest.mark.skipif(not SERVERS, reason="no redis-server or valkey-server binary found on this machine")
@pytest.mark.parametrize("server", SERVERS, ids=[s.label for s in SERVERS])
def test_fresh_dump_matches_the_live_server(server, tmp_path):
    oracle = make_sample_dumps.make_dump(server, "lfu", tmp_path)
    path = tmp_path / oracle["file"]
    keys = rdbscope.load(path)
    result = compare(keys, oracle, check_encoding=True)
    assert not result.missing and not result.extra and not result.diffs, result.summary()
    assert keys.num_rows == len(oracle["keys"]) > 200
    assert keys.to_arrow()["lfu_freq"].null_count == 0


@pytest.mark.skipif(os.environ.get("RDBSCOPE_REQUIRE_SERVERS") != "1", reason="set where the servers are installed")
def test_the_servers_ci_installs_are_all_found():
    labels = {s.label for s in SERVERS}
    assert {"redis-7.0", "redis-8.2", "valkey-8.1"} <= labels, labels
