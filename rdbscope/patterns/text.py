"""Reading a pattern's text: its segments, placeholders, literal words, delimiter."""

import re

from .markers import NAMES
from .segments import pattern_segments

#: A typed placeholder as patterns show it: ``{id}``, ``{uuid}``, … ``{*}``.
PLACEHOLDER = re.compile("|".join(re.escape("{" + name + "}") for name in NAMES))
#: Characters that make a hierarchy (OneUptime's guide and Mastering Redis list ``:``, ``.`` and ``/``;
#: Baidu Cloud's guidelines add ``#`` for the parts of a split key; ``|`` is common too).
HIERARCHY_DELIMITERS = (":", "/", "|", "#", ".")
_ESCAPED = re.compile(r"\\(?:x[0-9a-f]{2}|\\)")
_ALPHA = re.compile(r"[A-Za-z]+")


def segments(pattern):
    """The segments of ``pattern`` split on its delimiter (hash tags stay whole).

    ``"user:{id}:profile"`` -> ``["user", "{id}", "profile"]``.
    """
    prefixes = pattern_segments(pattern)
    parts, start = [], 0
    for prefix in prefixes:
        parts.append(pattern[start:len(prefix)])
        start = len(prefix) + 1
    return parts


def delimiter(pattern):
    """The character ``pattern`` is split on, or "" when it is one segment."""
    prefixes = pattern_segments(pattern)
    return pattern[len(prefixes[0])] if len(prefixes) > 1 else ""


def literal_text(text):
    """``text`` with placeholders, escaped non-UTF-8 bytes and escaped backslashes turned into spaces."""
    return _ESCAPED.sub(" ", PLACEHOLDER.sub(" ", text))


def alpha_words(text):
    """Runs of ASCII letters in the literal part of ``text``: ``"SKU-{id}x"`` -> ``["SKU", "x"]``."""
    return _ALPHA.findall(literal_text(text))


def has_placeholder(text):
    return PLACEHOLDER.search(text) is not None


def is_placeholder(text):
    return PLACEHOLDER.fullmatch(text) is not None


def has_hierarchy(pattern, delimiters=HIERARCHY_DELIMITERS):
    """True when a delimiter of ``delimiters`` appears outside placeholders."""
    text = literal_text(pattern)
    return any(d in text for d in delimiters)
