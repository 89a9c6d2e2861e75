"""Redis glob patterns (``KEYS``/``SCAN MATCH``) as RE2 regular expressions over key bytes.

The scanner's ``key_glob`` filter and the filter on a keys table read back from
Parquet (``pyarrow.compute``) use the same translation, so both follow Redis.
"""

import re

__all__ = ["glob_to_regex", "glob_matcher"]


def glob_matcher(glob):
    """A function ``key bytes -> bool`` for a Redis glob."""
    pattern = re.compile(glob_to_regex(glob)[:-2].encode("ascii") + rb"\Z")
    return lambda key: pattern.match(key) is not None


def glob_to_regex(glob):
    """Translate a glob (``*``, ``?``, ``[abc]``, ``[^a-z]``, ``\\x`` escapes) into an anchored regex.

    The regex is meant for binary columns, which RE2 matches byte by byte
    (Latin-1 mode): every literal byte is written ``\\xHH``, so Python's ``re``
    reads it the same way over bytes. ``[!...]`` is taken as a negation too.
    """
    data = glob.encode("utf-8", "surrogateescape") if isinstance(glob, str) else bytes(glob)
    out, i, n = ["(?s)^"], 0, len(data)
    while i < n:
        c = data[i]
        if c == ord("*"):
            out.append(".*")
        elif c == ord("?"):
            out.append(".")
        elif c == ord("\\") and i + 1 < n:
            i += 1
            out.append(_byte(data[i]))
        elif c == ord("["):
            end, part = _bracket(data, i + 1)
            if part is None:  # no closing bracket: a literal "["
                out.append(_byte(c))
            else:
                out.append(part)
                i = end
        else:
            out.append(_byte(c))
        i += 1
    out.append(r"\z")
    return "".join(out)


def _bracket(data, i):
    """``(index of the closing ']', the class)`` of a bracket starting at ``data[i]``; None if unclosed."""
    n = len(data)
    negate = i < n and data[i] in (ord("^"), ord("!"))
    if negate:
        i += 1
    items, first = [], True
    while i < n and (data[i] != ord("]") or first):
        first = False
        c = data[i]
        if c == ord("\\") and i + 1 < n:
            i += 1
            c = data[i]
        if i + 2 < n and data[i + 1] == ord("-") and data[i + 2] != ord("]"):
            hi = data[i + 2]
            if hi == ord("\\") and i + 3 < n:
                hi = data[i + 3]
                i += 1
            lo, hi = min(c, hi), max(c, hi)
            items.append(f"{_byte(lo)}-{_byte(hi)}")
            i += 3
            continue
        items.append(_byte(c))
        i += 1
    if i >= n:
        return i, None
    return i, "[" + ("^" if negate else "") + "".join(items) + "]"


def _byte(b):
    return f"\\x{b:02x}"
