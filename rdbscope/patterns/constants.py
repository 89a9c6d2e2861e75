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

from ..rdb.keytext import key_texts
from .numbering import first_and_last
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


def _same_in_samples(first, last, regex):
    """``{name: value}`` of the ``{id}`` groups equal in the two sample keys (None: a sample does not match)."""
    first, last = re.match(regex, first, re.S), re.match(regex, last, re.S)
    if first is None or last is None:
        return None
    return {name: value for name, value in first.groupdict().items() if value == last.group(name)}


def _in_every_key(texts, pattern, n, value):
    """Whether the ``n``-th ``{id}`` of ``pattern`` is ``value`` in every text, when a prefix or a suffix
    tells (only literal text before or after it); None when it takes a regex."""
    literals = PLACEHOLDER.split(pattern)
    placeholders = PLACEHOLDER.findall(pattern)
    at = [i for i, p in enumerate(placeholders) if p == _ID][n]
    before, after = literals[at], literals[at + 1]
    if at == 0 and after[:1] and not after[0].isdigit():
        return pc.all(pc.starts_with(texts, before + value + after)).as_py()
    if at == len(placeholders) - 1 and before[-1:] and not before[-1].isdigit():
        return pc.all(pc.ends_with(texts, before + value + after)).as_py()
    return None


def _constants(texts, pattern, regex, shared):
    """``{id}`` position -> its single value across ``texts``, of the groups ``shared`` (name -> sampled value)."""
    constants, unsure = {}, []
    for name, value in shared.items():
        everywhere = _in_every_key(texts, pattern, int(name[1:]), value)
        if everywhere is None:
            unsure.append(name)
        elif everywhere:
            constants[int(name[1:])] = value
    if unsure:
        found = pc.extract_regex(texts, regex)
        if found.null_count:
            return {}
        for name in unsure:
            if pc.count_distinct(found.field(name)).as_py() == 1:
                constants[int(name[1:])] = shared[name]
    return constants


def _with_numbers(pattern, constants):
    pieces = pattern.split(_ID)
    out = [pieces[0]]
    for n, piece in enumerate(pieces[1:]):
        out.append(constants.get(n, _ID))
        out.append(piece)
    return "".join(out)


def keep_constant_numbers(keys, indices, dictionary, counts, min_keys):
    """``(indices, dictionary, unwritten)`` with the ``{id}`` that hold one value in all of a pattern's keys
    written out; ``unwritten`` maps each pattern that got numbers so to the pattern it was.

    ``keys``: binary array; ``indices``: int32 pattern index per key into ``dictionary``
    (a sorted list of patterns); ``counts``: keys per pattern. Only patterns with at least
    ``min_keys`` keys are read.
    """
    candidates = [i for i, p in enumerate(dictionary) if _ID in p and counts[i] >= min_keys]
    if not candidates:
        return indices, dictionary, {}
    # Each pattern's first and last key are read first; only a number they share is read in all keys.
    wanted = np.zeros(len(dictionary), bool)
    wanted[candidates] = True
    first, last = first_and_last(indices, wanted)
    samples = key_texts(keys.take(pa.array(np.concatenate((first[candidates], last[candidates])), pa.int64())))
    samples = samples.to_pylist()
    renamed = list(dictionary)
    for n, i in enumerate(candidates):
        regex = capturing_regex(dictionary[i])
        shared = _same_in_samples(samples[n], samples[len(candidates) + n], regex)
        if shared:
            texts = key_texts(keys.take(pa.array(np.flatnonzero(indices == i))))
            constants = _constants(texts, dictionary[i], regex, shared)
            if constants:
                renamed[i] = _with_numbers(dictionary[i], constants)
    if renamed == list(dictionary):
        return indices, dictionary, {}
    merged = sorted(set(renamed))
    position = {p: n for n, p in enumerate(merged)}
    lookup = np.array([position[p] for p in renamed], dtype=np.int32)
    unwritten = {new: old for new, old in zip(renamed, dictionary, strict=True) if new != old}
    return lookup[indices], merged, unwritten
