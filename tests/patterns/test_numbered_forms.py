"""The compiled numbering of keys' forms gives what dictionary-encoding the masked keys gives, and counts
the keys of each form."""

import numpy as np
import pyarrow as pa
import pytest
from conftest import SAMPLE_DUMPS, module_builds

import rdbscope
from rdbscope import kernels
from rdbscope.patterns import forms


def keys_of_many_shapes():
    """A real dump's keys, with edge cases: empty keys, bytes that are not UTF-8, lengths around eight,
    and 9,000 forms of their own (the table of forms grows several times)."""
    real = rdbscope.load(SAMPLE_DUMPS / "redis-7.0-default.rdb").table["key"].to_pylist()
    rng = np.random.default_rng(7)
    odd = [b"", b"\xff\x00\xfe", b"1234567", b"12345678", b"123456789", b"abcdefgh", b"abcdefgh1", b"0" * 40]
    distinct = [bytes(rng.integers(97, 123, 11).astype(np.uint8)) for _ in range(9000)]
    return pa.array(real + odd * 3 + distinct + real, pa.binary())


@pytest.mark.parametrize("build", sorted(module_builds("kernels._forms")))
def test_numbered_forms_are_the_dictionary_of_the_masked_keys(build, monkeypatch):
    monkeypatch.setattr(kernels, "forms", module_builds("kernels._forms")[build])
    keys = keys_of_many_shapes()
    for part in (keys, keys.slice(1000, 9500), keys.slice(0, 0)):  # a slice starts past the data's start
        expected_ids, expected_forms = forms.encode(forms.mask_digits(part))
        ids, found, counts = forms._numbered_forms(part)
        assert ids.tolist() == expected_ids.tolist()
        assert found.to_pylist() == expected_forms.to_pylist()
        assert counts.tolist() == np.bincount(expected_ids, minlength=len(expected_forms)).tolist()
    assert len(forms._numbered_forms(keys)[1]) > 9000


@pytest.mark.parametrize("build", sorted(module_builds("kernels._forms")))
def test_only_ascii_digits_are_masked_wherever_they_fall_in_a_word(build, monkeypatch):
    """Keys are masked eight bytes at a time: every byte value at every position of keys of 0 to 26
    bytes, among them the neighbours of the digits ("/", ":") and the same with the top bit set
    (0xb0-0xb9), which are no digits; keys that differ only in their digits share a form."""
    monkeypatch.setattr(kernels, "forms", module_builds("kernels._forms")[build])
    rng = np.random.default_rng(11)
    near = [0x2F, 0x30, 0x35, 0x39, 0x3A, 0xAF, 0xB0, 0xB9, 0xBA, 0x00, 0x80, 0xFF, 0x7F]
    keys = []
    for length in range(27):
        for _ in range(40):
            keys.append(bytes(rng.choice(near, length).astype(np.uint8)))
        base = bytes(rng.integers(97, 123, length).astype(np.uint8))
        keys.extend(base[:at] + bytes([value]) + base[at + 1:] for at in range(length) for value in range(256))
    keys = pa.array(keys + keys[::-3], pa.binary())
    for part in (keys, keys.slice(7, len(keys) - 20)):
        expected_ids, expected_forms = forms.encode(forms.mask_digits(part))
        ids, found, counts = forms._numbered_forms(part)
        assert ids.tolist() == expected_ids.tolist()
        assert found.to_pylist() == expected_forms.to_pylist()
        assert counts.tolist() == np.bincount(expected_ids, minlength=len(expected_forms)).tolist()


@pytest.mark.parametrize("build", sorted(module_builds("kernels._forms")))
def test_long_keys_are_compared_with_their_forms_in_every_byte(build, monkeypatch):
    """Keys of 16 bytes and more (compiled, compared with a form sixteen bytes a step, the last step
    overlapping the one before): one byte changed at every position, to a digit, a digit's neighbour or
    the same with the top bit set, numbers the keys as dictionary-encoding their masked bytes does."""
    monkeypatch.setattr(kernels, "forms", module_builds("kernels._forms")[build])
    rng = np.random.default_rng(13)
    near = [0x2F, 0x30, 0x35, 0x39, 0x3A, 0xAF, 0xB0, 0xB9, 0xBA, 0x00, 0x80, 0xFF, 0x61]
    keys = []
    for length in (15, 16, 17, 23, 24, 31, 32, 33, 40, 47, 48, 63):
        for base in (bytes(rng.choice(near, length).astype(np.uint8)), b"user:session:" + b"7" * (length - 13)):
            keys.append(base)
            keys.extend(base[:at] + bytes([value]) + base[at + 1:] for at in range(length) for value in near)
    keys = pa.array(keys + keys[::-5], pa.binary())
    expected_ids, expected_forms = forms.encode(forms.mask_digits(keys))
    ids, found, counts = forms._numbered_forms(keys)
    assert ids.tolist() == expected_ids.tolist()
    assert found.to_pylist() == expected_forms.to_pylist()
    assert counts.tolist() == np.bincount(expected_ids, minlength=len(expected_forms)).tolist()
