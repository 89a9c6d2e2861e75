"""Walking a listpack as Python: the pure-Python build's loop over entries.

The Scanner's general walk decodes an entry per method call and folds it into
the element figures per call; here one loop over local variables collects the
entries' text lengths, and slices of that list give the figures. On anything
irregular it returns None and the general walk reads the listpack again, so
every error is the general walk's. The compiled build never calls this.
"""

from operator import add

from ._pure_members import INT8_TEXT

# How the entries group into elements (the Scanner's W_* values).
W_SINGLE, W_ZSET, W_HASH, W_HASH_TTL = 1, 2, 3, 4
PER_ELEMENT = {W_SINGLE: 1, W_ZSET: 2, W_HASH: 2, W_HASH_TTL: 3}
INT_WIDTHS = {0xF1: 2, 0xF2: 3, 0xF3: 4, 0xF4: 8}


def walk_listpack(blob, start, length, group):
    """(elements, largest element, fields with a TTL) of the listpack at blob[start:start+length], or None."""
    if length < 7 or int.from_bytes(blob[start:start + 4], "little") != length or blob[start + length - 1] != 0xFF:
        return None
    count = blob[start + 4] | blob[start + 5] << 8
    stop = start + length - 1
    p = start + 6
    lens = []
    keep = lens.append
    ints = [] if group == W_HASH_TTL else None  # the TTL entries: 0 (an int) means none
    while p < stop:
        c = blob[p]
        value = None
        if c < 0x80:
            n = INT8_TEXT[c]  # a 7-bit unsigned int: the same text as the byte's signed value
            value = c
            size = 1
        elif c < 0xC0:
            n = c & 0x3F
            size = 1 + n
        elif c < 0xE0:
            value = (c & 0x1F) << 8 | blob[p + 1]
            if value >= 4096:
                value -= 8192
            n = len(str(value))
            size = 2
        elif c < 0xF0:
            n = (c & 0x0F) << 8 | blob[p + 1]
            size = 2 + n
        elif c == 0xF0:
            n = int.from_bytes(blob[p + 1:p + 5], "little")
            size = 5 + n
        else:
            width = INT_WIDTHS.get(c)
            if width is None:
                return None
            value = int.from_bytes(blob[p + 1:p + 1 + width], "little", signed=True)
            n = len(str(value))
            size = 1 + width
        if size < 128:
            p += size + 1
        elif size < 16384:
            p += size + 2
        elif size < 2097152:
            p += size + 3
        elif size < 268435456:
            p += size + 4
        else:
            p += size + 5
        if p > stop:
            return None
        keep(n)
        if ints is not None:
            ints.append(value)
    entries = len(lens)
    if count != 65535 and count != entries:
        return None
    per = PER_ELEMENT[group]
    if entries % per:
        return None
    if not entries:
        return 0, 0, 0
    if group == W_SINGLE:
        return entries, max(lens), 0
    if group == W_ZSET:
        return entries // 2, max(lens[0::2]), 0
    if group == W_HASH:
        return entries // 2, max(map(add, lens[0::2], lens[1::2])), 0
    ttl = sum(1 for value in ints[2::3] if value != 0)
    return entries // 3, max(map(add, lens[0::3], lens[1::3])), ttl
