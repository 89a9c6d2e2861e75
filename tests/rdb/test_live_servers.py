"""Dumps written just now by every real server found here, against what that server said."""

import pytest
import servers
from oracle import compare
from servers import make_sample_dumps

import rdbscope

pytestmark = pytest.mark.server

# The servers CI installs (each skips here, naming what to install, when absent) and any other found.
LABELS = sorted(set(servers.EXPECTED) | set(servers.FOUND))


@pytest.mark.slow
@pytest.mark.parametrize("label", LABELS)
def test_fresh_dump_matches_the_live_server(label, tmp_path):
    oracle = make_sample_dumps.make_dump(servers.server(label), "lfu", tmp_path)
    path = tmp_path / oracle["file"]
    keys = rdbscope.load(path)
    result = compare(keys, oracle, check_encoding=True)
    assert not result.missing and not result.extra and not result.diffs, result.summary()
    assert keys.num_rows == len(oracle["keys"]) > 200
    assert keys.to_arrow()["lfu_freq"].null_count == 0
