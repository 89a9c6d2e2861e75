"""pattern_segments: the namespace-tree prefixes of a pattern."""

import re

from .delimiters import PRIORITY
from .markers import NAMES

_PLACEHOLDERS = tuple("{" + name + "}" for name in NAMES)
_BRACES = re.compile("|".join(re.escape(p) for p in _PLACEHOLDERS) + "|[{}]")
#: Most segments a key or pattern is split into: the rest of a longer one is its last segment (a key
#: of a million ``:`` would otherwise make a million columns to infer and a million prefixes).
MAX_SEGMENTS = 32


def _top_level_spans(pattern):
    """``(start, end)`` of the runs of ``pattern`` outside placeholders and hash tags.

    A ``{`` that opens a known placeholder skips it; any other ``{`` opens a hash
    tag, closed by the matching ``}`` (placeholders inside it are skipped too).
    """
    spans, depth, start = [], 0, 0
    for match in _BRACES.finditer(pattern):
        if depth == 0 and match.start() > start:
            spans.append((start, match.start()))
        if match.group() == "{":
            depth += 1
        elif match.group() == "}" and depth:
            depth -= 1
        start = match.end()
    if depth == 0 and start < len(pattern):
        spans.append((start, len(pattern)))
    return spans


def pattern_segments(pattern):
    """Split a pattern into its prefixes by delimiter depth.

    ``"user:{id}:profile"`` -> ``["user", "user:{id}", "user:{id}:profile"]``.
    The delimiter is the one the pattern is split on (``:`` first, then ``/``,
    ``|``, ``#``, ``.``, ``_``, ``-``); hash tags such as ``{user:{id}}`` are not
    split inside.  A pattern without a delimiter is its own single segment; one
    of more than :data:`MAX_SEGMENTS` segments keeps the rest in its last.
    """
    spans = _top_level_spans(pattern)
    delimiter = next((d for d in PRIORITY if any(pattern.find(d, s, e) >= 0 for s, e in spans)), None)
    if delimiter is None:
        return [pattern]
    cuts = []
    for start, end in spans:
        at = pattern.find(delimiter, start, end)
        while at >= 0 and len(cuts) < MAX_SEGMENTS - 1:
            cuts.append(at)
            at = pattern.find(delimiter, at + 1, end)
    return [pattern[:i] for i in cuts] + [pattern]
