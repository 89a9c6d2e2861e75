"""CRC-64/Jones, the checksum of an RDB dump's trailer (src/crc64.c), and the threads that run it.

Compiled with ``_crc64.pxd``, ``crc64_update`` runs without the GIL and the
scanner calls it as a C function; on an x86-64 CPU with the carry-less multiply
a long run goes through ``crc64_clmul.h``, else through slice-by-8 tables. Run
as Python, a long run goes through numpy lanes instead (``_crc64_lanes``): byte
loops in Python are too slow for whole dumps, and the Python build must still
verify them.
"""

try:
    import cython
except ImportError:  # running as Python without Cython installed
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython

import atexit
import weakref

import numpy as np

from ._pages import background_pool

#: The CRC is recorded at every MARK_EVERY bytes of a mapped dump.
MARK_EVERY = cython.declare(cython.Py_ssize_t, 1 << 20)


def _crc64_tables():
    """Slice-by-8 tables of the reflected CRC-64/Jones that Redis's crc64.c uses."""
    import array

    poly = 0x95AC9329AC4BC9B5
    base = []
    for i in range(256):
        crc = i
        for _ in range(8):
            crc = (crc >> 1) ^ poly if crc & 1 else crc >> 1
        base.append(crc)
    tables = list(base)
    prev = base
    for _ in range(7):
        prev = [(v >> 8) ^ base[v & 0xFF] for v in prev]
        tables.extend(prev)
    return array.array("Q", tables)


CRC_TABLES = _crc64_tables()
CRC_VIEW = CRC_TABLES

#: The compiled build's routines for long runs, by level: tables, then carry-less multiply folding
#: (crc64_clmul.h) on 16-byte and on 64-byte registers.
CRC_ROUTINES = ("slice-by-8", "clmul", "clmul-512")

#: The level the compiled build uses: the highest this CPU has (0 as Python).
CLMUL = clmul_level() if cython.compiled else 0

#: Which routine checksums a long run, for tests and diagnostics.
CRC_ROUTINE = CRC_ROUTINES[CLMUL] if cython.compiled else "numpy lanes"


def use_routine(name):
    """Checksum long runs with the routine ``name`` of CRC_ROUTINES, one this CPU has (tests compare them)."""
    global CLMUL, CRC_ROUTINE
    level = CRC_ROUTINES.index(name)
    if not cython.compiled or level > clmul_level():
        raise ValueError(f"no {name} routine here")
    CLMUL = level
    CRC_ROUTINE = name


#: The bytes of each of the three streams the compiled build checksums side by side.
STREAM_BYTES = cython.declare(cython.Py_ssize_t, 4096)


def _zeros_shift_tables(n):
    """Eight tables of 256: entry ``256 * k + b`` is the CRC register ``b << 8k`` after ``n`` zero bytes."""
    import array

    zeros = bytes(n)
    powers = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))  # not 1 << bit: a C int, compiled
    images = [crc64_chunk(int(power), zeros, 0, n) for power in powers]
    out = array.array("Q", bytes(8 * 2048))
    for k in range(8):
        for b in range(1, 256):
            low = b & -b
            out[256 * k + b] = out[256 * k + (b ^ low)] ^ images[8 * k + low.bit_length() - 1]
    return out


def crc64_step(crc, data, i, t):
    """``crc`` after the eight bytes at ``data[i]`` (slice-by-8)."""
    x = 0
    if cython.compiled:  # one load (_words.pxd)
        x = load_le64(cython.address(data[i]))
    else:
        k = 7
        while k >= 0:
            x = (x << 8) | data[i + k]
            k -= 1
    x ^= crc
    return (t[1792 + (x & 0xFF)] ^ t[1536 + ((x >> 8) & 0xFF)] ^ t[1280 + ((x >> 16) & 0xFF)]
            ^ t[1024 + ((x >> 24) & 0xFF)] ^ t[768 + ((x >> 32) & 0xFF)] ^ t[512 + ((x >> 40) & 0xFF)]
            ^ t[256 + ((x >> 48) & 0xFF)] ^ t[x >> 56])


def crc64_shift(crc, s):
    """``crc`` after STREAM_BYTES zero bytes: a linear map, applied by bytes through ``s``."""
    return (s[crc & 0xFF] ^ s[256 + ((crc >> 8) & 0xFF)] ^ s[512 + ((crc >> 16) & 0xFF)]
            ^ s[768 + ((crc >> 24) & 0xFF)] ^ s[1024 + ((crc >> 32) & 0xFF)] ^ s[1280 + ((crc >> 40) & 0xFF)]
            ^ s[1536 + ((crc >> 48) & 0xFF)] ^ s[1792 + (crc >> 56)])


def crc64_update(crc, data, start, stop):
    """CRC-64/Jones of ``data[start:stop]`` continuing from ``crc``."""
    t = CRC_VIEW
    if CLMUL and stop - start >= CLMUL_MIN:
        return crc64_clmul(CLMUL, crc, cython.address(data[start]), stop - start, cython.address(t[0]))
    s = STREAM_SHIFT_VIEW
    i = start
    if not cython.compiled and stop - start >= LANE_BYTES * MIN_LANES:
        crc, done = _crc64_lanes(crc, data, start, stop)
        i = start + done
    # Three streams of STREAM_BYTES side by side: each step waits on the one before it, so three
    # independent chains of lookups keep the core busy where one leaves it waiting. The streams
    # are then joined as crc(A + B) = shift(crc(A), len(B)) ^ crc(B).
    while cython.compiled and i + 3 * STREAM_BYTES <= stop:
        a = crc
        b = 0
        c = 0
        j = i
        while j < i + STREAM_BYTES:
            a = crc64_step(a, data, j, t)
            b = crc64_step(b, data, j + STREAM_BYTES, t)
            c = crc64_step(c, data, j + 2 * STREAM_BYTES, t)
            j += 8
        crc = crc64_shift(crc64_shift(a, s) ^ b, s) ^ c
        i += 3 * STREAM_BYTES
    while i + 8 <= stop:
        crc = crc64_step(crc, data, i, t)
        i += 8
    while i < stop:
        crc = t[(crc ^ data[i]) & 0xFF] ^ (crc >> 8)
        i += 1
    return crc


def crc64_chunk(crc, data, start, stop):
    """crc64_update for another thread: the compiled build releases the GIL."""
    view = data
    with cython.nogil:
        crc = crc64_update(crc, view, start, stop)
    return crc


STREAM_SHIFT = _zeros_shift_tables(STREAM_BYTES) if cython.compiled else None
STREAM_SHIFT_VIEW = STREAM_SHIFT


def crc_marks(data, marks, stop, progress, until):
    """Fill ``marks`` with the CRC at every MARK_EVERY boundary of ``data`` up to ``until``, without the GIL.

    Goes on from ``progress[0]`` (a boundary whose mark is filled), which follows the bytes
    done; returns early once ``stop[0]`` is set.
    """
    view = data
    out = marks
    flag = stop
    done = progress
    n = min(len(data), until)
    with cython.nogil:
        at = done[0]
        k = at // MARK_EVERY
        crc = out[k]
        k += 1
        while at + MARK_EVERY <= n and flag[0] == 0:
            crc = crc64_update(crc, view, at, at + MARK_EVERY)
            at += MARK_EVERY
            out[k] = crc
            k += 1
            done[0] = at


class CrcWorker:
    """Checksums the chunks the scanner reads on a second thread.

    Each chunk is copied as it arrives and checksummed in order. The CRC state
    before each chunk is kept for the chunks still in the scanner's buffer, so
    the CRC up to the start of the trailer (which may sit mid-chunk, with more
    bytes after it) is finished from the chunk that holds it.
    """

    def __init__(self):
        self.pool = background_pool()
        self.crc = 0
        self.chunks = []  # futures of (start offset, CRC before, data)

    def _run(self, start, data):
        before = self.crc
        self.crc = crc64_chunk(before, data, 0, len(data))
        return start, before, data

    def feed(self, start, data, keep_from):
        """Queue ``data``, which sits at ``start`` in the dump; forget chunks ending before ``keep_from``."""
        self.chunks = [f for f in self.chunks if not f.done() or f.result()[0] + len(f.result()[2]) > keep_from]
        self.chunks.append(self.pool.submit(self._run, start, data))

    def follow(self, offset):
        """The scan reached ``offset`` (this worker is fed what the scan reads; nothing to do)."""

    def crc_until(self, offset):
        """The CRC of the dump's first ``offset`` bytes."""
        for future in self.chunks:
            start, before, data = future.result()
            if start <= offset < start + len(data):
                return crc64_chunk(before, data, 0, offset - start)
        return self.crc

    def close(self):
        self.pool.shutdown(wait=False, cancel_futures=True)


class WholeCrc:
    """Checksums a dump that is mapped whole, on a second thread, as the scan runs.

    It records the CRC at every MARK_EVERY boundary, so the CRC up to the trailer
    is finished from the stretch that holds it, and publishes how far it got, so
    the scanner drops from the mapping only pages both have read. It stays within
    AHEAD bytes of the scan: pages it read far ahead would stay resident until the
    scan reached them, the whole dump for a fast checksum of a large file.
    """

    def __init__(self, data):
        import threading

        self.data = data
        self.marks = np.zeros(len(data) // MARK_EVERY + 1, np.uint64)  # marks[k]: CRC of the first k * MARK_EVERY bytes
        self.stop = np.zeros(1, np.uint8)  # set to ask the thread to stop early
        self.progress = np.zeros(1, np.int64)  # bytes checksummed so far
        self.allowed = AHEAD
        self.moved = threading.Condition()
        self.finished = threading.Event()
        self.thread = threading.Thread(target=self._run, name="rdbscope-crc", daemon=True)
        self.thread.start()
        _RUNNING.add(self)

    def _run(self):
        try:
            while self.stop[0] == 0 and self.progress[0] + MARK_EVERY <= len(self.data):
                with self.moved:
                    self.moved.wait_for(lambda: self.stop[0] or self.allowed >= self.progress[0] + MARK_EVERY)
                    until = self.allowed
                crc_marks(self.data, self.marks, self.stop, self.progress, until)
            self.progress[0] = len(self.data)
        finally:
            self.finished.set()

    def follow(self, offset):
        """The scan reached ``offset``: the checksum may read up to AHEAD bytes past it."""
        if offset + AHEAD > self.allowed + MARK_EVERY:
            with self.moved:
                self.allowed = offset + AHEAD
                self.moved.notify()

    def crc_until(self, offset):
        """The CRC of the dump's first ``offset`` bytes."""
        self.follow(len(self.data))
        self.finished.wait()
        k = offset // MARK_EVERY
        return crc64_chunk(self.marks[k], self.data, k * MARK_EVERY, offset)

    def close(self):
        """Stop the thread; it must let go of the mapping before the mapping closes."""
        with self.moved:
            self.stop[0] = 1
            self.moved.notify()
        self.finished.wait()
        _RUNNING.discard(self)


#: The checksum threads not yet closed. A scan left part read is closed when it is collected, which at
#: exit is after the interpreter stops running daemon threads: their close would wait forever.
_RUNNING = weakref.WeakSet()


@atexit.register
def _close_running():
    for worker in list(_RUNNING):
        worker.close()


#: How far the checksum of a mapped dump may run ahead of the scan.
AHEAD = 128 << 20


# ---------------------------------------------------------------- the Python build's long runs
#
# CRC is linear over GF(2), so a run is cut into lanes that are checksummed side
# by side, one 16-bit word of every lane per numpy step, and the lane CRCs are
# then chained: crc(A + B) = shift(crc(A), len(B)) ^ crc(B), where shift feeds
# len(B) zero bytes through the CRC register, a linear map applied here with
# eight byte-wise lookup tables.

LANE_BYTES = 512
MIN_LANES = 64
_LANE_TABLES = []  # (65536-entry two-byte table, shift tables), built on first use


def _lane_tables():
    if _LANE_TABLES:
        return _LANE_TABLES[0]
    table = np.frombuffer(CRC_TABLES.tobytes(), dtype=np.uint64)[:256].copy()
    base = [int(v) for v in table]

    def feed_zeros(x, n):
        for _ in range(n):
            x = base[x & 0xFF] ^ (x >> 8)
        return x

    # Two bytes at once: feeding lo then hi from state 0, the CRC's linearity does the rest.
    words = np.arange(65536, dtype=np.uint64)
    after_lo = table[words & np.uint64(0xFF)]
    table16 = table[(after_lo ^ (words >> np.uint64(8))) & np.uint64(0xFF)] ^ (after_lo >> np.uint64(8))
    images = [feed_zeros(1 << bit, LANE_BYTES) for bit in range(64)]
    shift = []
    for k in range(8):
        row = []
        for b in range(256):
            v = 0
            for bit in range(8):
                if b >> bit & 1:
                    v ^= images[8 * k + bit]
            row.append(v)
        shift.append(row)
    _LANE_TABLES.append((table16, shift))
    return table16, shift


def _crc64_lanes(crc, data, start, stop):
    """The CRC of the whole lanes of ``data[start:stop]`` continuing from ``crc``; returns (crc, bytes done)."""
    lanes_count = (stop - start) // LANE_BYTES
    table16, shift = _lane_tables()
    # Little-endian 16-bit words: the low byte is the one that comes first.
    view = np.frombuffer(data, dtype="<u2", count=lanes_count * LANE_BYTES // 2, offset=start)
    lanes = np.ascontiguousarray(view.reshape(lanes_count, LANE_BYTES // 2).T).astype(np.uint64)
    state = np.zeros(lanes_count, dtype=np.uint64)
    state[0] = crc  # the running CRC enters through the first lane
    index = np.empty(lanes_count, dtype=np.uint64)
    low = np.uint64(0xFFFF)
    sixteen = np.uint64(16)
    for column in lanes:
        np.bitwise_xor(state, column, out=index)
        np.bitwise_and(index, low, out=index)
        fed = table16.take(index.view(np.int64))
        np.right_shift(state, sixteen, out=state)
        np.bitwise_xor(state, fed, out=state)
    crc = 0
    for lane_crc in state.tolist():
        crc = (shift[0][crc & 0xFF] ^ shift[1][crc >> 8 & 0xFF] ^ shift[2][crc >> 16 & 0xFF]
               ^ shift[3][crc >> 24 & 0xFF] ^ shift[4][crc >> 32 & 0xFF] ^ shift[5][crc >> 40 & 0xFF]
               ^ shift[6][crc >> 48 & 0xFF] ^ shift[7][crc >> 56]) ^ lane_crc
    return crc, lanes_count * LANE_BYTES
