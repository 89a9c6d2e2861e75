"""The prefix-tree walk of :mod:`.generalize`, done with arrays.

Forms are grouped by separator and number of segments; each group is walked
segment by segment.  A *node* is a number naming the generalized prefix read
so far; the distinct (node, value) pairs of a segment, their key counts and
what follows them are computed with numpy, and :func:`.generalize.decide` runs
in Python only for nodes that hold more than one value.
"""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .delimiters import PRIORITY, softer_than
from .generalize import decide
from .segments import MAX_SEGMENTS


def _pair_ids(a, b):
    """Dense ids of the pairs (a[i], b[i]) of non-negative-or--1 integers, and the pairs."""
    a = a.astype(np.int64) + 1
    b = b.astype(np.int64) + 1
    width = int(b.max()) + 1 if len(b) else 1
    ids, distinct = _first_seen_ids(a * width + b)
    return ids, distinct // width - 1, distinct % width - 1


def _first_seen_ids(values):
    """Dense ids of ``values``, numbered in the order each first appears, and the distinct values in that order."""
    distinct, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty(len(order), np.int64)
    rank[order] = np.arange(len(order))
    return rank[np.ravel(inverse)], distinct[order]


def _primaries(forms):
    """Index in PRIORITY of the separator of each form (len(PRIORITY): none)."""
    chosen = np.full(len(forms), len(PRIORITY), dtype=np.int64)
    for index in range(len(PRIORITY) - 1, -1, -1):
        chosen[pc.match_substring(forms, PRIORITY[index]).to_numpy(zero_copy_only=False)] = index
    return chosen


class _Following:
    """What follows each value of one node, computed on demand."""

    def __init__(self, pairs_of_value, triple_starts, triple_rests):
        self._pairs_of_value = pairs_of_value
        self._starts = triple_starts
        self._rests = triple_rests
        self._cache = {}

    def __getitem__(self, value):
        if value not in self._cache:
            pair = self._pairs_of_value[value]
            self._cache[value] = set(self._rests[self._starts[pair]:self._starts[pair + 1]].tolist())
        return self._cache[value]

    def __setitem__(self, value, rests):
        self._cache[value] = rests


def _flat_nodes(column):
    """Keys without separators start at a node per length and punctuation."""
    length = pc.utf8_length(column).to_numpy(zero_copy_only=False)
    punctuation = pc.replace_substring_regex(column, "[A-Za-z0-9]", "").dictionary_encode()
    punctuation_ids = punctuation.indices.to_numpy(zero_copy_only=False)
    return _pair_ids(length, punctuation_ids)[0]


def _walk(columns, counts, delimiter, thresholds):
    """Generalize one group of forms (same separator and arity).

    ``columns``: per segment, a pyarrow string array (one row per form).
    Returns (final node of each row, pattern of each final node).
    """
    arity = len(columns)
    encoded = [c.dictionary_encode() for c in columns]
    codes = [e.indices.to_numpy(zero_copy_only=False).astype(np.int64) for e in encoded]
    dictionaries = [e.dictionary for e in encoded]
    rests = [None] * arity
    rests[-1] = np.full(len(counts), -1, dtype=np.int64)
    for position in range(arity - 2, -1, -1):
        rests[position] = _pair_ids(codes[position + 1], rests[position + 1])[0]

    softer = softer_than(delimiter)
    node = _flat_nodes(columns[0]) if arity == 1 else np.zeros(len(counts), dtype=np.int64)
    steps = []  # per position: (parent node, label) of each new node, and extra labels
    for position in range(arity):
        pair, pair_node, pair_code = _pair_ids(node, codes[position])
        pair_count = np.bincount(pair, weights=counts, minlength=len(pair_node)).astype(np.int64)
        label = pair_code.copy()
        extra = {}
        values_per_node = np.bincount(pair_node)
        several = np.flatnonzero(values_per_node[pair_node] >= 2)
        if len(several):
            limit = thresholds.flat_min_distinct if arity == 1 else (float("inf") if position == 0 else None)
            last = position == arity - 1
            if not last:
                triple, triple_pair, triple_rest = _pair_ids(pair, rests[position])
                order = np.argsort(triple_pair, kind="stable")
                triple_rest = triple_rest[order]
                triple_starts = np.searchsorted(triple_pair[order], np.arange(len(pair_node) + 1))
            several = several[np.argsort(pair_node[several], kind="stable")]
            bounds = np.flatnonzero(np.diff(pair_node[several])) + 1
            value_text = dictionaries[position].take(pa.array(pair_code[several])).to_pylist()
            start = 0
            for stop in list(bounds) + [len(several)]:
                members = several[start:stop]
                texts = value_text[start:stop]
                start = stop
                values = dict(zip(texts, pair_count[members].tolist(), strict=True))
                following = None if last else _Following(dict(zip(texts, members.tolist(), strict=True)),
                                                         triple_starts, triple_rest)
                decided = decide(values, thresholds, softer, limit, following)
                outs = [decided[text] for text in texts]
                changed = np.flatnonzero([o != t for o, t in zip(outs, texts, strict=True)])
                if len(changed):
                    numbers = np.array([extra.setdefault(outs[i], len(extra)) for i in changed.tolist()], np.int64)
                    label[members[changed]] = len(dictionaries[position]) + numbers
        node, parent, chosen = _pair_ids(pair_node[pair] if arity > 1 else np.zeros(len(pair), np.int64),
                                         label[pair])
        if arity == 1:
            node = chosen[node]  # flat keys: the node is the label itself
            parent = np.zeros(len(chosen), dtype=np.int64) - 1
        steps.append((parent, chosen, dictionaries[position], {v: k for k, v in extra.items()}))

    def label_text(step, code):
        _, _, dictionary, extra = step
        return dictionary[code].as_py() if code < len(dictionary) else extra[code - len(dictionary)]

    if arity == 1:
        parent, chosen, dictionary, extra = steps[0]
        labels = np.unique(node)
        texts = {int(code): label_text(steps[0], int(code)) for code in labels.tolist()}
        return node, texts
    finals = np.unique(node)
    patterns = {}
    for final in finals.tolist():
        parts = []
        current = final
        for step in reversed(steps):
            parent, chosen, _, _ = step
            parts.append(label_text(step, int(chosen[current])))
            current = int(parent[current])
        patterns[final] = delimiter.join(reversed(parts))
    return node, patterns


def generalize(forms, counts, thresholds):
    """Pattern of each form.

    ``forms``: pyarrow string array of distinct settled forms; ``counts``: keys
    per form.  Returns ``(pattern_index, patterns)``: for each form the index of
    its pattern in the list ``patterns``.
    """
    counts = np.asarray(counts, dtype=np.float64)
    result = np.zeros(len(forms), dtype=np.int64)
    patterns = []
    primaries = _primaries(forms)
    for index in np.unique(primaries).tolist():
        rows = np.flatnonzero(primaries == index)
        group = forms.take(pa.array(rows))
        delimiter = PRIORITY[index] if index < len(PRIORITY) else ""
        if delimiter:
            lists = pc.split_pattern(group, delimiter, max_splits=MAX_SEGMENTS - 1)
            arities = pc.list_value_length(lists).to_numpy(zero_copy_only=False)
            flat = pc.list_flatten(lists)
        else:
            arities = np.ones(len(rows), dtype=np.int64)
            flat = group
        starts = np.concatenate(([0], np.cumsum(arities)[:-1]))
        for arity in np.unique(arities).tolist():
            members = np.flatnonzero(arities == arity)
            columns = [flat.take(pa.array(starts[members] + p)) for p in range(arity)]
            node, node_patterns = _walk(columns, counts[rows[members]], delimiter, thresholds)
            numbered = {}
            for key, text in node_patterns.items():
                numbered[key] = len(patterns)
                patterns.append(text)
            lookup = np.zeros(int(node.max()) + 1, dtype=np.int64)
            for key, number in numbered.items():
                lookup[key] = number
            result[rows[members]] = lookup[node]
    return result, patterns
