"""Redis Cluster hash slots of many keys at once (compiled with ``_slots.pxd``).

A key's slot is CRC16 (XMODEM: polynomial 0x1021, initial value 0) of the key,
or of its hash tag, modulo 16384. The hash tag is what lies between the first
``{`` and the first ``}`` after it, when that is not empty (src/cluster.c keyHashSlot).
"""

try:
    import cython
except ImportError:  # Cython is only needed to build the extension
    from . import _cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from . import _cython_shim as cython
import numpy as np


def _crc16_table():
    table = np.zeros(256, np.uint16)
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
        table[byte] = crc
    return table


def _crc16_pair_table(table):
    """The CRC of a byte followed by a zero byte: with it two bytes are folded in per step, as
    two independent lookups (the CRC is linear over XOR), which halves the chain of lookups."""
    pair = np.zeros(256, np.uint16)
    for byte in range(256):
        once = int(table[byte])
        pair[byte] = ((once & 0xFF) << 8) ^ int(table[once >> 8])
    return pair


CRC16_TABLE = _crc16_table()
CRC16_PAIR_TABLE = _crc16_pair_table(CRC16_TABLE)


def crc16(data, start, stop, table, pair):
    crc = 0
    i = start
    while i + 1 < stop:
        crc = pair[((crc >> 8) ^ data[i]) & 0xFF] ^ table[(crc & 0xFF) ^ data[i + 1]]
        i += 2
    if i < stop:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ data[i]) & 0xFF]
    return crc


def fill_slots(offsets, data, out):
    """Slot of each key of an Arrow binary array given as its offsets and data buffers."""
    table = CRC16_TABLE
    pair = CRC16_PAIR_TABLE
    n = out.shape[0]
    with cython.nogil:  # other threads (the patterns pass) run meanwhile
        r = 0
        while r < n:
            lo = offsets[r]
            hi = offsets[r + 1]
            i = lo
            while i < hi and data[i] != 123:  # "{"
                i += 1
            if i < hi:
                j = i + 1
                while j < hi and data[j] != 125:  # "}"
                    j += 1
                if j < hi and j > i + 1:  # a non-empty tag: hash only the tag
                    lo = i + 1
                    hi = j
            out[r] = crc16(data, lo, hi, table, pair) & 16383
            r += 1
