"""Redis Cluster hash slots of many keys at once (compiled with ``_slots.pxd``).

A key's slot is CRC16 (XMODEM: polynomial 0x1021, initial value 0) of the key,
or of its hash tag, modulo 16384. The hash tag is what lies between the first
``{`` and the first ``}`` after it, when that is not empty (src/cluster.c keyHashSlot).

Compiled, on an x86-64 CPU with the carry-less multiply the keys go through
``crc16_clmul.h`` (four short keys at a time where it has AVX-512); elsewhere,
and as Python, through slice-by-8 tables.
"""

try:
    import cython
except ImportError:  # Cython is only needed to build the extension
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython
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


def _crc16_shifted_tables(table):
    """CRC16 of a byte followed by 0 to 7 zero bytes, one table after the other: with them eight bytes
    are folded in per step as eight independent lookups (the CRC is linear over XOR), which cuts the
    chain of dependent lookups eightfold."""
    tables = np.zeros((8, 256), np.uint16)
    tables[0] = table
    for zeros in range(1, 8):
        for byte in range(256):
            once = int(tables[zeros - 1][byte])
            tables[zeros][byte] = ((once & 0xFF) << 8) ^ int(table[once >> 8])
    return tables.reshape(-1)


CRC16_TABLES = _crc16_shifted_tables(_crc16_table())

#: The routines of the compiled build, by level: the tables, then the carry-less multiply (crc16_clmul.h) a key
#: at a time, and four short keys at a time on 64-byte registers.
SLOT_ROUTINES = ("slice-by-8", "clmul", "clmul-512")

#: The level the compiled build uses: the highest this CPU has (0 as Python).
CLMUL = clmul_level() if cython.compiled else 0

#: Which routine finds the slots, for tests and diagnostics.
SLOT_ROUTINE = SLOT_ROUTINES[CLMUL]


def use_routine(name):
    """Find slots with the routine ``name`` of SLOT_ROUTINES, one this build and CPU have (tests compare them)."""
    global CLMUL, SLOT_ROUTINE
    level = SLOT_ROUTINES.index(name)
    if level > (clmul_level() if cython.compiled else 0):
        raise ValueError(f"no {name} routine here")
    CLMUL = level
    SLOT_ROUTINE = name


def find_byte(data, lo, hi, byte):
    """Where ``byte`` first is in ``data[lo:hi]``, or ``hi``."""
    if cython.compiled:
        return lo + find_byte_c(cython.address(data[lo]), hi - lo, byte) if hi > lo else hi
    while lo < hi and data[lo] != byte:
        lo += 1
    return lo


def key_slot(t, data, lo, hi):
    """The slot of the key ``data[lo:hi]`` (``t``: :data:`CRC16_TABLES`)."""
    i = find_byte(data, lo, hi, 123)  # "{"
    if i < hi:
        j = find_byte(data, i + 1, hi, 125)  # "}"
        if j < hi and j > i + 1:  # a non-empty tag: hash only the tag
            lo = i + 1
            hi = j
    crc = 0  # CRC16 of data[lo:hi], eight bytes a step, then four, then one
    while lo + 8 <= hi:
        crc = (t[1792 + ((crc >> 8) ^ cython.cast(cython.int, data[lo]))]
               ^ t[1536 + ((crc & 0xFF) ^ cython.cast(cython.int, data[lo + 1]))]
               ^ t[1280 + cython.cast(cython.int, data[lo + 2])] ^ t[1024 + cython.cast(cython.int, data[lo + 3])]
               ^ t[768 + cython.cast(cython.int, data[lo + 4])] ^ t[512 + cython.cast(cython.int, data[lo + 5])]
               ^ t[256 + cython.cast(cython.int, data[lo + 6])] ^ t[data[lo + 7]])
        lo += 8
    if lo + 4 <= hi:
        crc = (t[768 + ((crc >> 8) ^ cython.cast(cython.int, data[lo]))]
               ^ t[512 + ((crc & 0xFF) ^ cython.cast(cython.int, data[lo + 1]))]
               ^ t[256 + cython.cast(cython.int, data[lo + 2])] ^ t[data[lo + 3]])
        lo += 4
    while lo < hi:
        crc = ((crc << 8) & 0xFFFF) ^ t[(crc >> 8) ^ data[lo]]
        lo += 1
    return crc & 16383


def fill_slots(offsets, data, out):
    """Slot of each key of an Arrow binary array given as its offsets and data buffers."""
    t = CRC16_TABLES
    n = out.shape[0]
    if CLMUL and n:
        with cython.nogil:
            slots_clmul(CLMUL, cython.address(offsets[0]), cython.address(data[0]), data.shape[0], n,
                        cython.address(out[0]), cython.NULL, cython.NULL, cython.NULL)
        return
    with cython.nogil:  # other threads (the patterns pass) run meanwhile
        r = 0
        while r < n:
            out[r] = key_slot(t, data, offsets[r], offsets[r + 1])
            r += 1


def count_slots(offsets, data, memory, out, n_keys, total):
    """As :func:`fill_slots`, and add one to ``n_keys[slot]`` and the key's ``memory`` to ``total[slot]``
    (float64, added in the order of the keys) for each key."""
    t = CRC16_TABLES
    n = out.shape[0]
    if CLMUL and n:
        with cython.nogil:
            slots_clmul(CLMUL, cython.address(offsets[0]), cython.address(data[0]), data.shape[0], n,
                        cython.address(out[0]), cython.address(memory[0]), cython.address(n_keys[0]),
                        cython.address(total[0]))
        return
    with cython.nogil:
        r = 0
        while r < n:
            slot = key_slot(t, data, offsets[r], offsets[r + 1])
            out[r] = slot
            n_keys[slot] += 1
            total[slot] += cython.cast(cython.double, memory[r])
            r += 1
