"""Numbers that never vary stay literal: ``shop:{id}:product:{id}:price`` -> ``shop:1:product:{id}:price``.

Digits are masked before patterns are inferred, so a number that is the same in
every key of a group (a cache ``VERSION``, a rate limit's ``1000/1/hour``) would
otherwise show as ``{id}``. Once each key has its pattern, every ``{id}`` of a
pattern with enough keys is read back from its keys; one that holds a single
value throughout is written as that value.
"""

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .forms import decode
from .text import PLACEHOLDER

_ID = "{id}"


def capturing_regex(pattern):
    """A regex (Python and RE2 alike) over keys of ``pattern``, capturing each ``{id}`` as ``n0``, ``n1``, …"""
    parts, position, n = [], 0, 0
    for match in PLACEHOLDER.finditer(pattern):
        parts.append(re.escape(pattern[position:match.start()]))
        if match.group(0) == _ID:
            parts.append(f"(?P<n{n}>[0-9]+)")
            n += 1
        else:
            parts.append("(?:.+?)")
        position = match.end()
    parts.append(re.escape(pattern[position:]))
    return "^" + "".join(parts) + "$"


def _constants(texts, regex):
    """``{id}`` position -> its single value across ``texts``; None when a text does not match."""
    first = re.match(regex, texts[0].as_py(), re.S)
    last = re.match(regex, texts[-1].as_py(), re.S)
    if first is None or last is None:
        return None
    same = [name for name, value in first.groupdict().items() if value == last.group(name)]
    if not same:
        return {}
    found = pc.extract_regex(texts, regex)
    if found.null_count:
        return None
    constants = {}
    for name in same:
        values = found.field(name)
        if pc.count_distinct(values).as_py() == 1:
            constants[int(name[1:])] = values[0].as_py()
    return constants


def _with_numbers(pattern, constants):
    pieces = pattern.split(_ID)
    out = [pieces[0]]
    for n, piece in enumerate(pieces[1:]):
        out.append(constants.get(n, _ID))
        out.append(piece)
    return "".join(out)


def keep_constant_numbers(keys, indices, dictionary, min_keys):
    """``(indices, dictionary)`` with the ``{id}`` that hold one value in all of a pattern's keys written out.

    ``keys``: binary array; ``indices``: int32 pattern index per key into ``dictionary``
    (a sorted list of patterns). Only patterns with at least ``min_keys`` keys are read.
    """
    counts = np.bincount(indices, minlength=len(dictionary))
    candidates = [i for i, p in enumerate(dictionary) if _ID in p and counts[i] >= min_keys]
    if not candidates:
        return indices, dictionary
    order = np.argsort(indices, kind="stable")
    starts = np.concatenate(([0], np.cumsum(counts)))
    renamed = list(dictionary)
    for i in candidates:
        texts = decode(keys.take(pa.array(order[starts[i]:starts[i + 1]])))
        constants = _constants(texts, capturing_regex(dictionary[i]))
        if constants:
            renamed[i] = _with_numbers(dictionary[i], constants)
    if renamed == list(dictionary):
        return indices, dictionary
    merged = sorted(set(renamed))
    position = {p: n for n, p in enumerate(merged)}
    lookup = np.array([position[p] for p in renamed], dtype=np.int32)
    return lookup[indices], merged
