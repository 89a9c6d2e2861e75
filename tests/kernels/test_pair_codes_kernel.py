"""The pair kernels of ``kernels/_ids.py`` (through ``KeyColumns.type_encodings``), in both builds, against plain
numpy."""

import numpy as np
import pyarrow as pa
import pytest
from conftest import module_builds

from rdbscope import kernels
from rdbscope.keyspace.columns import KeyColumns


@pytest.fixture(params=sorted(module_builds("kernels._ids")))
def build(request, monkeypatch):
    monkeypatch.setattr(kernels, "ids", module_builds("kernels._ids")[request.param])
    return request.param


@pytest.mark.parametrize("code_type", [np.int8, np.uint8, np.int16, np.int32, np.int64])
def test_pairs_are_counted_and_coded_as_numpy_combines_them(build, code_type):
    rng = np.random.default_rng(4)
    first, second = rng.integers(0, 100, 5000).astype(code_type), rng.integers(0, 120, 5000).astype(code_type)
    combined = first.astype(np.int64) * 120 + second
    counts = np.zeros(100 * 120, np.int64)
    kernels.ids.count_pairs(kernels.as_codes(first), kernels.as_codes(second), 120, counts)
    assert counts.tolist() == np.bincount(combined, minlength=100 * 120).tolist()
    lookup = rng.integers(-30_000, 30_000, 100 * 120).astype(np.int16)
    out = np.empty(5000, np.int16)
    kernels.ids.pair_codes(kernels.as_codes(first), kernels.as_codes(second), 120, lookup, out)
    assert out.tolist() == lookup[combined].tolist()


def test_type_encodings_number_the_pairs_present_in_order(build):
    rng = np.random.default_rng(8)
    types = np.array(["string", "hash", "list", "zset"])[rng.integers(0, 4, 3000)]
    encodings = np.array(["raw", "int", "listpack", "quicklist", "hashtable"])[rng.integers(0, 5, 3000)]
    table = pa.table({"type": pa.array(types).dictionary_encode(),
                      "encoding": pa.array(encodings.astype(object)).dictionary_encode()})
    codes, pairs = KeyColumns(table, None).type_encodings
    assert list(pairs) == sorted(set(zip(types.tolist(), encodings.tolist(), strict=True)),
                                 key=lambda p: (table["type"].chunk(0).dictionary.to_pylist().index(p[0]),
                                                table["encoding"].chunk(0).dictionary.to_pylist().index(p[1])))
    assert [pairs[c] for c in codes.tolist()] == list(zip(types.tolist(), encodings.tolist(), strict=True))
