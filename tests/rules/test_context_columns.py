"""What rules read of the keys: lengths a chunk at a time, masks of every key without pages."""

import numpy as np
import pyarrow.compute as pc
import pytest
from conftest import SAMPLE_DUMPS

import rdbscope
from rdbscope.keyspace.columns import KeyColumns
from rdbscope.keyspace.groups import PatternGroups
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


def test_a_mask_of_every_key_reads_as_one():
    keys = rdbscope.load(SAMPLE_DUMPS / "redis-7.0-default.rdb", types="string")
    columns = KeyColumns(keys.table, keys.info)
    groups = PatternGroups.build(columns.db, np.zeros(columns.n, np.int64), ("every key",))
    ctx = RuleContext(columns, groups, keys.info)
    every = ctx.type_mask("string")
    assert every.shape == (columns.n,) and every.all() and columns.n > 100
    assert np.array_equal(np.flatnonzero(every), np.arange(columns.n))
    raw = ctx.encoding_mask("raw")
    assert 0 < raw.sum() < columns.n
    assert np.array_equal(every & raw, raw) and not (~every).any()
    assert list(ctx.pattern_count(every)) == list(groups.n_keys)
    assert list(ctx.pattern_count(raw)) == [int(raw[columns.db == db].sum()) for db in groups.db]
    assert not ctx.type_mask("hash").any()
