"""LZF, the compression of RDB strings (src/lzf_d.c gives the token layout).

``lzf_expand`` decompresses with pointers and word copies and exists only in
the compiled build; ``lzf_measure`` finds the length data expands to without
expanding it, and runs in both builds (over a pointer compiled, a memoryview
as Python). Both report damage as an LZF_* code, which the scanner turns
into its error, and never read or write past the lengths they are given.
"""

try:
    import cython
except ImportError:  # running as Python without Cython installed
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython

# What lzf_expand and lzf_measure return for damaged data (a length otherwise).
LZF_TOO_LONG = cython.declare(cython.Py_ssize_t, -1)
LZF_CUT = cython.declare(cython.Py_ssize_t, -2)
LZF_BEFORE_START = cython.declare(cython.Py_ssize_t, -3)
LZF_LITERAL_PAST_END = cython.declare(cython.Py_ssize_t, -4)
LZF_SLACK = cython.declare(cython.Py_ssize_t, 64)  # spare bytes after the output of lzf_expand
# The most an LZF token can expand per byte it takes: a 3-byte back reference copies at
# most 264 bytes, a 2-byte one 8, a literal run of 1 + n bytes gives n (src/lzf_d.c).
LZF_MAX_RATIO = cython.declare(cython.ulonglong, 88)

def copy_forward(dst, src, n):
    """Copy n bytes forward, eight at a time (compiled build only: dst and src are pointers).

    Also right for an overlapping LZF reference that starts at least 8 bytes back.
    A plain memcpy of a run this short costs more to start than to do.
    """
    while n >= 8:
        memcpy(dst, src, 8)
        dst += 8
        src += 8
        n -= 8
    while n > 0:
        dst[0] = src[0]
        dst += 1
        src += 1
        n -= 1




def lzf_expand(ip, clen, op, ulen):
    """Decompress ``clen`` LZF bytes at ``ip`` into ``op``.

    ``op`` has room for ``ulen + LZF_SLACK`` bytes: compiled, copies run in whole
    words and may write up to 31 bytes past the data, never past ``ulen +
    LZF_SLACK``. Returns the length produced, or an LZF_* code (src/lzf_d.c gives
    the token layout). Compiled, ``ip`` and ``op`` are pointers, so nothing here
    touches Python; as Python they are memoryviews, copied by slices.
    """
    i = 0
    o = 0
    while i < clen:
        ctrl = ip[i]
        i += 1
        if ctrl < 32:
            run = ctrl + 1
            if o + run > ulen or i + run > clen:
                return LZF_TOO_LONG
            if not cython.compiled:
                op[o:o + run] = ip[i:i + run]
            elif i + 32 <= clen:
                memcpy(op + o, ip + i, 32)
            else:  # the last literals: never read past the compressed data
                copy_forward(op + o, ip + i, run)
            o += run
            i += run
        else:
            run = ctrl >> 5
            if i >= clen:
                return LZF_CUT
            if run == 7:
                run += ip[i]
                i += 1
                if i >= clen:
                    return LZF_CUT
            ref = o - ((ctrl & 0x1F) << 8) - ip[i] - 1
            i += 1
            run += 2
            if ref < 0:
                return LZF_BEFORE_START
            if o + run > ulen:
                return LZF_TOO_LONG
            if not cython.compiled:
                if ref + run <= o:
                    op[o:o + run] = op[ref:ref + run]
                else:  # an overlapping reference repeats the bytes between ref and o
                    pattern = bytes(op[ref:o])
                    op[o:o + run] = (pattern * (run // len(pattern) + 1))[:run]
            elif o - ref >= 8:
                k = 0
                while k < run:
                    memcpy(op + o + k, op + ref + k, 8)
                    k += 8
            else:  # a reference less than 8 bytes back repeats them one by one
                k = 0
                while k < run:
                    op[o + k] = op[ref + k]
                    k += 1
            o += run
    return o


def lzf_measure(ip, clen, ulen, at):
    """The length ``clen`` LZF bytes at ``ip`` expand to, without expanding them.

    ``ip`` is a pointer in the compiled build, a memoryview as Python.

    Returns the length, or an LZF_* code with ``at[0]`` set to where the damage
    was found; stops with LZF_TOO_LONG as soon as the output passes ``ulen``.
    """
    i = 0
    out = 0
    while i < clen:
        ctrl = ip[i]
        i += 1
        if ctrl < 32:
            run = ctrl + 1
            if i + run > clen:
                at[0] = i
                return LZF_LITERAL_PAST_END
            i += run
            out += run
        else:
            run = ctrl >> 5
            if i >= clen:
                at[0] = i
                return LZF_CUT
            if run == 7:
                run += ip[i]
                i += 1
                if i >= clen:
                    at[0] = i
                    return LZF_CUT
            distance = ((ctrl & 0x1F) << 8) + ip[i] + 1
            i += 1
            if distance > out:
                at[0] = i
                return LZF_BEFORE_START
            out += run + 2
        if out > ulen:
            at[0] = i
            return LZF_TOO_LONG
    at[0] = i
    return out


def lzf_decompress(data, ulen):
    """What the LZF bytes ``data`` expand to, at most ``ulen`` bytes, or None for damaged data: all of a
    compressed string, or its start cut where a token ends (then what its whole tokens give)."""
    n = len(data)
    if n == 0:
        return b""
    out = bytearray(ulen + LZF_SLACK)
    view = out
    if cython.compiled:
        got = lzf_expand(cython.address(data[0]), n, cython.address(view[0]), ulen)
    else:
        got = lzf_expand(memoryview(data), n, memoryview(out), ulen)
    return bytes(out[:got]) if got >= 0 else None
