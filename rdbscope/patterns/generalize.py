"""Cardinality-based generalization, in the manner of the Drain log miner.

Typed forms are grouped by their separator and number of segments, then read
segment by segment, left to right, as a prefix tree.  At each node the values
found in the next segment decide, with their key counts, whether that segment
is a constant (each value starts its own branch) or a variable (the values
merge into one ``{*}`` branch):

* values that are a placeholder (``{id}``, ``{hex}``, …) are already general;
  a node holding both ``{id}`` and ``{hex}`` (hex ids that happened to be all
  digits) keeps ``{hex}``, and one holding ``{id}`` with ``{ts}`` or
  ``{date}`` keeps ``{id}``;
* a literal matching a partly typed sibling (``disk03`` next to ``disk{id}``)
  joins that sibling;
* the other literals are a variable when there are at least ``min_distinct``
  of them and they are many for their keys (``min_ratio``), or when there are
  at least ``many_distinct``.  Literals with far more keys than the typical
  one (``heavy_factor`` × median, at least ``heavy_min_keys``) stay literal:
  ``cache:product`` keeps its branch even when ``cache:`` also has hundreds
  of one-off children.

When a variable's values consistently contain a softer separator (most hold
the same number of ``-``, say), the values are split on it and each part is
decided the same way, so ``SKU-A04246`` gives ``SKU-{*}`` and slugs of varying
length give ``{*}``.

The first segment of a key with separators is never a variable (it is the
namespace).  Keys without any separator are grouped by length and character
classes, and become ``{*}`` only when ``flat_min_distinct`` of them share one.
"""

import dataclasses
import re
from collections import Counter, defaultdict

from . import markers as m
from .delimiters import primary, softer_than, split_outside_markers


@dataclasses.dataclass(frozen=True)
class Thresholds:
    """When literal values of one segment are generalized to ``{*}``."""

    min_distinct: int = 10
    min_ratio: float = 0.05
    many_distinct: int = 100
    heavy_min_keys: int = 100
    heavy_factor: float = 20.0
    flat_min_distinct: int = 50
    split_share: float = 0.9


_UNIFY = ((m.HEX, (m.ID,)), (m.ID, (m.TS, m.DATE)))
_ANY = m.marker(m.ANY)


def _unify_placeholders(names):
    """Map each placeholder name present at one node to the name it is shown as."""
    target = {name: name for name in names}
    for keeper, absorbed in _UNIFY:
        if keeper in names:
            for name in absorbed:
                if name in target:
                    target[name] = keeper
    return target


def _template_regex(value):
    parts = m.MARKER_RE.split(value)
    pieces = []
    for i, part in enumerate(parts):
        if i % 2 == 0:
            pieces.append(re.escape(part))
        else:
            pieces.append("[0-9]+" if part in (m.ID, m.TS, m.DATE) else ".+")
    return re.compile("".join(pieces), re.ASCII)


def _absorb_into_templates(literals):
    """Map literals that match a partly typed sibling (``disk03`` ~ ``disk{id}``) to it."""
    templates = [v for v in literals if m.OPEN in v]
    if not templates:
        return {}
    regexes = [(t, _template_regex(t)) for t in sorted(templates)]
    absorbed = {}
    for value in literals:
        if m.OPEN in value:
            continue
        for template, regex in regexes:
            if regex.fullmatch(value):
                absorbed[value] = template
                break
    return absorbed


def _variable_literals(counts, thresholds, min_distinct):
    """The literals (value -> keys) that are instances of one variable."""
    if len(counts) < min_distinct:
        return []
    ordered = sorted(counts.values())
    heavy_cut = max(thresholds.heavy_min_keys, thresholds.heavy_factor * ordered[len(ordered) // 2])
    light = [v for v, c in counts.items() if c < heavy_cut]
    n_keys = sum(counts[v] for v in light)
    if len(light) >= min_distinct and (
        len(light) >= thresholds.many_distinct or len(light) >= thresholds.min_ratio * n_keys
    ):
        return light
    return []


def _split_templates(values, counts, thresholds, delimiters):
    """Templates for the values of one variable: a split on a softer separator, or ``{*}``."""
    for delimiter in delimiters:
        per_count = Counter(v.count(delimiter) for v in values)
        times, n = min(per_count.items(), key=lambda item: (-item[1], item[0]))
        if times == 0 or n < thresholds.split_share * len(values):
            continue
        chosen = sorted(v for v in values if v.count(delimiter) == times)
        parts = {v: v.split(delimiter) for v in chosen}
        decided = []
        for j in range(times + 1):
            part_counts = Counter()
            for v in chosen:
                part_counts[parts[v][j]] += counts[v]
            decided.append(decide(part_counts, thresholds, softer_than(delimiter)))
        templates = {v: delimiter.join(decided[j][parts[v][j]] for j in range(times + 1)) for v in chosen}
        if all(set(d.values()) == {_ANY} for d in decided):
            break
        return {v: templates.get(v, _ANY) for v in values}
    return {v: _ANY for v in values}


def decide(counts, thresholds, delimiters, min_distinct=None):
    """What each value of one segment at one node becomes.

    ``counts`` maps value -> number of keys; returns value -> output value.
    ``min_distinct`` overrides the threshold (a huge number keeps literals).
    """
    if min_distinct is None:
        min_distinct = thresholds.min_distinct
    out = {}
    placeholders = [v for v in counts if m.is_placeholder(v)]
    if placeholders:
        target = _unify_placeholders({m.placeholder_name(v) for v in placeholders})
        for v in placeholders:
            out[v] = m.marker(target[m.placeholder_name(v)])
    literals = {v: c for v, c in counts.items() if v not in out}
    absorbed = _absorb_into_templates(literals)
    out.update(absorbed)
    literals = {v: c for v, c in literals.items() if v not in absorbed}
    variable = _variable_literals(literals, thresholds, min_distinct)
    if variable:
        out.update(_split_templates(variable, literals, thresholds, delimiters))
    for v in literals:
        out.setdefault(v, v)
    return out


_CLASSES = (("a", str.islower), ("A", str.isupper), ("0", str.isdigit))


def _flat_shape(value):
    """Length and character classes of a key without separators."""
    classes = "".join(name for name, test in _CLASSES if any(test(ch) for ch in value))
    return len(value), classes


def generalize(forms, counts, thresholds):
    """The pattern (internal form) of each typed form, given its key count."""
    groups = defaultdict(list)
    split_forms = []
    for i, form in enumerate(forms):
        delimiter = primary(m.MARKER_RE.sub("", form))
        values = split_outside_markers(form, delimiter)
        split_forms.append(values)
        groups[(delimiter, len(values))].append(i)
    patterns = [None] * len(forms)
    for (delimiter, arity), members in groups.items():
        softer = softer_than(delimiter)
        node = {i: () for i in members}
        for position in range(arity):
            at_node = defaultdict(Counter)
            for i in members:
                if arity == 1:
                    node[i] = _flat_shape(split_forms[i][0])
                at_node[node[i]][split_forms[i][position]] += counts[i]
            if arity == 1:
                limit = thresholds.flat_min_distinct
            elif position == 0:
                limit = float("inf")
            else:
                limit = None
            decided = {key: decide(values, thresholds, softer, limit) for key, values in at_node.items()}
            for i in members:
                chosen = decided[node[i]][split_forms[i][position]]
                node[i] = (node[i], chosen) if arity > 1 else (chosen,)
        for i in members:
            parts = []
            key = node[i]
            while arity > 1 and key:
                key, value = key
                parts.append(value)
            patterns[i] = delimiter.join(reversed(parts)) if arity > 1 else key[0]
    return patterns
