"""One chunk or many: the passes read a single-chunk table without copying and
join the chunks of any other; both give the same Result and the same lint findings."""

import numpy as np
import pyarrow as pa
import pytest
from conftest import sample_dumps
from keytables import key, make_keys

import rdbscope
from rdbscope import lint
from rdbscope.config import Config
from rdbscope.keys import KeyTable
from rdbscope.keyspace.columns import KeyColumns
from rdbscope.passes.bigkeys import BigKeyOptions
from rdbscope.passes.expiry import ExpiryOptions
from rdbscope.rdb.cluster import key_slots

DUMPS = sample_dumps()
# Low thresholds, so that the big-key and expiry passes find something in small dumps.
LOW = Config(bigkeys=BigKeyOptions(string_bytes=4000, hash_fields=100, list_elements=100,
                                   set_members=100, zset_members=100, stream_entries=100),
             expiry=ExpiryOptions(min_batch_keys=20))


def one_chunk(keys):
    return KeyTable(keys.to_arrow().combine_chunks(), keys.info)


@pytest.fixture(scope="module", params=DUMPS, ids=[p.name for p in DUMPS])
def both(request):
    many = rdbscope.load(request.param, batch_rows=7, contiguous=False)
    assert many.to_arrow()["key"].num_chunks > 1
    single = one_chunk(many)
    assert single.to_arrow()["key"].num_chunks == 1
    return single, many


def test_same_result_from_one_chunk_and_from_many(both):
    single, many = both
    one, other = rdbscope.analyze(single, LOW), rdbscope.analyze(many, LOW)
    assert set(one.tables) == set(other.tables)
    for name in one.tables:
        assert one.tables[name].equals(other.tables[name]), name
    assert one.finding_list == other.finding_list
    assert one.keys.to_arrow().combine_chunks().equals(other.keys.to_arrow().combine_chunks())


def test_same_lint_findings_from_one_chunk_and_from_many(both):
    single, many = both
    assert lint(single).finding_list == lint(many).finding_list


def test_single_chunk_columns_are_views(both):
    single, many = both
    table = single.to_arrow()
    columns = KeyColumns(table, single.info)
    buffer = table["rdb_bytes"].chunk(0).buffers()[1]
    assert np.shares_memory(columns.rdb_bytes, np.frombuffer(buffer, np.uint64))
    assert columns.keys.buffers()[2].address == table["key"].chunk(0).buffers()[2].address
    joined = KeyColumns(many.to_arrow(), many.info)
    assert np.array_equal(columns.rdb_bytes, joined.rdb_bytes)
    assert np.array_equal(columns.n_elements, joined.n_elements)
    assert np.array_equal(columns.memory, joined.memory)
    assert joined.keys.equals(columns.keys)


def test_prefetched_slots_are_the_slots(both):
    single, _many = both
    columns = KeyColumns(single.to_arrow(), single.info)
    columns.prefetch(["slots"])
    expected = key_slots(single.to_arrow()["key"]).combine_chunks().to_numpy()
    assert columns.slots.dtype == np.uint16
    assert np.array_equal(columns.slots, expected)
    assert np.array_equal(KeyColumns(single.to_arrow(), single.info).slots, expected)
    assert np.array_equal(columns.slot_keys, np.bincount(expected, minlength=16384))
    assert np.array_equal(columns.slot_memory, np.bincount(expected, columns.memory, minlength=16384))


def test_numpy_view_of_a_column_with_nulls_zeroes_them():
    table = pa.table({"n_elements": pa.chunked_array([pa.array([3, None, 5], pa.uint64())])})
    from rdbscope.keyspace.columns import _numpy

    assert _numpy(table["n_elements"], np.uint64).tolist() == [3, 0, 5]
    sliced = pa.chunked_array([pa.array([9, 3, None, 5], pa.uint64()).slice(1)])
    assert _numpy(sliced, np.uint64).tolist() == [3, 0, 5]
    assert _numpy(pa.chunked_array([pa.array([1, 2], pa.uint64()).slice(1)]), np.uint64).tolist() == [2]


def test_a_flat_key_a_chunk_holds_alone_joins_the_keys_like_it():
    """``n5b`` alone in its chunk is a literal there, and ``n4b``/``n6b`` in another are ``{*}``: the
    whole table, in chunks of 3 keys or one chunk, has the three in ``{*}``."""
    names = ["n5b", "order:1", "order:2", "n4b", "n6b", "order:3"]
    keys = make_keys([key(name) for name in names])
    whole = rdbscope.analyze(keys, chunk_keys=1000)
    chunked = rdbscope.analyze(keys, chunk_keys=3)
    assert whole.keys.to_arrow()["pattern"].to_pylist() == ["{*}", "order:{id}", "order:{id}", "{*}", "{*}",
                                                         "order:{id}"]
    assert chunked.keys.to_arrow()["pattern"].to_pylist() == whole.keys.to_arrow()["pattern"].to_pylist()
    assert chunked.tables["patterns"].equals(whole.tables["patterns"])
