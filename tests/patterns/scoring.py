"""Grouping accuracy as log-parsing benchmarks (Loghub) score template mining.

A key is grouped correctly iff the set of keys in its inferred group is exactly
the set of keys in its true group.
"""

from collections import Counter


def grouping_accuracy(truth, inferred):
    """Share of keys whose inferred group equals their true group."""
    assert len(truth) == len(inferred)
    if not truth:
        return 1.0
    pairs = Counter(zip(truth, inferred, strict=True))
    true_sizes = Counter(truth)
    inferred_sizes = Counter(inferred)
    correct = sum(n for (t, p), n in pairs.items() if true_sizes[t] == n == inferred_sizes[p])
    return correct / len(truth)


def misgrouped(truth, inferred, limit=20):
    """The (true pattern, inferred pattern, keys) pairs of the wrongly grouped keys, biggest first."""
    pairs = Counter(zip(truth, inferred, strict=True))
    true_sizes = Counter(truth)
    inferred_sizes = Counter(inferred)
    wrong = [(t, p, n) for (t, p), n in pairs.items() if not (true_sizes[t] == n == inferred_sizes[p])]
    return sorted(wrong, key=lambda item: -item[2])[:limit]
