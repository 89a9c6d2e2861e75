"""Map patterns inferred from part of the keys onto patterns learned from a sample of all of them.

A chunk of a large dump sees fewer values of each segment than the whole, so
its patterns can be more literal (``product:widget:price``) where the sample
learned a variable (``product:{*}:price``). :class:`PatternMatcher` maps such a
pattern to the most specific learned pattern that covers it; a pattern that no
learned pattern covers stays as it is. A learned pattern without literal text
(``{*}``) covers only itself: flat keys are grouped by length and punctuation,
which its text does not show.
"""

import re

from .text import PLACEHOLDER, delimiter, segments

#: What a typed placeholder of a learned pattern covers, besides the same placeholder.
_COVERS = {
    "{id}": r"[0-9]+",
    "{uuid}": r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
    "{hex}": r"[0-9a-fA-F]{8,}",
}


class PatternMatcher:
    """The learned patterns, and which of them covers a given pattern."""

    def __init__(self, learned):
        self.learned = frozenset(learned)
        self._by_shape = {}
        for pattern in sorted(self.learned, key=_specificity):
            if not PLACEHOLDER.sub("", pattern).strip():
                continue  # all placeholders (``{*}``): too vague to say which other patterns it covers
            self._by_shape.setdefault(_shape(pattern), []).append((pattern, _regex(pattern)))

    def map(self, pattern):
        """The learned pattern that covers ``pattern`` (itself when learned or when none does)."""
        if pattern in self.learned:
            return pattern
        for candidate, regex in self._by_shape.get(_shape(pattern), ()):
            if regex.fullmatch(pattern):
                return candidate
        return pattern

    def narrower(self, pattern):
        """The most specific of the other learned patterns, more specific than ``pattern``, that covers
        it (``shop:{id}:price`` for ``shop:1:price``); ``pattern`` itself when none does."""
        rank = _specificity(pattern)
        for candidate, regex in self._by_shape.get(_shape(pattern), ()):
            if _specificity(candidate) >= rank:
                break
            if regex.fullmatch(pattern):
                return candidate
        return pattern


def _shape(pattern):
    return delimiter(pattern), len(segments(pattern))


def _specificity(pattern):
    """Most specific first: fewer ``{*}``, then fewer placeholders, then more literal text."""
    placeholders = PLACEHOLDER.findall(pattern)
    literal = len(PLACEHOLDER.sub("", pattern))
    return (placeholders.count("{*}"), len(placeholders), -literal, pattern)


_NUMBER = re.compile(r"(?<![A-Za-z0-9])[0-9]+(?![A-Za-z0-9])")


def _literal(text):
    """A literal part of a learned pattern: itself, where a number may also be ``{id}``.

    A number the same in all of a pattern's keys stays literal (``shop:1:product:{id}``) only
    when the pattern has enough keys; a chunk with fewer of them shows it as ``{id}``.
    """
    parts, position = [], 0
    for match in _NUMBER.finditer(text):
        parts.append(re.escape(text[position:match.start()]))
        parts.append(f"(?:{re.escape(match.group(0))}|\\{{id\\}})")
        position = match.end()
    parts.append(re.escape(text[position:]))
    return "".join(parts)


def _regex(pattern):
    """A regex over pattern texts: literals match themselves, placeholders what they cover."""
    separator = delimiter(pattern)
    anything = f"[^{re.escape(separator)}]+" if separator else ".+"
    parts, position = [], 0
    for match in PLACEHOLDER.finditer(pattern):
        parts.append(_literal(pattern[position:match.start()]))
        name = match.group(0)
        if name == "{*}":
            parts.append(anything)
        else:
            parts.append(f"(?:{re.escape(name)}|{_COVERS.get(name, anything)})")
        position = match.end()
    parts.append(_literal(pattern[position:]))
    return re.compile("".join(parts), re.S)
