"""The gather kernel of ``kernels/_gather.py`` (keys of a binary array copied out), in both builds, against
pyarrow's take."""

import numpy as np
import pyarrow as pa
import pytest
from conftest import module_builds

from rdbscope import kernels

BUILDS = sorted(module_builds("kernels._gather"))


@pytest.fixture(params=BUILDS)
def build(request, monkeypatch):
    monkeypatch.setattr(kernels, "gather", module_builds("kernels._gather")[request.param])
    return request.param


def keys_of(n, seed=5):
    """``n`` binary keys: empty ones, short ones, and a few of several kilobytes."""
    rng = np.random.default_rng(seed)
    lengths = rng.choice([0, 1, 7, 30, 5000], n, p=[0.1, 0.2, 0.3, 0.38, 0.02])
    return pa.array([rng.integers(0, 256, length, np.uint8).tobytes() for length in lengths], pa.binary())


def assert_taken(keys, rows):
    got = kernels.take_keys(keys, np.asarray(rows, np.int64))
    expected = keys.take(pa.array(rows, pa.int64()))
    assert got.type == pa.binary() and got.null_count == 0
    assert got.to_pylist() == expected.to_pylist()
    assert got.equals(expected)


@pytest.mark.parametrize("rows", [[], [0], [499], [0, 1, 2], list(range(500)), [3, 3, 10, 499]],
                         ids=["none", "first", "last", "first three", "all", "repeated"])
def test_chosen_keys_are_those_pyarrow_takes(build, rows):
    assert_taken(keys_of(500), rows)


def test_random_rows_of_long_and_empty_keys_are_those_pyarrow_takes(build):
    keys = keys_of(3000, seed=9)
    rng = np.random.default_rng(1)
    for share in (0.01, 0.3, 0.9):
        assert_taken(keys, np.flatnonzero(rng.random(len(keys)) < share))
    assert_taken(keys, np.flatnonzero(np.diff(keys_offsets(keys)) == 0))  # only empty keys: no bytes at all


def keys_offsets(keys):
    return np.frombuffer(keys.buffers()[1], np.int32, len(keys) + 1, keys.offset * 4)


def test_an_array_of_only_empty_keys_or_none_is_taken(build):
    assert_taken(pa.array([b"", b""], pa.binary()), [1, 0])
    assert_taken(pa.array([], pa.binary()), [])


def test_a_slice_and_a_chunked_array_are_taken_like_pyarrow(build):
    keys = keys_of(1000, seed=3)
    assert_taken(keys.slice(123, 600), [0, 5, 300, 599])
    chunked = pa.chunked_array([keys.slice(0, 10), keys.slice(10, 0), keys.slice(10, 990)])
    rows = [0, 9, 10, 11, 500, 999]
    got = kernels.take_keys(chunked, np.array(rows, np.int64))
    assert got.num_chunks == 3 and got.to_pylist() == chunked.take(pa.array(rows)).to_pylist()


def test_keys_with_nulls_or_of_another_type_are_left_to_pyarrow(build):
    with_nulls = pa.array([b"a", None, b"ccc"], pa.binary())
    assert kernels.take_keys(with_nulls, np.array([1, 2], np.int64)).to_pylist() == [None, b"ccc"]
    large = pa.array([b"a", b"bb", b"ccc"], pa.large_binary())
    got = kernels.take_keys(large, np.array([2, 0], np.int64))
    assert got.type == pa.large_binary() and got.to_pylist() == [b"ccc", b"a"]


def test_offsets_past_int32_are_refused(build):
    # keys of 2**30 and 2**30 - 1 bytes: both fill int32 offsets, three do not (no data is read to find so)
    offsets = np.array([0, 1 << 30, (1 << 31) - 1], np.int32)
    out = np.empty(4, np.int32)
    assert kernels.gather.fill_offsets(offsets, np.array([0, 1], np.int64), out) == (1 << 31) - 1
    assert out[:3].tolist() == [0, 1 << 30, (1 << 31) - 1]
    assert kernels.gather.fill_offsets(offsets, np.array([0, 1, 1], np.int64), out) == -1
