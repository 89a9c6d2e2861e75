"""The per-key steps of infer_patterns: forms by slices, first and last rows, counts."""

import random

import numpy as np
import pyarrow as pa
import pytest
from conftest import module_builds

from rdbscope import kernels
from rdbscope.patterns import infer_patterns
from rdbscope.patterns.forms import encode, encode_forms, mask_digits
from rdbscope.patterns.numbering import KeyForms, first_and_last


def some_keys(n=500, seed=3):
    rng = random.Random(seed)
    shapes = ["user:{}:profile", "session:{:x}", "v{}:item:{}", "k{}", "a:b:{}", "plain"]
    keys = []
    for _ in range(n):
        shape = rng.choice(shapes)
        keys.append(shape.format(*(rng.randrange(10 ** rng.randrange(1, 9)) for _ in range(shape.count("{"))))
                    .encode())
    return pa.array(keys, pa.binary())


def test_mask_digits_of_a_slice_holds_only_its_bytes():
    keys = pa.array([b"a1", b"b22", b"c333"], pa.binary())
    masked = mask_digits(keys.slice(1))
    assert masked.to_pylist() == [b"b00", b"c000"]
    assert masked.buffers()[2].size == len(b"b22c333")
    assert mask_digits(keys).to_pylist() == [b"a0", b"b00", b"c000"]


def test_forms_by_slices_are_the_forms_of_the_whole(ids_build):
    keys = some_keys()
    expected_ids, expected_forms = encode(mask_digits(keys))
    wanted = np.arange(len(expected_forms)) % 3 != 1
    rows = [np.flatnonzero(expected_ids == f) for f in range(len(expected_forms))]
    for slice_rows in (1, 7, 64, 499, 500, 10_000):
        key_forms, forms = encode_forms(keys, slice_rows=slice_rows)
        assert forms.equals(expected_forms), slice_rows
        assert np.array_equal(key_forms.per_key(np.arange(len(forms))), expected_ids), slice_rows
        assert np.array_equal(key_forms.counts(), np.bincount(expected_ids)), slice_rows
        first, last = key_forms.first_and_last(wanted)
        assert first.tolist() == [r[0] if w else -1 for r, w in zip(rows, wanted, strict=True)], slice_rows
        assert last.tolist() == [r[-1] if w else -1 for r, w in zip(rows, wanted, strict=True)], slice_rows
    key_forms, forms = encode_forms(keys.slice(13), slice_rows=50)
    expected_ids, expected_forms = encode(mask_digits(keys.slice(13)))
    assert forms.equals(expected_forms)
    assert np.array_equal(key_forms.per_key(np.arange(len(forms))), expected_ids)


@pytest.fixture(params=sorted(module_builds("kernels._ids")))
def ids_build(request, monkeypatch):
    """Each build of ``kernels._ids`` in turn, as the one the patterns' numbering runs."""
    monkeypatch.setattr(kernels, "ids", module_builds("kernels._ids")[request.param])


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_first_and_last_rows_of_wanted_groups(ids_build, dtype):
    rng = np.random.default_rng(5)
    groups = rng.integers(0, 40, 5000).astype(dtype)
    groups[4321] = 40  # a group seen once, far from both ends
    groups[:3] = groups[-3:] = 39  # a group at both ends
    wanted = np.ones(42, bool)  # 41 is wanted but never seen: both scans read every row
    wanted[[3, 17]] = False
    for part in (groups, groups[1:-1], groups[4000:4400], groups[:1], groups[:0]):
        first, last = first_and_last(part, wanted)
        for g in range(42):
            rows = np.flatnonzero(part == g)
            assert first[g] == (rows[0] if wanted[g] and len(rows) else -1), g
            assert last[g] == (rows[-1] if wanted[g] and len(rows) else -1), g
    seen_once = np.zeros(42, bool)
    seen_once[40] = True  # the only wanted group: the scans stop once they have it
    assert first_and_last(groups, seen_once)[0][40] == first_and_last(groups, seen_once)[1][40] == 4321
    assert first_and_last(groups, np.zeros(42, bool))[0].tolist() == [-1] * 42


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint16])
def test_counted_ids_are_those_of_bincount(ids_build, dtype):
    ids = np.random.default_rng(1).integers(0, 9, 10_001).astype(dtype)
    assert np.array_equal(kernels.count_ids(ids, 12), np.bincount(ids, minlength=12))
    assert np.array_equal(kernels.count_ids(ids[::3], 9), np.bincount(ids[::3], minlength=9))  # not contiguous
    assert kernels.count_ids(ids[:0], 3).tolist() == [0, 0, 0]
    many = np.random.default_rng(2).integers(0, 9000, 30_001).astype(dtype)  # more ids than FEW_IDS: one lane
    assert np.array_equal(kernels.count_ids(many, 9001), np.bincount(many, minlength=9001))


@pytest.mark.parametrize("id_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("value_dtype", [np.int32, np.int64, np.bool_, np.float64])
def test_values_per_key_are_those_numpy_takes(ids_build, id_dtype, value_dtype):
    keys = some_keys()
    for slice_rows in (64, 10_000):  # several slices, and one
        key_forms, forms = encode_forms(keys, slice_rows=slice_rows)
        key_forms = KeyForms(key_forms.n_forms, tuple((row, local.astype(id_dtype), numbers)
                                                      for row, local, numbers in key_forms.slices))
        table = (np.arange(len(forms)) * 7 % 5).astype(value_dtype)
        expected = table[encode(mask_digits(keys))[0]]
        found = key_forms.per_key(table)
        assert found.dtype == table.dtype and np.array_equal(found, expected), slice_rows


def test_patterns_of_a_big_column_match_those_of_its_slices():
    # More keys than one slice of encode_forms: the threaded path, compared with small inputs.
    keys = pa.array([f"user:{i}:profile".encode() for i in range(1_200_000)] + [b"config"], pa.binary())
    inferred = infer_patterns(keys)
    assert inferred.dictionary.to_pylist() == ["config", "user:{id}:profile"]
    assert np.array_equal(inferred.indices.to_numpy(), np.r_[np.ones(1_200_000, np.int32), 0])


@pytest.mark.parametrize("recent_lengths", [1, 64])
@pytest.mark.parametrize("build", sorted(module_builds("kernels._forms")))
def test_keys_of_every_length_that_differ_in_one_byte_get_forms_of_their_own(build, recent_lengths):
    """The kernel reads keys eight bytes at a time, their last bytes as the end of a word: a key differing
    from another of its length in any one byte, first, middle or last, is a form of its own. The last
    form of a key's length, tried first, is only taken when it is the key's own."""
    kernel = module_builds("kernels._forms")[build]
    keys = []
    for length in range(0, 27):
        base = bytes(97 + i % 26 for i in range(length))
        keys.append(base)
        for at in range(length):
            keys.append(base[:at] + b"#" + base[at + 1:])
    keys = keys + keys[::-1]  # every form again, in the other order
    offsets = np.concatenate(([0], np.cumsum([len(k) for k in keys]))).astype(np.int32)
    data = np.frombuffer(b"".join(keys), np.uint8)
    table = np.full(1 << 12, -1, np.int32)
    form_of_key = np.empty(len(keys), np.int32)
    form_offsets, form_bytes = np.zeros(len(keys) + 1, np.int32), np.empty(len(data), np.uint8)
    state = np.zeros(2, np.int64)
    recent = np.full(recent_lengths, -1, np.int32)
    key_counts = np.zeros(len(keys), np.int64)
    kernel.number_forms(offsets, data, table, form_of_key, form_offsets, form_bytes, key_counts, state, recent)
    numbered = {}
    expected = [numbered.setdefault(key, len(numbered)) for key in keys]
    assert state.tolist() == [len(keys), len(numbered)] and len(numbered) == len(keys) // 2
    assert form_of_key.tolist() == expected
    assert key_counts.tolist() == [2] * len(numbered) + [0] * len(numbered)
    written = bytes(form_bytes)  # the forms, as the keys have no digits
    ends = form_offsets[:len(numbered) + 1].tolist()
    assert [written[a:b] for a, b in zip(ends[:-1], ends[1:], strict=True)] == list(numbered)
