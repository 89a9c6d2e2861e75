"""The elements at the start of a compact encoding (listpack, ziplist, intset, zipmap), read from its first
bytes: each as ``(head, full length)``, the head at most ``limit`` bytes, integers as their decimal digits.

The bytes given may stop inside the encoding (only its start was read): the entries then stop at the
last one whose length could be read, a cut string giving what it has. Layouts: src/listpack.c,
src/ziplist.c, src/intset.c, src/zipmap.c.
"""

import struct

#: A listpack's header: total bytes (uint32) and entry count (uint16).
LISTPACK_HEADER = 6
#: A ziplist's header: total bytes, offset of the tail (uint32 each), entry count (uint16).
ZIPLIST_HEADER = 10
#: An intset's header: integer width and count (uint32 each).
INTSET_HEADER = 8
#: The byte that ends a listpack, a ziplist and a zipmap.
END = 0xFF


def _text(value):
    return str(value).encode()


def _cut(data, start, length, limit):
    """``(head, length)`` of a string of ``length`` bytes at ``start`` of ``data`` (maybe cut short)."""
    return bytes(data[start:start + min(length, limit)]), length


def _backlen_bytes(size):
    """Bytes of a listpack entry's back length, for an entry of ``size`` bytes (src/listpack.c)."""
    for n, bound in enumerate((128, 16384, 2097152, 268435456), 1):
        if size < bound:
            return n
    return 5


def listpack_entries(data, limit):
    """The entries of a listpack whose first bytes are ``data``."""
    p, stop = LISTPACK_HEADER, len(data)
    while p < stop and data[p] != END:
        b = data[p]
        if b < 0x80:  # 7-bit unsigned int
            value, size = _text(b), 1
        elif b < 0xC0:  # 6-bit string length
            length = b & 0x3F
            yield _cut(data, p + 1, length, limit)
            value, size = None, 1 + length
        elif b < 0xE0:  # 13-bit signed int
            if p + 2 > stop:
                return
            v = ((b & 0x1F) << 8) | data[p + 1]
            value, size = _text(v - 8192 if v >= 4096 else v), 2
        elif b < 0xF0:  # 12-bit string length
            if p + 2 > stop:
                return
            length = ((b & 0x0F) << 8) | data[p + 1]
            yield _cut(data, p + 2, length, limit)
            value, size = None, 2 + length
        elif b == 0xF0:  # 32-bit string length
            if p + 5 > stop:
                return
            length = int.from_bytes(data[p + 1:p + 5], "little")
            yield _cut(data, p + 5, length, limit)
            value, size = None, 5 + length
        elif b <= 0xF4:  # 16, 24, 32 and 64-bit signed ints
            width = {0xF1: 2, 0xF2: 3, 0xF3: 4, 0xF4: 8}[b]
            if p + 1 + width > stop:
                return
            value, size = _text(int.from_bytes(data[p + 1:p + 1 + width], "little", signed=True)), 1 + width
        else:
            return
        if value is not None:
            yield value, len(value)
        p += size + _backlen_bytes(size)


def ziplist_entries(data, limit):
    """The entries of a ziplist whose first bytes are ``data``."""
    p, stop = ZIPLIST_HEADER, len(data)
    while p < stop and data[p] != END:
        p += 5 if data[p] == 0xFE else 1  # the previous entry's length
        if p >= stop:
            return
        b = data[p]
        kind = b >> 6
        if kind < 3:  # a string of 6, 14 or 32-bit length (big-endian)
            if kind == 0:
                length, at = b & 0x3F, p + 1
            elif kind == 1:
                if p + 2 > stop:
                    return
                length, at = ((b & 0x3F) << 8) | data[p + 1], p + 2
            else:
                if p + 5 > stop:
                    return
                length, at = int.from_bytes(data[p + 1:p + 5], "big"), p + 5
            yield _cut(data, at, length, limit)
            p = at + length
            continue
        if 0xF1 <= b <= 0xFD:  # a 4-bit int, 0 to 12
            value, width = (b & 0x0F) - 1, 0
        else:
            width = {0xC0: 2, 0xD0: 4, 0xE0: 8, 0xF0: 3, 0xFE: 1}.get(b)
            if width is None or p + 1 + width > stop:
                return
            value = int.from_bytes(data[p + 1:p + 1 + width], "little", signed=True)
        text = _text(value)
        yield text, len(text)
        p += 1 + width


def intset_entries(data, _limit=None):
    """The integers of an intset whose first bytes are ``data``."""
    if len(data) < INTSET_HEADER:
        return
    width, count = struct.unpack_from("<II", data)
    if width not in (2, 4, 8):
        return
    for i in range(min(count, (len(data) - INTSET_HEADER) // width)):
        at = INTSET_HEADER + i * width
        text = _text(int.from_bytes(data[at:at + width], "little", signed=True))
        yield text, len(text)


def zipmap_entries(data, limit):
    """The fields and values, in turn, of a zipmap whose first bytes are ``data`` (Redis < 2.6 hashes)."""
    p, stop = 1, len(data)
    while p < stop and data[p] != END:
        for side in range(2):
            if p >= stop:
                return
            b = data[p]
            if b < 254:
                length, p = b, p + 1
            elif b == 254:
                if p + 5 > stop:
                    return
                length, p = int.from_bytes(data[p + 1:p + 5], "little"), p + 5
            else:
                return
            free = 0
            if side == 1:  # a value's free bytes follow its length
                if p >= stop:
                    return
                free, p = data[p], p + 1
            yield _cut(data, p, length, limit)
            p += length + free
