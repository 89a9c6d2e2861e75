"""Which character separates the segments of a key or pattern.

``:`` comes first; ``/``, ``|`` and ``#`` are also hard separators; ``.``, ``_``
and ``-`` separate segments only where no harder one is present.  Inside a
segment, a softer character splits a value only when the data shows it to be
a separator (see :mod:`rdbscope.patterns.generalize`).
"""

PRIORITY = (":", "/", "|", "#", ".", "_", "-")


def softer_than(delimiter):
    """Separators that may split values inside segments split on ``delimiter``."""
    if not delimiter:
        return ()
    return PRIORITY[PRIORITY.index(delimiter) + 1:]
