"""What the bytes of each key hold, computed in a few passes over the key buffer.

Most keys are printable ASCII without any character a rule cares about, so
one comparison over all key bytes finds the few bytes worth a closer look,
and only those are classified and folded into per-key flags.
"""

import numpy as np
import pyarrow as pa

WHITESPACE = 1  # space, \t, \n, \v, \f, \r
QUOTE = 2  # " ' `
BACKSLASH = 4
CONTROL = 8  # other bytes below 0x20, and DEL
HIGH = 16  # 0x80 and above: UTF-8 or something else
BRACE = 32  # "{", where a hash tag may start
SLASH = 64  # "/", in paths and URLs
AT = 128  # "@", in e-mail addresses

_CLASS = np.zeros(256, np.uint8)
_CLASS[[0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D]] = WHITESPACE
_CLASS[[ord('"'), ord("'"), ord("`")]] = QUOTE
_CLASS[ord("\\")] = BACKSLASH
_CLASS[[b for b in range(0x20) if _CLASS[b] == 0] + [0x7F]] = CONTROL
_CLASS[0x80:] = HIGH
_CLASS[ord("{")] = BRACE
_CLASS[ord("/")] = SLASH
_CLASS[ord("@")] = AT
_PLAIN_ASCII_MARKS = tuple(ord(c) for c in "\"'`\\{/@")


def key_buffers(keys):
    """``(offsets, data)`` of a binary Arrow array as numpy views (int32 offsets, uint8 data)."""
    if isinstance(keys, pa.ChunkedArray):
        keys = keys.combine_chunks()
    keys = keys.cast(pa.binary())
    n = len(keys)
    _validity, offsets, data = keys.buffers()
    offsets = np.frombuffer(offsets, np.int32, n + 1, keys.offset * 4)
    data = np.frombuffer(data, np.uint8) if data is not None and data.size else np.zeros(0, np.uint8)
    return offsets, data


def key_flags(offsets, data):
    """A uint8 per key: the OR of the classes above over the key's bytes."""
    n = len(offsets) - 1
    flags = np.zeros(n, np.uint8)
    if n == 0 or offsets[-1] == offsets[0]:
        return flags
    span = data[offsets[0]:offsets[-1]]
    # Bytes outside 0x21..0x7e wrap to above 0x5d after the subtraction.
    marked = (span - np.uint8(0x21)) > np.uint8(0x5D)
    for byte in _PLAIN_ASCII_MARKS:
        marked |= span == byte
    positions = np.flatnonzero(marked) + offsets[0]
    if len(positions) == 0:
        return flags
    classes = _CLASS[data[positions]]
    owners = np.searchsorted(offsets, positions, side="right") - 1
    starts = np.concatenate(([0], np.flatnonzero(np.diff(owners)) + 1))
    flags[owners[starts]] = np.bitwise_or.reduceat(classes, starts)
    return flags


def text_flags(text):
    """The OR of the classes of the bytes of ``text`` (str or bytes)."""
    raw = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else bytes(text)
    return int(np.bitwise_or.reduce(_CLASS[np.frombuffer(raw, np.uint8)])) if raw else 0


def flags_of_rows(offsets, data, rows, chunk_rows=1 << 20):
    """:func:`key_flags` of the keys at ``rows`` only, reading only their bytes."""
    rows = np.asarray(rows, np.int64)
    out = np.zeros(len(rows), np.uint8)
    for start in range(0, len(rows), chunk_rows):
        b, owner = gather(offsets, data, rows[start:start + chunk_rows])
        classes = _CLASS[b]
        marked = np.flatnonzero(classes)
        if len(marked) == 0:
            continue
        owners = owner[marked]
        starts = np.concatenate(([0], np.flatnonzero(np.diff(owners)) + 1))
        out[start + owners[starts]] = np.bitwise_or.reduceat(classes[marked], starts)
    return out


def gather(offsets, data, rows):
    """The bytes of keys ``rows`` concatenated, and each byte's index into ``rows``."""
    starts = offsets[rows].astype(np.int64)
    lengths = offsets[np.asarray(rows) + 1] - starts
    owner = np.repeat(np.arange(len(rows)), lengths)
    first = np.concatenate(([0], np.cumsum(lengths)[:-1])) if len(rows) else np.zeros(0, np.int64)
    index = np.arange(int(lengths.sum()), dtype=np.int64) - first[owner] + starts[owner]
    return data[index], owner


def not_utf8_text(offsets, data, rows):
    """For each key of ``rows``: True when its bytes are not UTF-8, or hold C1 control characters.

    Checks what a strict decoder checks (lead and continuation bytes, overlong
    forms, surrogates, code points past U+10FFFF), on all keys at once.
    """
    rows = np.asarray(rows, dtype=np.int64)
    bad = np.zeros(len(rows), bool)
    for start in range(0, len(rows), 1 << 20):
        chunk = rows[start:start + (1 << 20)]
        bad[start:start + len(chunk)] = _not_utf8_text(offsets, data, chunk)
    return bad


def _not_utf8_text(offsets, data, rows):
    bad = np.zeros(len(rows), bool)
    if len(rows) == 0:
        return bad
    b, owner = gather(offsets, data, rows)
    m = len(b)
    cont = (b >= 0x80) & (b < 0xC0)
    need = np.zeros(m, np.int8)
    need[(b >= 0xC2) & (b <= 0xDF)] = 1
    need[(b >= 0xE0) & (b <= 0xEF)] = 2
    need[(b >= 0xF0) & (b <= 0xF4)] = 3
    invalid = (b == 0xC0) | (b == 0xC1) | (b >= 0xF5)
    covered = np.zeros(m, bool)
    for k in (1, 2, 3):
        leads = np.flatnonzero(need >= k)
        follow = leads + k
        inside = follow < m
        ok = np.zeros(len(leads), bool)
        ok[inside] = cont[follow[inside]] & (owner[follow[inside]] == owner[leads[inside]])
        invalid[leads[~ok]] = True
        covered[follow[ok]] = True
    invalid |= cont & ~covered
    # The second byte decides overlong forms, surrogates and the upper limit.
    second = np.concatenate((b[1:], [0])).astype(np.uint8)
    invalid |= (b == 0xE0) & (second < 0xA0)
    invalid |= (b == 0xED) & (second >= 0xA0)
    invalid |= (b == 0xF0) & (second < 0x90)
    invalid |= (b == 0xF4) & (second >= 0x90)
    invalid |= (b == 0xC2) & (second >= 0x80) & (second < 0xA0)  # U+0080..U+009F: C1 controls
    bad[np.unique(owner[invalid])] = True
    return bad


#: UTF-8 of the characters that reorder or hide text (Trojan Source, CVE-2021-42574): bidirectional
#: embeddings, overrides and isolates, marks, zero-width characters, line and paragraph separators, and the
#: byte order mark (``rdbscope.rdb.keytext.SPOOFING``), as (lead bytes, last byte from, last byte to).
_SPOOFING = ((b"\xe2\x80", 0x8B, 0x8F), (b"\xe2\x80", 0xA8, 0xAE), (b"\xe2\x81", 0xA6, 0xA9),
             (b"\xd8", 0x9C, 0x9C), (b"\xef\xbb", 0xBF, 0xBF))


def spoofing_text(offsets, data, rows):
    """For each key of ``rows``: True when it holds a character that reorders or hides text."""
    rows = np.asarray(rows, dtype=np.int64)
    found = np.zeros(len(rows), bool)
    for start in range(0, len(rows), 1 << 20):
        chunk = rows[start:start + (1 << 20)]
        b, owner = gather(offsets, data, chunk)
        for lead, low, high in _SPOOFING:
            n = len(lead)
            at = np.flatnonzero(b[:len(b) - n] == lead[0]) if len(b) > n else np.zeros(0, np.int64)
            for k in range(1, n):
                at = at[b[at + k] == lead[k]]
            last = b[at + n]
            at = at[(last >= low) & (last <= high) & (owner[at] == owner[at + n])]
            found[start + owner[at]] = True
    return found
