"""Checking LZF data's length as Python: the pure-Python build's loop over tokens.

A string that is only measured, not read, must still expand to the length
its header announces (src/lzf_d.c gives the token layout). This loop keeps
only the output length and answers yes or no; on no, the Scanner's general
walk goes over the same bytes and raises the precise error. The compiled
build never calls this.
"""


def lzf_expands_to(data, start, clen, ulen):
    """True when the LZF tokens in data[start:start+clen] expand to exactly ulen bytes."""
    end = start + clen
    p = start
    out = 0
    try:
        while p < end:
            c = data[p]
            if c < 32:  # a literal run of c + 1 bytes
                p += c + 2
                out += c + 1
                continue
            n = c >> 5
            if n == 7:
                p += 1
                n += data[p]
            if ((c & 0x1F) << 8) + data[p + 1] >= out:  # reaches back before the start
                return False
            p += 2
            out += n + 2
    except IndexError:  # a token cut by the end of the data
        return False
    return p == end and out == ulen
