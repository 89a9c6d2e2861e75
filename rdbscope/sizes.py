"""Sizes in bytes as people write and read them, in one convention: binary multiples.

Every size rdbscope prints is 1024-based and labelled KB/MB/GB, as redis-cli and INFO print them, so
every size a user types is read the same way: ``1KB`` is 1024 bytes, ``1MB`` 1024**2; ``KiB``, ``MiB``
and ``GiB`` are accepted as the same units. Imported to build ``--help``: it imports nothing heavy.
"""

import re

from .errors import InputError

_POWERS = {None: 0, "k": 1, "m": 2, "g": 3, "t": 4}
_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*(?:([kmgt])(?:i?b)?|b)?\s*", re.IGNORECASE)
_UNITS = ("B", "KB", "MB", "GB", "TB")
#: What a size looks like, for the messages that reject one.
EXAMPLES = "e.g. 512MB, 2GB or 1.5GiB; 1KB is 1024 bytes"


def parse_size(text, what="size"):
    """Bytes of a size such as ``2GB``, ``512MiB``, ``1.5 KB`` or ``1500000000``; ``what`` names the
    size in the error.

    Raises:
        InputError: not a size, or not a positive one.
    """
    if isinstance(text, int) and not isinstance(text, bool):
        size = text
    else:
        match = _SIZE.fullmatch(str(text))
        if match is None:
            raise InputError(f"not a {what}: {text!r} (write {EXAMPLES})")
        number, unit = match.groups()
        size = int(float(number) * 1024 ** _POWERS[unit and unit.lower()])
    if size <= 0:
        raise InputError(f"a {what} must be positive, not {text!r}")
    return size


def format_size(size):
    """``size`` bytes as a size is typed back: ``1536`` -> ``"1.5 KB"``, ``4096`` -> ``"4 KB"``,
    ``300`` -> ``"300 B"`` (binary multiples, no trailing ``.0``)."""
    value = float(size)
    for unit in _UNITS:
        if abs(value) < 1024 or unit == _UNITS[-1]:
            text = f"{value:.0f}" if unit == "B" else f"{value:.1f}".removesuffix(".0")
            return f"{text} {unit}"
        value /= 1024
    raise AssertionError("unreachable")  # pragma: no cover
