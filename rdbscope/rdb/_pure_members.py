"""The members of a hashtable set, skiplist zset, linked list or hash, read as Python.

Those collections store each member (or field and value) as its own RDB
string. The Scanner's general loop reads one through several method calls;
here one loop over local variables reads as many as are plain or
integer-encoded and wholly in the buffer, and returns at the first that is
not (LZF, a 64-bit length, the end of the buffer), where the general loop
carries on. The compiled build never calls this.
"""

#: Text length of each 8-bit integer encoding's value (byte 0xC0, then the value byte).
INT8_TEXT = bytes(len(str(v - 256 if v > 127 else v)) for v in range(256))

SCORE_NONE, SCORE_TEXT, SCORE_BINARY = 0, 3, 5  # what follows each member: the zset RDB types


def strings_run(s, done, count, largest, pairs, score, cost_of):
    """Read elements ``done`` to ``count`` at ``s.pos`` while they are plain and in the buffer.

    Returns how many elements are now done and the largest so far, and adds their
    memory to ``s.m_elems``. An element is one string, or two (field, value) with
    ``pairs``, followed by a zset ``score`` when there is one. Its size is the
    string's length, or field plus value; ``cost_of`` gives its memory (of its
    length, or of field and value), remembered per length.
    """
    buf = s.view
    end = s.end
    p = s.pos
    cost = 0
    memo = {}
    field = -1
    element = p
    while done < count and p < end:
        b = buf[p]
        if b < 64:
            n = b
            p += 1 + n
        elif b < 128:
            if p + 1 >= end:
                break
            n = (b & 0x3F) << 8 | buf[p + 1]
            p += 2 + n
        elif b == 0xC0:
            if p + 1 >= end:
                break
            n = INT8_TEXT[buf[p + 1]]
            p += 2
        elif b == 0xC1 or b == 0xC2:
            width = 2 if b == 0xC1 else 4
            n = len(str(int.from_bytes(buf[p + 1:p + 1 + width], "little", signed=True)))
            p += 1 + width
        elif b == 0x80:
            n = int.from_bytes(buf[p + 1:p + 5], "big")
            p += 5 + n
        else:  # LZF or a 64-bit length: the general loop reads it
            break
        if pairs and field < 0:
            field = n
            continue
        if score == SCORE_BINARY:
            p += 8
        elif score == SCORE_TEXT:
            if p >= end:
                break
            mark = buf[p]
            p += 1 if mark >= 253 else 1 + mark  # 253-255 stand for nan, +inf, -inf
        if p > end:
            break
        if pairs:
            key = field << 32 | n
            n += field
            field = -1
        else:
            key = n
        one = memo.get(key)
        if one is None:
            one = cost_of(key >> 32, key & 0xFFFFFFFF, False) if pairs else cost_of(key)
            memo[key] = one
        cost += one
        if n > largest:
            largest = n
        done += 1
        element = p
    s.pos = element
    s.m_elems += cost
    return done, largest
