"""Which character separates the segments of a key or pattern.

``:`` comes first; ``/``, ``|`` and ``#`` are also hard separators; ``.``, ``_``
and ``-`` separate segments only where no harder one is present.  Inside a
segment, a softer character splits a value only when the data shows it to be
a separator (see :mod:`rdbscope.patterns.generalize`).
"""

from . import markers as m

PRIORITY = (":", "/", "|", "#", ".", "_", "-")


def primary(text):
    """The separator a key or pattern is split on, or "" when it has none.

    Placeholders contain no separators, so ``text`` may hold internal markers.
    """
    for delimiter in PRIORITY:
        if delimiter in text:
            return delimiter
    return ""


def softer_than(delimiter):
    """Separators that may split values inside segments split on ``delimiter``."""
    if not delimiter:
        return ()
    return PRIORITY[PRIORITY.index(delimiter) + 1:]


def split_outside_markers(text, delimiter):
    """Split on ``delimiter``; placeholders never contain it, so a plain split is right."""
    assert m.OPEN not in delimiter
    return text.split(delimiter) if delimiter else [text]
