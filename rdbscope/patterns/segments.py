"""pattern_segments: the namespace-tree prefixes of a pattern."""

from .delimiters import PRIORITY
from .markers import NAMES

_PLACEHOLDERS = tuple("{" + name + "}" for name in NAMES)


def _top_level(pattern):
    """Yield (index, char) of characters outside placeholders and hash tags.

    A ``{`` that opens a known placeholder skips it; any other ``{`` opens a hash
    tag, closed by the matching ``}`` (placeholders inside it are skipped too).
    """
    i = 0
    depth = 0
    while i < len(pattern):
        placeholder = next((p for p in _PLACEHOLDERS if pattern.startswith(p, i)), None)
        if placeholder:
            i += len(placeholder)
            continue
        ch = pattern[i]
        if ch == "{":
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
        elif depth == 0:
            yield i, ch
        i += 1


def pattern_segments(pattern):
    """Split a pattern into its prefixes by delimiter depth.

    ``"user:{id}:profile"`` -> ``["user", "user:{id}", "user:{id}:profile"]``.
    The delimiter is the one the pattern is split on (``:`` first, then ``/``,
    ``|``, ``#``, ``.``, ``_``, ``-``); hash tags such as ``{user:{id}}`` are not
    split inside.  A pattern without a delimiter is its own single segment.
    """
    top = list(_top_level(pattern))
    present = {ch for _, ch in top}
    delimiter = next((d for d in PRIORITY if d in present), None)
    if delimiter is None:
        return [pattern]
    cuts = [i for i, ch in top if ch == delimiter]
    return [pattern[:i] for i in cuts] + [pattern]
