"""The kernels of ``kernels/_masked_counts.py``, in both builds, against plain numpy."""

import numpy as np
import pytest
from conftest import module_builds

from rdbscope import kernels

BUILDS = sorted(module_builds("kernels._masked_counts"))


@pytest.fixture(params=BUILDS)
def build(request, monkeypatch):
    monkeypatch.setattr(kernels, "masked_counts", module_builds("kernels._masked_counts")[request.param])
    return request.param


@pytest.mark.parametrize("id_type", [np.int32, np.int64, np.uint8])
def test_count_where_is_the_bincount_of_the_selected_ids(build, id_type):
    rng = np.random.default_rng(7)
    for n_groups, share in ((5, 0.3), (1, 0.5), (40, 0.0), (3, 1.0)):  # one group, none selected, all selected
        ids = rng.integers(0, n_groups, 3000).astype(id_type)
        mask = rng.random(3000) < share
        got = kernels.count_where(ids, mask, n_groups + 2)  # the last two groups have no key
        assert got.dtype == np.int64
        assert got.tolist() == np.bincount(ids[mask], minlength=n_groups + 2).tolist()


def test_count_where_reads_a_strided_mask(build):
    ids = np.array([0, 1, 1, 2, 2, 2], np.int64)
    mask = np.array([[True, False], [True, True], [False, True], [True, False], [True, True], [False, False]])[:, 0]
    assert kernels.count_where(ids, mask, 3).tolist() == [1, 1, 2]


@pytest.mark.parametrize("code_type", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint16])
def test_count_of_codes_is_the_bincount_of_the_rows_of_wanted_codes(build, code_type):
    rng = np.random.default_rng(9)
    for n_groups, n_codes in ((6, 5), (1, 1), (4, 3)):
        ids = rng.integers(0, n_groups, 3000).astype(np.int32)
        codes = rng.integers(0, n_codes, 3000).astype(code_type)
        for wanted in (rng.random(n_codes) < 0.5, np.ones(n_codes, bool), np.zeros(n_codes, bool)):
            got = kernels.count_of_codes(ids, codes, wanted, n_groups)
            assert got.dtype == np.int64
            assert got.tolist() == np.bincount(ids[wanted[codes]], minlength=n_groups).tolist()


def test_no_rows_count_nothing(build):
    empty = np.zeros(0, np.int64)
    assert kernels.count_where(empty, np.zeros(0, bool), 3).tolist() == [0, 0, 0]
    assert kernels.count_of_codes(empty, np.zeros(0, np.int8), np.ones(2, bool), 2).tolist() == [0, 0]
    assert kernels.count_where(empty, np.zeros(0, bool), 0).tolist() == []
