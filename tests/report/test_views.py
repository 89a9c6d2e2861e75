"""Report views: the biggest keys without sorting every key."""

import numpy as np
import pytest
from conftest import SAMPLE_DUMPS

import rdbscope
from rdbscope.report.views import big_key_rows

DUMP = SAMPLE_DUMPS / "redis-7.0-default.rdb"


@pytest.fixture(scope="module")
def res():
    return rdbscope.analyze(rdbscope.load(DUMP))


@pytest.mark.parametrize("by", ["memory", "length"])
def test_big_key_rows_top_are_the_first_rows_of_the_full_order(res, by):
    everything = big_key_rows(res, top=None, by=by)
    assert len(everything) == res.keys.num_rows
    measure = everything["memory_bytes" if by == "memory" else "n_elements"].to_numpy()
    # Cuts inside runs of equal values, where the earlier rows must win the tie.
    ties = np.flatnonzero(measure[:-1] == measure[1:]) + 1
    assert len(ties) > 10
    for top in [1, 3, 10, *ties[:3], *ties[len(ties) // 2:][:2]]:
        got = big_key_rows(res, top=int(top), by=by)
        columns = ["db", "key", "memory_bytes", "n_elements", "codes"]
        assert got[columns].to_dict("records") == everything.head(int(top))[columns].to_dict("records"), top
