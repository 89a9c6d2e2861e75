"""The TTL columns of ``KeyColumns``, read where they are, against pyarrow's reading of the keys table."""

import numpy as np
import pyarrow as pa
import pytest
from conftest import SAMPLE_DUMPS

import rdbscope
from rdbscope.keyspace.columns import KeyColumns


@pytest.mark.parametrize("dump", ["libraries.rdb", "redis-7.0-default.rdb"])
def test_ttl_expiries_and_memory_are_those_of_the_keys_with_a_ttl(dump):
    table = rdbscope.load(SAMPLE_DUMPS / dump).to_arrow()
    for keys in (table, table.slice(5), table.slice(3, table.num_rows // 2),  # one chunk, at an offset
                 pa.concat_tables([table.slice(0, 100), table.slice(100)])):  # two chunks
        columns = KeyColumns(keys, None)
        expire = keys["expire_at"].cast(pa.int64()).to_pylist()
        with_ttl = [i for i, e in enumerate(expire) if e is not None]
        assert len(with_ttl) > 50
        assert columns.ttl_rows.tolist() == with_ttl
        assert columns.ttl_expire_ms.tolist() == [expire[i] for i in with_ttl]
        assert columns.ttl_memory.tolist() == np.asarray(columns.memory)[with_ttl].tolist()


@pytest.mark.parametrize("dump", ["libraries.rdb", "redis-7.0-default.rdb"])
def test_ttl_buckets_count_each_key_by_the_time_left_at_ctime(dump):
    table = rdbscope.load(SAMPLE_DUMPS / dump)
    columns = KeyColumns(table.to_arrow(), table.info)
    left = columns.ttl_expire_ms - columns.ctime_ms
    edges = np.array([3600, 4 * 3600, 12 * 3600, 86400, 7 * 86400]) * 1000
    bucket = np.where(left <= 0, 0, 1 + np.searchsorted(edges, left, side="right"))
    memory = np.asarray(columns.ttl_memory, np.int64)
    n, total = columns.ttl_buckets
    assert n[:-1].tolist() == np.bincount(bucket, minlength=7).tolist()
    assert total[:-1].tolist() == [int(memory[bucket == b].sum()) for b in range(7)]
    assert n[-1] == columns.n - len(left) and total.sum() == columns.memory_total
