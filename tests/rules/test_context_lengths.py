"""Key lengths as rules read them: measured a chunk at a time, the same as for every key at once."""

import numpy as np
import pyarrow.compute as pc
import pytest
from conftest import SAMPLE_DUMPS

import rdbscope
from rdbscope.keyspace.columns import KeyColumns
from rdbscope.rules.context import RuleContext


@pytest.mark.parametrize("chunk", [1, 7, 1000, 1 << 20])
def test_rows_with_key_bytes_over_a_limit(chunk):
    keys = rdbscope.load(SAMPLE_DUMPS / "redis-7.0-default.rdb")
    lengths = pc.binary_length(keys.table["key"]).to_numpy()
    for limit in (0, 12, 20, 40, 128, 10 ** 6):
        ctx = RuleContext(KeyColumns(keys.table, keys.info), None, keys.info)
        rows = ctx.rows_with_key_bytes_over(limit, chunk=chunk)
        assert np.array_equal(rows, np.flatnonzero(lengths > limit)), limit
        assert np.array_equal(ctx.key_bytes_at(rows), lengths[rows])
        assert "key_bytes" not in ctx.__dict__  # no column of every key's length was made
    assert 0 < len(np.flatnonzero(lengths > 20)) < len(lengths)
