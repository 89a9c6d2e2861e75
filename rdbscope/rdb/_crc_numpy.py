"""CRC-64/Jones of long byte runs with numpy, for the scanner when it runs as plain Python.

CRC is linear over GF(2), so a run is cut into many lanes that are checksummed
side by side, one byte of every lane per numpy step, and the lane CRCs are then
chained: crc(A + B) = shift(crc(A), len(B)) ^ crc(B), where shift feeds len(B)
zero bytes through the CRC register, a linear map applied here with eight
byte-wise lookup tables. Each numpy step feeds two bytes of every lane through
a 65536-entry table: half the steps of a byte-wise table, which is what numpy's
per-call cost makes worth it. The compiled scanner does not need this.
"""

import functools

import numpy as np

LANE_BYTES = 512
MIN_LANES = 64


@functools.cache
def _tables(table_bytes):
    table = np.frombuffer(table_bytes, dtype=np.uint64)[:256].copy()
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
    return table16, shift


def crc64_numpy(crc, data, start, stop, table_bytes):
    """The CRC of ``data[start:stop]`` continuing from ``crc``; returns (crc, bytes done).

    Only whole lanes of LANE_BYTES bytes are done; the caller finishes the rest.
    """
    lanes_count = (stop - start) // LANE_BYTES
    if lanes_count < MIN_LANES:
        return crc, 0
    table16, shift = _tables(table_bytes)
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
