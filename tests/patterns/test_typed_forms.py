"""Forms typed before are looked up: type_forms gives what type_column gives, whatever was typed before."""

import pyarrow as pa
from conftest import SAMPLE_DUMPS

import rdbscope
from rdbscope.patterns import shapes
from rdbscope.patterns.forms import encode, mask_digits
from rdbscope.rdb.keytext import key_texts


def sample_forms():
    keys = rdbscope.load(SAMPLE_DUMPS / "redis-7.0-default.rdb").table["key"].combine_chunks()
    extra = pa.array([b"user_0:a0b0c0d0e0f0", b"0000-00-00", b"x@y.io:0", b"\xff:0", b"plain",
                      b"long:" + b"ab0" * 200], pa.binary())  # too long to be kept
    return key_texts(encode(mask_digits(pa.concat_arrays([keys, extra])))[1])


def test_typed_forms_are_those_of_type_column(monkeypatch):
    forms = sample_forms()
    assert 20 < len(forms) <= shapes.FEW_FORMS
    monkeypatch.setattr(shapes, "_TYPED", {})
    monkeypatch.setattr(shapes, "TYPED_LIMIT", len(forms) // 2 + 3)  # cleared while the second half is typed
    expected = shapes.type_column(forms)
    halves = forms.slice(0, len(forms) // 2), forms.slice(len(forms) // 3)
    for part in (halves[0], halves[1], forms, forms.take(pa.array(range(len(forms) - 1, -1, -1)))):
        typed = shapes.type_forms(part)
        assert typed.type == part.type and typed.equals(shapes.type_column(part))
    assert shapes.type_forms(forms).equals(expected)
    assert 0 < len(shapes._TYPED) <= shapes.TYPED_LIMIT
    assert not [text for text in shapes._TYPED if len(text) > shapes.TYPED_LENGTH]
    assert shapes.type_forms(forms.cast(pa.large_string())).equals(expected.cast(pa.large_string()))
    monkeypatch.setattr(shapes, "FEW_FORMS", 3)  # many forms: typed again, in threads
    assert shapes.type_forms(forms).equals(expected)
    assert len(shapes.type_forms(forms.slice(0, 0))) == 0
