"""Keys as text, and back: one escaping, so that every printed key decodes to exactly one byte string.

A key is bytes. As text it is its UTF-8 characters, with these escapes:

- ``\\\\`` is one backslash;
- ``\\xHH`` is the single byte HH: a byte that is not part of valid UTF-8 (``bin:\\xff``), or, where a
  terminal, CSV or HTML shows the text, an ASCII control character;
- ``\\t``, ``\\n``, ``\\r`` are tab, newline and carriage return (where the text is shown);
- ``\\uHHHH`` is the character U+HHHH (where the text is shown: C1 controls, bidirectional controls,
  zero-width characters, line and paragraph separators).

:func:`key_text` gives the text every table of keys holds (JSON, ``to_pandas``): only ``\\\\`` and ``\\xHH``
of bytes that are not UTF-8. :func:`printable` escapes the characters that would act on a terminal or
reorder what is shown (Trojan Source, CVE-2021-42574) as well. :func:`key_bytes` reads either back.
"""

import re

__all__ = ["SHOWN_CHARS", "SPOOFING", "json_safe", "key_bytes", "key_text", "key_texts", "printable", "shorten"]

#: Characters that reorder or hide text (Unicode bidirectional controls and zero-width characters).
SPOOFING = frozenset([*range(0x200B, 0x2010), *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x2028, 0x2029,
                      0x061C, 0xFEFF])
#: Characters of a key or pattern that tables, HTML reports and metric labels show before cutting it with
#: ``…`` (one key of 1 MiB would otherwise fill 70,000 terminal lines); JSON, CSV and Parquet keep it whole.
SHOWN_CHARS = 256
_SHOWN = {c: f"\\x{c:02x}" for c in [*range(0x20), 0x7F]}
_SHOWN.update({0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"})
_SHOWN.update({c: f"\\u{c:04x}" for c in [*range(0x80, 0xA0), *SPOOFING]})
_ESCAPE = re.compile(rb"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|([tnr\\]))")
_SHORT = {b"t": b"\t", b"n": b"\n", b"r": b"\r", b"\\": b"\\"}


def key_text(key) -> str | None:
    """``key`` (bytes) as text: UTF-8 where valid, ``\\xHH`` for each byte that is not, ``\\\\`` for a
    backslash. ``None`` stays ``None``."""
    if key is None:
        return None
    if isinstance(key, str):
        key = key.encode("utf-8", "surrogateescape")
    return bytes(key).replace(b"\\", b"\\\\").decode("utf-8", "backslashreplace")


def key_texts(array):
    """A pyarrow binary array as a string array of :func:`key_text`; only the keys with a backslash or a
    byte of 0x80 and above are decoded one by one."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    text_type = pa.large_string() if pa.types.is_large_binary(array.type) else pa.string()
    if len(array) == 0 or not pc.any(pc.match_substring(array, "\\")).as_py():
        try:
            return array.cast(text_type)
        except pa.ArrowInvalid:
            pass
    large = pa.types.is_large_binary(array.type)
    offsets = np.frombuffer(array.buffers()[1], np.int64 if large else np.int32)[array.offset:][:len(array) + 1]
    data = array.buffers()[2]
    data = np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8)
    special = np.flatnonzero((data >= 0x80) | (data == ord("\\")))
    special = special[(special >= offsets[0]) & (special < offsets[-1])]
    has_special = np.zeros(len(array), dtype=bool)
    has_special[np.searchsorted(offsets, special, side="right") - 1] = True
    mask = pa.array(has_special)
    fixed = [key_text(value) for value in array.filter(mask).to_pylist()]
    return pc.replace_with_mask(array.view(text_type), mask, pa.array(fixed, text_type))


def printable(text, limit=None) -> str:
    """``text`` as a terminal, CSV or HTML shows it: control, bidirectional and zero-width characters
    escaped (so a key cannot move the cursor, set the title or reorder a line); cut to ``limit``
    characters, ending in ``…``, when given."""
    return shorten(str(text).translate(_SHOWN), limit)


def shorten(text, limit=SHOWN_CHARS):
    """``text`` cut to ``limit`` characters, ending with ``…`` when cut (``None``: never cut)."""
    return text if text is None or limit is None or len(text) <= limit else text[:limit - 1] + "…"


def key_bytes(text) -> bytes:
    """The key that :func:`key_text` or :func:`printable` (uncut) wrote as ``text``."""

    def unescape(match):
        byte, char, short = match.groups()
        if byte is not None:
            return bytes([int(byte, 16)])
        if char is not None:
            return chr(int(char, 16)).encode()
        return _SHORT[short]

    return _ESCAPE.sub(unescape, text.encode("utf-8", "surrogateescape"))


_JSON_UNSAFE = re.compile("[\x7f-\x9f" + "".join(chr(c) for c in sorted(SPOOFING)) + "]")


def json_safe(document) -> str:
    """A JSON document with the characters :func:`printable` escapes that JSON itself leaves raw (DEL, C1,
    bidirectional and zero-width characters) written as ``\\uHHHH``: the same strings once parsed."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", document)
