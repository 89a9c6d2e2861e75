"""Typed placeholders: which substrings of a key are ids, uuids, dates, ….

The same ordered list of rules is applied two ways:

* :func:`type_column` runs them with pyarrow (RE2) over a whole column of
  distinct *forms* (keys whose digits have all been replaced by ``0``);
* :func:`type_text` runs them with Python's ``re`` over one string, and also
  returns the digits of the numbers whose kind depends on their value.

No rule looks at the value of a digit, so typing a form and typing any key
that has that form give the same result apart from those numbers.

Rules, in order (a later rule never sees what an earlier one replaced):

=========  ==================================================================
email      ``local@domain.tld``
token      JSON Web Token: three base64url parts, the first two ``eyJ…``
uuid       8-4-4-4-12 hex digits
ts         ISO date-time ``2024-05-01T10:00:00Z`` (offset and seconds optional)
ip         dotted IPv4
date       ``2024-05-01`` (also ``/`` or ``.``), ISO week ``2024W20``/``2024-w20``,
           year and month ``2024-05``
b64        (see below)
number     a standalone run of digits: 13 or 10 digits are epoch candidates,
           8 and 6 digits compact-date candidates (``20240501``, ``202405``),
           settled by :func:`resolve_number`; any other length is ``id``
b64        a run of at least 20 base64 characters (``+`` and ``/`` included)
           holding a digit, an upper-case and a lower-case letter: random
           tokens, base64 blobs.  It comes before numbers so that digits
           between ``/`` and ``+`` do not cut it up.
hex        a standalone run of at least 8 hex digits (one case) holding a
           decimal digit: hashes, Mongo object ids, session ids; all-digit
           runs were already numbers, short words such as ``cafe`` are too
           short, and a run of the letters a-f alone (``deadbeef``, 300
           ``a``) is a word, not a hash (one of 8 random hex digits lacks a
           decimal digit 4 times in 10,000, one of 32 never)
=========  ==================================================================

"Standalone" means not glued to a letter or digit: ``order-12345`` and
``user_42`` hold numbers, ``v2``, ``disk03`` and ``sha256`` do not (their digits
are looked at later, see :mod:`rdbscope.patterns.forms`).
"""

import itertools
import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import markers as m
from .threads import by_slices

# RE2 and Python both treat "_" as a word character, so "user_42" would have no
# word boundary before 42.  While typing, "_" is swapped for a control
# character that is not a word character.
UNDERSCORE = "_"
UNDERSCORE_STAND_IN = "\x1f"

_WRAP_OPEN = "\ue002"
_WRAP_CLOSE = "\ue003"

_B64_CHARS = "A-Za-z0-9+/"
_U = UNDERSCORE_STAND_IN

# (name, pattern) in application order.  Patterns use only syntax that RE2 and
# Python's re (with re.ASCII) read the same way.
_RULES_BEFORE_NUMBERS = [
    (m.EMAIL, rf"[A-Za-z0-9.%+{_U}-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{{2,}}\b"),
    (m.TOKEN, rf"\beyJ[A-Za-z0-9{_U}-]+\.eyJ[A-Za-z0-9{_U}-]+\.[A-Za-z0-9{_U}-]+"),
    (m.UUID, r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"),
    (m.TS, r"\b[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?"
           r"(?:Z|[+-][0-9]{2}:?[0-9]{2})?"),
    (m.IP, r"\b[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\b"),
    (m.DATE, r"\b[0-9]{4}[-/.][0-9]{2}[-/.][0-9]{2}\b"),
    (m.DATE, r"\b[0-9]{4}-?[Ww][0-9]{2}\b"),
    (m.DATE, r"\b[0-9]{4}-[0-9]{2}\b"),
]
_NUMBER = r"\b[0-9]+\b"
_HEX_RUN = r"\b(?:[0-9a-f]{8,}|[0-9A-F]{8,})\b"
_HEX_WITH_DIGIT = "[a-fA-F]*[0-9][0-9a-fA-F]*"
_B64_RUN = rf"[{_B64_CHARS}]{{20,}}={{0,2}}"
_X = f"[{_B64_CHARS}=]*"
_B64_MIXED = _X + "(?:" + "|".join(
    f"{a}{_X}{b}{_X}{c}"
    for a, b, c in itertools.permutations(("[0-9]", "[A-Z]", "[a-z]"))
) + ")" + _X

_PY_RULES_BEFORE = [(name, re.compile(p, re.ASCII)) for name, p in _RULES_BEFORE_NUMBERS]
_PY_NUMBER = re.compile(_NUMBER, re.ASCII)
_PY_B64_RUN = re.compile(_B64_RUN, re.ASCII)
_PY_B64_MIXED = re.compile(_B64_MIXED, re.ASCII)
_PY_HEX_RUN = re.compile(_HEX_RUN, re.ASCII)
_PY_HEX_WITH_DIGIT = re.compile(_HEX_WITH_DIGIT, re.ASCII)


def _where_matching(column, required, passes):
    """``passes(column)`` applied only to the rows where every regex of ``required`` matches.

    ``required`` must hold wherever a pass could change a row. Each regex is
    tried only on the rows the ones before it left, and the passes run on the
    rows left at the end: the cost of a regex pass is mostly per row.
    """
    rows = None  # positions in column of the rows left; None while all are
    left = column
    for pattern in required:
        found = pc.match_substring_regex(left, pattern)
        hits = pc.sum(found).as_py() or 0
        if hits == 0:
            return column
        if hits < len(left):
            left = left.filter(found)
            kept = np.flatnonzero(found.to_numpy(zero_copy_only=False))
            rows = kept if rows is None else rows[kept]
    if rows is None:
        return passes(column)
    mask = np.zeros(len(column), bool)
    mask[rows] = True
    return pc.replace_with_mask(column, pa.array(mask), passes(left))


def _replacing(pattern, replacement):
    """A pass replacing ``pattern`` everywhere with ``replacement``."""
    return lambda column: pc.replace_substring_regex(column, pattern, replacement)


def _any(patterns):
    return "|".join(f"(?:{p})" for p in patterns)


def _typed_before_numbers(column):
    for name, pattern in _RULES_BEFORE_NUMBERS:
        column = _where_matching(column, [pattern], _replacing(pattern, m.marker(name)))
    return column


def _typing_runs(run, mixed, name):
    """A pass replacing with ``name``'s marker the runs of ``run`` that are wholly ``mixed``.

    b64 and hex need a length and a mix of characters; RE2 cannot say both at
    once, so runs are bracketed first and the bracketed mixed ones replaced.
    """
    def passes(column):
        column = pc.replace_substring_regex(column, run, _WRAP_OPEN + r"\0" + _WRAP_CLOSE)
        column = pc.replace_substring_regex(column, _WRAP_OPEN + mixed + _WRAP_CLOSE, m.marker(name))
        column = pc.replace_substring(column, _WRAP_OPEN, "")
        return pc.replace_substring(column, _WRAP_CLOSE, "")

    return passes


def _typed_runs_text(text, run, mixed, name):
    """:func:`_typing_runs` on one string (``run`` and ``mixed`` compiled)."""
    return run.sub(lambda match: m.marker(name) if mixed.fullmatch(match.group(0)) else match.group(0), text)


_CANDIDATE_NUMBERS = [rf"\b[0-9]{{{length}}}\b" for length in m.NUMBER_CANDIDATE_LENGTHS]


def _typed_candidate_numbers(column):
    for length, pattern in zip(m.NUMBER_CANDIDATE_LENGTHS, _CANDIDATE_NUMBERS, strict=True):
        column = _where_matching(column, [pattern], _replacing(pattern, m.marker(m.number_candidate(length))))
    return column


def type_column(forms):
    """Apply every rule to a pyarrow string array of forms (digits already ``0``).

    Numbers of a candidate length become ``n13``/``n10``/``n8``/``n6`` markers.
    """
    out = pc.replace_substring(forms, UNDERSCORE, UNDERSCORE_STAND_IN)
    out = _where_matching(out, [_any(p for _, p in _RULES_BEFORE_NUMBERS)], _typed_before_numbers)
    out = _where_matching(out, [_B64_RUN, "[A-Z]", "[a-z]", "[0-9]"], _typing_runs(_B64_RUN, _B64_MIXED, m.B64))
    out = _where_matching(out, [_any(_CANDIDATE_NUMBERS)], _typed_candidate_numbers)
    out = _where_matching(out, [_NUMBER], _replacing(_NUMBER, m.marker(m.ID)))
    out = _where_matching(out, [_HEX_RUN], _typing_runs(_HEX_RUN, _HEX_WITH_DIGIT, m.HEX))
    return pc.replace_substring(out, UNDERSCORE_STAND_IN, UNDERSCORE)


#: Typed forms of at most ``TYPED_LENGTH`` characters kept from one call of :func:`type_forms` to the
#: next (cleared past ``TYPED_LIMIT``: a few megabytes at most).
_TYPED: dict = {}
TYPED_LIMIT = 1 << 14
TYPED_LENGTH = 256
#: At most this many forms are looked up in ``_TYPED``; more are typed in threads (see ``threads.py``).
FEW_FORMS = 1024


def type_forms(forms):
    """:func:`type_column` of ``forms``. The chunks of a dump mostly share their few forms, and typing
    costs a dozen regex passes however few there are: a form typed before is looked up (each row is
    typed on its own, so this is what typing them all again gives)."""
    if len(forms) > FEW_FORMS:
        return by_slices(type_column, forms)
    texts = forms.to_pylist()
    typed = {text: _TYPED.get(text) for text in texts}
    missing = [text for text, found in typed.items() if found is None]
    if missing:
        newly = type_column(pa.array(missing, forms.type)).to_pylist()
        typed.update(zip(missing, newly, strict=True))
        if len(_TYPED) + len(missing) > TYPED_LIMIT:
            _TYPED.clear()
        _TYPED.update((text, result) for text, result in zip(missing, newly, strict=True)
                      if len(text) <= TYPED_LENGTH)
    return pa.array([typed[text] for text in texts], forms.type)


def type_text(text):
    """Apply every rule to one string.

    Returns ``(typed, numbers)``: ``typed`` is what :func:`type_column` gives for
    the string's form, ``numbers`` the digits of each candidate number in order.
    """
    out = text.replace(UNDERSCORE, UNDERSCORE_STAND_IN)
    for name, regex in _PY_RULES_BEFORE:
        out = regex.sub(m.marker(name), out)
    out = _typed_runs_text(out, _PY_B64_RUN, _PY_B64_MIXED, m.B64)
    numbers = []

    def number(match):
        digits = match.group(0)
        if len(digits) in m.NUMBER_CANDIDATE_LENGTHS:
            numbers.append(digits)
            return m.marker(m.number_candidate(len(digits)))
        return m.marker(m.ID)

    out = _PY_NUMBER.sub(number, out)
    out = _typed_runs_text(out, _PY_HEX_RUN, _PY_HEX_WITH_DIGIT, m.HEX)
    return out.replace(UNDERSCORE_STAND_IN, UNDERSCORE), numbers


# Plausible epochs: 2000-01-01 to 2100-01-01.
_EPOCH_S_MIN, _EPOCH_S_MAX = 946_684_800, 4_102_444_800
_YEAR_MIN, _YEAR_MAX = 1970, 2100


def number_kind(digits):
    """What a candidate number is by its value: ``ts``, ``date`` or ``id``."""
    value = int(digits)
    if len(digits) == 10 and _EPOCH_S_MIN <= value < _EPOCH_S_MAX:
        return m.TS
    if len(digits) == 13 and _EPOCH_S_MIN * 1000 <= value < _EPOCH_S_MAX * 1000:
        return m.TS
    if len(digits) == 8:
        year, month, day = value // 10000, value // 100 % 100, value % 100
        if _YEAR_MIN <= year <= _YEAR_MAX and 1 <= month <= 12 and 1 <= day <= 31:
            return m.DATE
    if len(digits) == 6:
        year, month = value // 100, value % 100
        if _YEAR_MIN <= year <= _YEAR_MAX and 1 <= month <= 12:
            return m.DATE
    return m.ID


def resolve_number(samples):
    """The kind of a number from the values seen in its place: all must agree."""
    kinds = {number_kind(digits) for digits in samples}
    return kinds.pop() if len(kinds) == 1 else m.ID
