"""Value mutations for the fuzz campaign: lengths, counts, expiry times and header integers set to their
extremes, which byte flips almost never reach (issue 29: an expiry of 2**63-1 ms, a ctime of 2**64).

Each mutation finds a field of one kind in a dump without parsing it (the opcode bytes of src/rdb.h
mark expiry times and AUX fields; lengths and counts are anywhere) and writes an extreme value there.
"""

import random
import re

EXTREMES = (0, 1, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**62, 2**63 - 1, 2**64 - 1, -1, -2**31, -2**63)

EXPIRETIME_MS, EXPIRETIME, AUX = 0xFC, 0xFD, 0xFA


def _word(value, width, order="little"):
    """``value`` as a ``width``-byte two's-complement integer (wrapped to the width)."""
    return (value % (1 << 8 * width)).to_bytes(width, order)


def _rdb_string(raw):
    n = len(raw)
    return (bytes([n]) if n < 64 else bytes([0x40 | n >> 8, n & 0xFF])) + raw


def _positions(data, byte):
    return [m.start() for m in re.finditer(re.escape(bytes([byte])), data)]


def set_expiry(data, rng):
    """An expiry time (EXPIRETIME_MS: 8 bytes, EXPIRETIME: 4) set to an extreme."""
    at = rng.choice(_positions(data, EXPIRETIME_MS) + _positions(data, EXPIRETIME) or [None])
    if at is None or at + 1 >= len(data):
        return None
    width = 8 if data[at] == EXPIRETIME_MS else 4
    return data[:at + 1] + _word(rng.choice(EXTREMES), width) + data[at + 1 + width:]


def set_aux(data, rng):
    """An AUX value (the string after an AUX field's name) replaced by an extreme, as a number or as the
    first number of a version (``redis-ver``)."""
    at = rng.choice(_positions(data, AUX) or [None])
    if at is None or at + 2 >= len(data) or data[at + 1] >= 64:
        return None
    value_at = at + 2 + data[at + 1]
    if value_at >= len(data):
        return None
    first = data[value_at]
    if first >> 6 == 3:
        end = value_at + 1 + {0: 1, 1: 2, 2: 4}.get(first & 0x3F, 0)
    elif first >> 6 == 0:
        end = value_at + 1 + first
    else:
        return None
    text = str(rng.choice(EXTREMES))
    return data[:value_at] + _rdb_string((text + ".0.0" if rng.random() < 0.3 else text).encode()) + data[end:]


def set_length(data, rng):
    """A byte taken as the start of an RDB length (src/rdb.c rdbSaveLen) made a 32- or 64-bit length of
    an extreme: element counts, string lengths, listpack sizes."""
    if not data:
        return None
    at = rng.randrange(len(data))
    value = abs(rng.choice(EXTREMES))
    encoded = b"\x80" + _word(value, 4, "big") if value < 2**32 and rng.random() < 0.5 else \
        b"\x81" + _word(value, 8, "big")
    return data[:at] + encoded + data[at + 1:]


def set_word(data, rng):
    """1, 2, 4 or 8 bytes anywhere (a count or size inside a listpack, ziplist or intset) set to an extreme,
    little- or big-endian, the size of the dump kept."""
    width = rng.choice((1, 2, 4, 8))
    if len(data) < width:
        return None
    at = rng.randrange(len(data) - width + 1)
    return data[:at] + _word(rng.choice(EXTREMES), width, rng.choice(("little", "big"))) + data[at + width:]


MUTATIONS = (set_expiry, set_aux, set_length, set_word)


def mutate(data, seed):
    """``data`` with one value set to an extreme (a mutation picked by ``seed``), or None when the mutation
    found no field of its kind."""
    rng = random.Random(seed)
    return rng.choice(MUTATIONS)(bytes(data), rng)
