"""The kernels of ``kernels/_code_rows.py`` (through ``bigkeys``), in both builds, against plain numpy."""

import numpy as np
import pytest
from conftest import module_builds

from rdbscope import kernels
from rdbscope.passes.bigkeys import big_rows, rows_over_limit, top_per_code

BUILDS = sorted(module_builds("kernels._code_rows"))


@pytest.fixture(params=BUILDS)
def build(request, monkeypatch):
    monkeypatch.setattr(kernels, "code_rows", module_builds("kernels._code_rows")[request.param])
    return request.param


def reference(values, codes, n_codes, n):
    """Each code's rows sorted by value, largest first, then by row: the first ``n``."""
    result = {}
    for code in range(n_codes):
        rows = np.flatnonzero(codes == code)
        order = np.lexsort((rows, -values[rows].astype(np.float64)))
        result[code] = rows[order][:n]
    return result


def check(values, codes, n_codes, n):
    got = top_per_code(values, codes, n_codes, n)
    want = reference(np.asarray(values, np.uint64), codes, n_codes, n)
    assert sorted(got) == list(range(n_codes))
    for code in range(n_codes):
        assert got[code].dtype == np.int64
        assert got[code].tolist() == want[code].tolist(), code


@pytest.mark.parametrize("code_type", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint32])
@pytest.mark.parametrize("n", [1, 3, 20])
def test_top_rows_are_the_largest_of_each_code_ties_earliest_first(build, code_type, n):
    rng = np.random.default_rng(n)
    for n_codes, width in ((5, 1 << 40), (3, 4), (1, 1000), (7, 2)):  # wide values, many ties, one code, all tied
        codes = rng.integers(0, n_codes, 5000).astype(code_type)
        values = rng.integers(0, width, 5000).astype(np.uint64)
        check(values, codes, n_codes, n)


def test_ties_in_sizes_keep_the_earliest_rows(build):
    values = np.array([5, 7, 5, 7, 5, 5, 7, 1], np.uint64)
    codes = np.zeros(8, np.int8)
    assert top_per_code(values, codes, 1, 4)[0].tolist() == [1, 3, 6, 0]
    check(values, codes, 1, 4)


def test_codes_with_fewer_rows_than_n_give_all_of_them(build):
    values = np.array([3, 9, 4, 4, 8], np.uint64)
    codes = np.array([0, 1, 0, 2, 0], np.int8)  # code 3 has no row
    got = top_per_code(values, codes, 4, 10)
    assert {c: r.tolist() for c, r in got.items()} == {0: [4, 2, 0], 1: [1], 2: [3], 3: []}
    check(values, codes, 4, 10)


def test_an_empty_chunk_gives_empty_rows(build):
    empty = np.zeros(0, np.uint64)
    assert top_per_code(empty, np.zeros(0, np.int8), 0, 10) == {}
    got = top_per_code(empty, np.zeros(0, np.int8), 3, 10)
    assert [r.tolist() for r in got.values()] == [[], [], []]


def test_values_of_other_integer_types_rank_the_same(build):
    rng = np.random.default_rng(3)
    values = rng.integers(0, 50, 3000)
    codes = rng.integers(0, 4, 3000).astype(np.int32)
    for dtype in (np.int64, np.uint32, np.uint16):
        check(values.astype(dtype), codes, 4, 20)


def test_many_small_chunks_of_few_distinct_values(build):
    rng = np.random.default_rng(5)
    for _ in range(300):
        m = int(rng.integers(0, 40))
        n_codes = int(rng.integers(1, 4))
        codes = rng.integers(0, n_codes, m).astype(np.int8)
        values = rng.integers(0, int(rng.integers(1, 5)), m).astype(np.uint64)
        check(values, codes, n_codes, int(rng.integers(1, 8)))


@pytest.mark.parametrize("code_type", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint32])
def test_rows_over_limit_are_those_over_their_codes_limit(build, code_type):
    rng = np.random.default_rng(4)
    never = np.iinfo(np.uint64).max
    for n_codes, width in ((9, 12000), (1, 50), (3, 2)):
        codes = rng.integers(0, n_codes, 5000).astype(code_type)
        values = rng.integers(0, width, 5000).astype(np.uint64)
        values[:3] = [never, 0, 10240]
        limits = np.array([10240, 5000, 1, 0, never, 7, 11999, 3, 5000][:n_codes], np.uint64)
        got = rows_over_limit(values, codes, limits)
        assert got.dtype == np.int64
        assert got.tolist() == np.flatnonzero(values > limits[codes]).tolist()


def test_no_rows_are_over_a_limit_in_an_empty_chunk(build):
    got = rows_over_limit(np.zeros(0, np.uint64), np.zeros(0, np.int8), np.zeros(1, np.uint64))
    assert got.tolist() == []


@pytest.mark.parametrize("code_type", [np.int8, np.int16, np.int64])
@pytest.mark.parametrize("n", [1, 3, 20])
@pytest.mark.parametrize("memory_limit", [-1, 0, 500, 1 << 70])
def test_big_rows_are_the_rows_over_a_limit_and_the_tops_of_each_code(build, code_type, n, memory_limit):
    rng = np.random.default_rng(n)
    codes = rng.integers(0, 5, 3000).astype(code_type)
    memory = rng.integers(0, 1000, 3000).astype(np.uint64)  # many ties
    elements = rng.integers(0, 60, 3000).astype(np.uint64)
    limits = np.array([10, 59, 2**64 - 1, 0, 30], np.uint64)
    over, largest, longest = big_rows(memory, elements, codes, 5, limits, memory_limit, n)
    assert over.tolist() == np.flatnonzero((elements > limits[codes]) | (memory.astype(object) > memory_limit)).tolist()
    for got, values in ((largest, memory), (longest, elements)):
        want = reference(values, codes, 5, n)
        assert {code: rows.tolist() for code, rows in got.items()} == \
            {code: rows.tolist() for code, rows in want.items()}


def test_big_rows_of_an_empty_chunk_are_none(build):
    nothing = np.zeros(0, np.uint64)
    over, largest, longest = big_rows(nothing, nothing, np.zeros(0, np.int8), 2, np.zeros(2, np.uint64), 5, 3)
    assert over.tolist() == []
    assert [(code, rows.tolist()) for code, rows in (*largest.items(), *longest.items())] == [(0, []), (1, [])] * 2
