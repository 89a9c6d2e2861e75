"""Cardinality-based generalization, in the manner of the Drain log miner.

Typed forms are grouped by their separator and number of segments, then read
segment by segment, left to right, as a prefix tree (the walk is in
:mod:`.tree`; this module decides one node).  At each node the values
found in the next segment decide, with their key counts, whether that segment
is a constant (each value starts its own branch) or a variable (the values
merge into one ``{*}`` branch):

* values that are a placeholder (``{id}``, ``{hex}``, …) are already general;
  a node holding both ``{id}`` and ``{hex}`` (hex ids that happened to be all
  digits) keeps ``{hex}``, and one holding ``{id}`` with ``{ts}`` or
  ``{date}`` (ids whose values happened to look like epochs) keeps ``{id}``,
  provided both are followed by the same rest of key at least once;
* a literal matching a partly typed sibling (``disk03`` next to ``disk{id}``)
  joins that sibling;
* the other literals are a variable when there are at least ``min_distinct``
  of them and they are many for their keys (``min_ratio``), or when there are
  at least ``many_distinct``.  Literals with far more keys than the typical
  one (``heavy_factor`` × median, at least ``heavy_min_keys``) stay literal
  unless they are followed by what the light ones are followed by:
  ``cache:product`` keeps its branch even when ``cache:`` also has hundreds
  of one-off children, while a user with thousands of messages is a user.

When a variable's values consistently contain a softer separator (most hold
the same number of ``-``, say), the values are split on it and each part is
decided the same way.  The split is kept when some parts are variables and
the others take at most ``split_max_literals`` values, so ``SKU-A04246``
gives ``SKU-{*}``, while slugs of varying length and word pairs such as
``charlie-november`` give ``{*}``.

The first segment of a key with separators is never a variable (it is the
namespace).  Keys without any separator are grouped by length and the
punctuation they hold, and become ``{*}`` only when ``flat_min_distinct`` of
them share one.
"""

import dataclasses
import re
from collections import Counter

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import markers as m
from .delimiters import softer_than
from .digits import as_if_varying, as_if_varying_column


@dataclasses.dataclass(frozen=True)
class Thresholds:
    """When literal values of one segment are generalized to ``{*}``.

    Attributes:
        min_distinct: distinct literal values a node needs before they can be
            a variable (fewer stay literal siblings).
        min_ratio: ... and distinct values per key at least this (on average
            at most 1/min_ratio keys per value), unless ``many_distinct``.
        many_distinct: this many distinct values are a variable whatever
            their key counts.
        heavy_min_keys, heavy_factor: a value with at least
            max(heavy_min_keys, heavy_factor × median keys per value) keys is
            heavy: left out of the variable unless it continues like the others.
        flat_min_distinct: for keys without separators, the distinct values
            of one length and punctuation needed to become ``{*}``.
        split_share: share of a variable's values that must hold a softer
            separator the same number of times for the values to be split on it.
        split_max_literals: in such a split, the most values a constant part
            may take.
        constant_min_keys: keys a pattern needs before a number that is the
            same in all of them is shown as that number rather than ``{id}``.
    """

    min_distinct: int = 10
    min_ratio: float = 0.05
    many_distinct: int = 100
    heavy_min_keys: int = 100
    heavy_factor: float = 20.0
    flat_min_distinct: int = 50
    split_share: float = 0.9
    split_max_literals: int = 4
    constant_min_keys: int = 10


_UNIFY = ((m.HEX, (m.ID,)), (m.ID, (m.TS, m.DATE)))
_ANY = m.marker(m.ANY)


def _unify_placeholders(names, continuations):
    """Map each placeholder name present at one node to the name it is shown as.

    ``continuations`` (name -> set of what follows in the key) limits merging to
    placeholders that are followed by the same thing at least once, so that
    ``order:{date}:{id}`` and ``order:{id}:items`` stay apart.
    """
    target = {name: name for name in names}
    for keeper, absorbed in _UNIFY:
        if keeper not in names:
            continue
        for name in absorbed:
            if name in target and target[name] == name and (
                continuations is None or continuations[name] & continuations[keeper]
            ):
                target[name] = keeper
    return target


_DIGIT = re.compile(r"[0-9]", re.ASCII)
# Above this many values, per-value string work is done with pyarrow.
_BULK = 1000


def _absorb_into_templates(literals):
    """Map literals that are a partly typed sibling with other digits (``disk03`` ~ ``disk{id}``)."""
    templates = {v for v in literals if m.OPEN in v}
    if not templates:
        return {}
    candidates = [v for v in literals if m.OPEN not in v and _DIGIT.search(v)]
    if len(candidates) > _BULK:
        varying = as_if_varying_column(pa.array(candidates, pa.string())).to_pylist()
    else:
        varying = [as_if_varying(v) for v in candidates]
    return {v: t for v, t in zip(candidates, varying, strict=True) if t in templates}


def _variable_literals(counts, thresholds, min_distinct, continuations):
    """The literals (value -> keys) that are instances of one variable.

    ``continuations`` (value -> ids of what follows it, or None at the last
    segment) lets a heavy value join the variable when it is followed by what
    the light values are followed by: a user with thousands of messages is
    still a user, while ``cache:product:…`` beside ``cache:<hash>:meta`` is not.
    """
    if len(counts) < min_distinct:
        return []
    ordered = sorted(counts.values())
    heavy_cut = max(thresholds.heavy_min_keys, thresholds.heavy_factor * ordered[len(ordered) // 2])
    light = [v for v, c in counts.items() if c < heavy_cut]
    n_keys = sum(counts[v] for v in light)
    if not (len(light) >= min_distinct and (
        len(light) >= thresholds.many_distinct or len(light) >= thresholds.min_ratio * n_keys
    )):
        return []
    if continuations is None or len(light) == len(counts):
        return light
    seen_after_light = set().union(*(continuations[v] for v in light))
    heavy_alike = [v for v, c in counts.items() if c >= heavy_cut and continuations[v] & seen_after_light]
    return light + heavy_alike


def _braced(value):
    return len(value) >= 2 and value[0] == "{" and value[-1] == "}"


def _split_templates(values, counts, thresholds, delimiters):
    """Templates for the values of one variable: a split on a softer separator, or ``{*}``.

    Values that are hash tags (``{alice}``) keep their braces: ``{{*}}``.
    """
    joined = "\n".join(values)
    braced = [v for v in values if _braced(v)] if "{" in joined else []
    if braced and len(braced) >= thresholds.split_share * len(values):
        inner_counts = Counter()
        for v in braced:
            inner_counts[v[1:-1]] += counts[v]
        inner = _split_templates(list(inner_counts), inner_counts, thresholds, delimiters)
        return {v: "{" + inner[v[1:-1]] + "}" if _braced(v) else _ANY for v in values}
    column = None
    for delimiter in delimiters:
        if delimiter not in joined:
            continue
        if len(values) > _BULK:
            if column is None:
                column = pa.array(values, pa.string())
            occurrences = pc.count_substring(column, delimiter).to_numpy(zero_copy_only=False)
        else:
            occurrences = np.array([v.count(delimiter) for v in values])
        found, how_often = np.unique(occurrences, return_counts=True)
        best = int(np.argmax(how_often))  # ties: the smallest count, as np.unique sorts
        times, n = int(found[best]), int(how_often[best])
        if times == 0 or n < thresholds.split_share * len(values):
            continue
        chosen = sorted(v for v, k in zip(values, occurrences.tolist(), strict=True) if k == times)
        parts = {v: v.split(delimiter) for v in chosen}
        decided = []
        for j in range(times + 1):
            part_counts = Counter()
            for v in chosen:
                part_counts[parts[v][j]] += counts[v]
            decided.append(decide(part_counts, thresholds, softer_than(delimiter)))
        variable = [all(_ANY in shown for shown in d.values()) for d in decided]
        constant_enough = all(
            is_variable or len(set(d.values())) <= thresholds.split_max_literals
            for is_variable, d in zip(variable, decided, strict=True)
        )
        if all(variable) or not any(variable) or not constant_enough:
            break
        templates = {v: delimiter.join(decided[j][parts[v][j]] for j in range(times + 1)) for v in chosen}
        return {v: templates.get(v, _ANY) for v in values}
    return dict.fromkeys(values, _numbered_word(values) or _glued_word(values) or _ANY)


_WORD_NUMBER = re.compile(r"([A-Za-z]+)(?:[0-9]+|" + re.escape(m.marker(m.ID)) + ")")


def _numbered_word(values):
    """``len{id}`` when every value is one word followed by a number, else None."""
    words = set()
    for value in values:
        match = _WORD_NUMBER.fullmatch(value)
        if not match:
            return None
        words.add(match.group(1))
        if len(words) > 1:
            return None
    return words.pop() + m.marker(m.ID)


_LEADING_LETTERS = re.compile(r"[A-Za-z]+")


def _glued_word(values):
    """``cache{*}`` when every value is one word with an id glued on (``cache0qkgkc2j…``), else None.

    The word is the letters all values start with; it is kept only when what follows it
    looks like an id: holds a digit in nearly every value, or has one length in all of them
    (names such as ``alice`` and ``alan`` share ``al`` but neither).
    """
    word = _LEADING_LETTERS.match(min(values))
    if word is None or len(word.group(0)) < 2:
        return None
    common = word.group(0)
    for value in values:
        while not value.startswith(common):
            common = common[:-1]
        if len(common) < 2:
            return None
    rests = [value[len(common):] for value in values]
    with_digit = sum(1 for rest in rests if _DIGIT.search(rest))
    if with_digit < 0.9 * len(rests) and len({len(rest) for rest in rests}) > 1:
        return None
    return common + _ANY


def decide(counts, thresholds, delimiters, min_distinct=None, continuations=None):
    """What each value of one segment at one node becomes.

    ``counts`` maps value -> number of keys; returns value -> output value.
    ``min_distinct`` overrides the threshold (a huge number keeps literals).
    ``continuations`` maps each value to the set of ids of what follows it in
    its keys (None where that is unknown or always nothing).
    """
    if min_distinct is None:
        min_distinct = thresholds.min_distinct
    out = {}
    placeholders = [v for v in counts if v[:1] == m.OPEN and m.is_placeholder(v)]
    if placeholders:
        following = None
        if continuations is not None:
            following = {m.placeholder_name(v): continuations[v] for v in placeholders}
        target = _unify_placeholders({m.placeholder_name(v) for v in placeholders}, following)
        for v in placeholders:
            out[v] = m.marker(target[m.placeholder_name(v)])
    literals = {v: c for v, c in counts.items() if v not in out}
    absorbed = _absorb_into_templates(literals)
    for value, template in absorbed.items():
        literals[template] += literals.pop(value)
        if continuations is not None:
            continuations[template] = continuations[template] | continuations[value]
    variable = _variable_literals(literals, thresholds, min_distinct, continuations)
    if variable:
        out.update(_split_templates(variable, literals, thresholds, delimiters))
    for v in literals:
        out.setdefault(v, v)
    if variable and m.marker(m.B64) in out.values():
        # Random ids of a wider alphabet than base64 (url-safe session ids) are typed {b64}
        # only when they happen to hold no "-" or "_": they are the same variable.
        for v, shown in out.items():
            if shown == m.marker(m.B64):
                out[v] = _ANY
    for value, template in absorbed.items():
        out[value] = out[template]
    return out
