"""Settle what the masked digits of a typed form stand for.

A typed form still holds two kinds of masked digits:

* candidate numbers (13/10/8/6 digits), which become ``{ts}``, ``{date}`` or
  ``{id}`` depending on their values;
* digits glued to letters (``v2``, ``disk03``, ``A04246``), which are part of a
  literal when they are the same in every key of the form (``v2``) and a
  variable otherwise.

Both are decided from two sample keys of the form, its first and its last.
:func:`settle_typed` handles forms without candidate numbers from their two
samples already typed (with pyarrow, in bulk); :func:`settle` handles the rest
one by one.
"""

import re

import pyarrow.compute as pc

from . import markers as m
from .shapes import UNDERSCORE, UNDERSCORE_STAND_IN, resolve_number, type_text

_TOKEN = re.compile(r"[A-Za-z0-9]+", re.ASCII)
_WORD_THEN_NUMBER = re.compile(r"([A-Za-z]{2,})[0-9]+", re.ASCII)
_MASKED = re.compile(r"[0-9]", re.ASCII)


def _variable_token(word):
    """What a token whose digits vary becomes: ``disk{id}`` or ``{*}``."""
    prefix = _WORD_THEN_NUMBER.fullmatch(word)
    return prefix.group(1) + m.marker(m.ID) if prefix else m.marker(m.ANY)


def _settle_text(first, last):
    """One stretch of text between markers, from the two samples."""
    out = []
    end = 0
    for token in _TOKEN.finditer(first):
        start, stop = token.span()
        word = token.group(0)
        if not _MASKED.search(word) or word == last[start:stop]:
            continue
        out.append(first[end:start])
        out.append(_variable_token(word))
        end = stop
    out.append(first[end:])
    return "".join(out)


def as_if_varying(text):
    """The text with every token holding digits made variable, as if its digits varied.

    A key alone in its form keeps its digits (``SKU-E82907``); this gives what
    it would have been among siblings (``SKU-{*}``), so that it can join them.
    """
    return _TOKEN.sub(lambda t: _variable_token(t.group(0)) if _MASKED.search(t.group(0)) else t.group(0), text)


def _same_shape(form_parts, key_parts):
    if len(form_parts) != len(key_parts):
        return False
    return all(
        (_MASKED.sub("0", k) == _MASKED.sub("0", f)) if i % 2 == 0 else k == f
        for i, (f, k) in enumerate(zip(form_parts, key_parts, strict=True))
    )


def settle(typed_form, first_key, last_key):
    """The typed form with its digits settled, given its first and last key as text."""
    first, first_numbers = type_text(first_key)
    last, last_numbers = type_text(last_key)
    form_parts = m.MARKER_RE.split(typed_form)
    first_parts = m.MARKER_RE.split(first)
    last_parts = m.MARKER_RE.split(last)
    if not (_same_shape(form_parts, first_parts) and _same_shape(form_parts, last_parts)
            and len(first_numbers) == len(last_numbers)):
        # Not expected: the samples do not type like their form.  Keep the
        # form, with its masked digits as they are.
        return typed_form
    out = []
    numbers = iter(zip(first_numbers, last_numbers, strict=True))
    for i, (a, b) in enumerate(zip(first_parts, last_parts, strict=True)):
        if i % 2 == 0:
            out.append(_settle_text(a, b))
        elif a.startswith("n") and a[1:].isdigit():
            out.append(m.marker(resolve_number(next(numbers))))
        else:
            out.append(m.marker(a))
    return "".join(out)


def settle_typed(typed_form, first, last):
    """The typed form with its glued digits settled, from its two samples typed.

    For forms without candidate numbers: ``first`` and ``last`` are what
    :func:`.shapes.type_column` gives for the two sample keys.
    """
    if first == last:
        return first
    first_parts = m.MARKER_RE.split(first)
    last_parts = m.MARKER_RE.split(last)
    if len(first_parts) != len(last_parts):
        return typed_form
    return "".join(
        _settle_text(a, b) if i % 2 == 0 else m.marker(a)
        for i, (a, b) in enumerate(zip(first_parts, last_parts, strict=True))
    )


def as_if_varying_column(texts):
    """:func:`as_if_varying` over a pyarrow string array."""
    out = pc.replace_substring(texts, UNDERSCORE, UNDERSCORE_STAND_IN)
    out = pc.replace_substring_regex(out, r"\b([A-Za-z]{2,})[0-9]+\b", r"\1" + m.marker(m.ID))
    out = pc.replace_substring_regex(out, r"\b[A-Za-z0-9]*[0-9][A-Za-z0-9]*\b", m.marker(m.ANY))
    return pc.replace_substring(out, UNDERSCORE_STAND_IN, UNDERSCORE)
