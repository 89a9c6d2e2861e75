#!/usr/bin/env python3
"""Write a valid RDB dump of N string keys directly, at disk speed, without a server.

For the scale benchmarks: ``DEBUG POPULATE`` needs a server holding every key
in memory, so a 200M-key dump is out of reach on a small machine. This writes
the file Redis 7.0 would write for such a keyspace (src/rdb.c rdbSaveRio):

    REDIS0010                       magic and version (Redis 7.0 writes 10, 7.2 writes 11)
    AUX redis-ver, redis-bits, ctime, used-mem, aof-base
    per non-empty db: SELECTDB n, RESIZEDB <keys> <keys with an expiry>,
      then per key: [EXPIRETIME_MS <8 bytes LE>] 0x00 <key> <value>
    EOF, CRC-64/Jones of everything before it (8 bytes LE)

Strings are written as rdbSaveRawString does: integers that fit 32 bits
integer-encoded in the fewest bytes, everything else as length + bytes.
Redis would try LZF on strings over 20 bytes; none of the strings written
here shrinks under LZF (random digits and hex), so raw is what it writes too.

The keyspace, from ``--seed`` (the same arguments give the same bytes):

* ``<prefix><n>`` (default ``user:session:<n>``): an integer value of 1 to 9
  digits (``OBJECT ENCODING`` int); ``--ttl-share`` of them expire.
* ``cache:page:<n>``: ``--cache-share`` of all keys, a 24-character hex value
  (embstr), every one with an expiry.

Expiries fall uniformly from ctime + 10 minutes to ctime + 7 days (sessions)
or ctime + 1 day (cache pages), except ``--batch-share`` of them, which share
one of four exact milliseconds per shape: the batches the expiry pass finds
(EXP003). ``n`` runs from 0 to N-1 over the whole file; db ``d`` of ``--dbs``
holds a contiguous range of it.

Records are built in numpy blocks of 2**18 keys, never a Python call per key;
a second thread checksums and writes one block while the next is built. The
file appears under a temporary name and is renamed when complete.

Usage::

    python bench/make_rdb.py --keys 200000000 --out /tmp/rdbscope-bench/gen-200m.rdb
    python bench/make_rdb.py --keys 100000 --dbs 4 --ttl-share 0.5 --out small.rdb
"""

from __future__ import annotations

import argparse
import ctypes
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's rdbscope
from rdbscope.rdb._crc64 import crc64_chunk  # noqa: E402  (the compiled CRC-64/Jones, GIL released)

# Opcodes and encodings (src/rdb.h).
OPCODE_AUX = 0xFA
OPCODE_RESIZEDB = 0xFB
OPCODE_EXPIRETIME_MS = 0xFC
OPCODE_SELECTDB = 0xFE
OPCODE_EOF = 0xFF
TYPE_STRING = 0x00
ENC_INT = (0xC0, 0xC1, 0xC2)  # int8, int16, int32: (RDB_ENCVAL << 6) | RDB_ENC_INT*
INT_BYTES = (1, 2, 4)

#: What a server of each RDB version calls itself in the redis-ver AUX field.
REDIS_VERSIONS = {10: "7.0.15", 11: "7.2.4"}

CACHE_PREFIX = b"cache:page:"
CACHE_VALUE_CHARS = 24
HEX_DIGITS = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
MIN_TTL_MS = 10 * 60 * 1000
MAX_TTL_MS = {False: 7 * 86400 * 1000, True: 86400 * 1000}  # by is_cache
BATCHES_PER_SHAPE = 4

BLOCK_KEYS = 1 << 18
MAX_DBS = 1 << 16
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)

#: Row i: the ASCII digits of i, zero-padded to CHUNK_DIGITS.
CHUNK_DIGITS = 5
DIGIT_CHUNKS = (np.arange(10 ** CHUNK_DIGITS)[:, None] // 10 ** np.arange(CHUNK_DIGITS - 1, -1, -1) % 10
                + ord("0")).astype(np.uint8)


class UsageError(Exception):
    """A bad option or an unusable output path: one line on stderr, exit 2."""


@dataclass(frozen=True)
class Spec:
    """What to generate."""

    keys: int
    out: Path
    prefix: bytes
    ttl_share: float
    cache_share: float
    batch_share: float
    dbs: int
    seed: int
    ctime: int
    rdb_version: int

    def db_ranges(self):
        """(db, first n, stop n) of every db that holds keys."""
        bounds = [self.keys * d // self.dbs for d in range(self.dbs + 1)]
        return [(d, bounds[d], bounds[d + 1]) for d in range(self.dbs) if bounds[d + 1] > bounds[d]]

    def blocks(self, start, stop):
        """(first n, stop n) of the blocks of one db's range."""
        return [(b, min(b + BLOCK_KEYS, stop)) for b in range(start, stop, BLOCK_KEYS)]

    def batch_instants_ms(self):
        """The exact expiry milliseconds shared by batches: row 0 sessions, row 1 cache pages."""
        rng = np.random.default_rng([self.seed, 2])
        offsets = rng.integers(MIN_TTL_MS, MAX_TTL_MS[True], size=(2, BATCHES_PER_SHAPE))
        return self.ctime * 1000 + offsets


# ---------------------------------------------------------------- encodings (src/rdb.c)


def rdb_length(n):
    """rdbSaveLen: 6-bit, 14-bit, 32-bit or 64-bit big-endian length."""
    if n < 1 << 6:
        return bytes([n])
    if n < 1 << 14:
        return bytes([0x40 | n >> 8, n & 0xFF])
    if n < 1 << 32:
        return b"\x80" + n.to_bytes(4, "big")
    return b"\x81" + n.to_bytes(8, "big")


def int_width(value):
    """Index into ENC_INT of the smallest integer encoding of ``value``, or None past 32 bits."""
    for width, nbytes in enumerate(INT_BYTES):
        if -(1 << (8 * nbytes - 1)) <= value < 1 << (8 * nbytes - 1):
            return width
    return None


def rdb_string(data):
    """rdbSaveRawString without LZF: integer-encoded when the text is a 32-bit integer."""
    if len(data) <= 11:
        try:
            value = int(data)
        except ValueError:
            value = None
        # Only the canonical form (what string2ll accepts back unchanged) is integer-encoded.
        if value is not None and str(value).encode() == data and int_width(value) is not None:
            width = int_width(value)
            return bytes([ENC_INT[width]]) + value.to_bytes(INT_BYTES[width], "little", signed=True)
    return rdb_length(len(data)) + data


def aux_field(name, value):
    return bytes([OPCODE_AUX]) + rdb_string(name.encode()) + rdb_string(str(value).encode())


def header(spec, used_mem):
    """Magic and the AUX fields of rdbSaveInfoAuxFields (a master with no replication info)."""
    return (f"REDIS{spec.rdb_version:04d}".encode()
            + aux_field("redis-ver", REDIS_VERSIONS[spec.rdb_version])
            + aux_field("redis-bits", 64)
            + aux_field("ctime", spec.ctime)
            + aux_field("used-mem", used_mem)
            + aux_field("aof-base", 0))


def db_header(db, keys, expires):
    return (bytes([OPCODE_SELECTDB]) + rdb_length(db)
            + bytes([OPCODE_RESIZEDB]) + rdb_length(keys) + rdb_length(expires))


# ---------------------------------------------------------------- records, a block at a time


def draw_flags(spec, start, stop):
    """(is_cache, has_ttl) of keys start..stop-1: their own random stream, so sizes can be counted first."""
    u = np.random.default_rng([spec.seed, 0, start]).random(stop - start)
    is_cache = u < spec.cache_share
    has_ttl = u < spec.cache_share + (1 - spec.cache_share) * spec.ttl_share
    return is_cache, has_ttl


def count_expires(spec, start, stop):
    return sum(int(np.count_nonzero(draw_flags(spec, a, b)[1])) for a, b in spec.blocks(start, stop))


def decimal_digits(n):
    """How many decimal digits each of ``n`` (non-negative int64) has."""
    digits = np.ones(len(n), dtype=np.int16)
    for power in range(1, len(str(int(n.max(initial=0))))):
        digits += n >= 10 ** power
    return digits


def put_digits(matrix, column, numbers, ndigits):
    """Write ``numbers`` (all of ``ndigits`` digits) as ASCII at ``column`` of every row."""
    end = column + ndigits
    while end > column:  # five digits at a time from the right: a third of the divisions of one at a time
        numbers, low = np.divmod(numbers, 10 ** CHUNK_DIGITS)
        width = min(CHUNK_DIGITS, end - column)
        matrix[:, end - width:end] = DIGIT_CHUNKS[low, CHUNK_DIGITS - width:]
        end -= width


def build_block(spec, start, stop, batch_instants):
    """The records of keys start..stop-1 as one uint8 array."""
    n = stop - start
    numbers = np.arange(start, stop, dtype=np.int64)
    is_cache, has_ttl = draw_flags(spec, start, stop)
    rng = np.random.default_rng([spec.seed, 1, start])

    span = np.where(is_cache, MAX_TTL_MS[True], MAX_TTL_MS[False]) - MIN_TTL_MS
    expire_ms = spec.ctime * 1000 + MIN_TTL_MS + (rng.random(n) * span).astype(np.int64)
    in_batch = rng.random(n) < spec.batch_share
    batch = batch_instants[is_cache.astype(np.intp), rng.integers(0, BATCHES_PER_SHAPE, n)]
    expire_ms = np.where(in_batch, batch, expire_ms)

    # Session values: log-uniform below 10**9, so all three integer encodings occur.
    values = np.power(10.0, 9 * rng.random(n)).astype(np.int64)
    width = (values > 127).astype(np.int16) + (values > 32767)
    cache_values = HEX_DIGITS[rng.integers(0, 16, (int(np.count_nonzero(is_cache)), CACHE_VALUE_CHARS))]
    cache_row = np.cumsum(is_cache) - 1  # each cache key's row in cache_values

    # Rows of one layout (expiry or not, shape, key digits, value width) have one length:
    # build each layout's rows as one matrix, place them in a padded matrix, then pack.
    layout = ((has_ttl.astype(np.int16) << 8) | (is_cache.astype(np.int16) << 7)
              | (decimal_digits(numbers) << 2) | np.where(is_cache, 0, width))
    order = np.argsort(layout, kind="stable")  # a radix sort for int16
    kinds, first = np.unique(layout[order], return_index=True)
    kinds = [Layout.of(spec, kind) for kind in kinds.tolist()]
    padded = np.empty((n, max(kind.length for kind in kinds)), dtype=np.uint8)
    lengths = np.empty(n, dtype=np.min_scalar_type(padded.shape[1]))
    for kind, a, b in zip(kinds, first.tolist(), [*first[1:].tolist(), n], strict=True):
        rows = order[a:b]
        padded[rows, :kind.length] = kind.records(rows, numbers, expire_ms, values, cache_values[cache_row[rows]]
                                                  if kind.cache else None)
        lengths[rows] = kind.length
    return padded[np.arange(padded.shape[1], dtype=lengths.dtype) < lengths[:, None]]


@dataclass(frozen=True)
class Layout:
    """Records of one shape, with or without an expiry, of one key length and value width."""

    ttl: bool
    cache: bool
    ndigits: int
    width: int  # index into INT_BYTES of a session value
    head: bytes  # type, key length and key prefix

    @classmethod
    def of(cls, spec, kind):
        cache = bool(kind >> 7 & 1)
        ndigits = kind >> 2 & 31
        prefix = CACHE_PREFIX if cache else spec.prefix
        head = bytes([TYPE_STRING]) + rdb_length(len(prefix) + ndigits) + prefix
        return cls(bool(kind >> 8), cache, ndigits, kind & 3, head)

    @property
    def value_length(self):
        return 1 + (CACHE_VALUE_CHARS if self.cache else INT_BYTES[self.width])

    @property
    def length(self):
        return 9 * self.ttl + len(self.head) + self.ndigits + self.value_length

    def records(self, rows, numbers, expire_ms, values, hex_values):
        """The records of ``rows`` as an (m, length) matrix."""
        matrix = np.empty((len(rows), self.length), dtype=np.uint8)
        at = 0
        if self.ttl:
            matrix[:, 0] = OPCODE_EXPIRETIME_MS
            matrix[:, 1:9] = expire_ms[rows].astype("<i8").view(np.uint8).reshape(-1, 8)
            at = 9
        matrix[:, at:at + len(self.head)] = np.frombuffer(self.head, dtype=np.uint8)
        at += len(self.head)
        put_digits(matrix, at, numbers[rows], self.ndigits)
        at += self.ndigits
        if self.cache:
            matrix[:, at] = CACHE_VALUE_CHARS
            matrix[:, at + 1:] = hex_values
        else:
            matrix[:, at] = ENC_INT[self.width]
            value_bytes = values[rows].astype("<i4").view(np.uint8).reshape(-1, 4)
            matrix[:, at + 1:] = value_bytes[:, :INT_BYTES[self.width]]
        return matrix


# ---------------------------------------------------------------- the file


class ChecksummedWriter:
    """Writes blocks on a second thread, keeping the running CRC; at most one block in flight."""

    def __init__(self, file):
        self.file = file
        self.crc = 0
        self.bytes = 0
        self.pool = ThreadPoolExecutor(max_workers=1)
        self.pending = None

    def _write(self, data):
        self.crc = crc64_chunk(self.crc, data, 0, len(data))  # releases the GIL
        self.file.write(data)
        self.bytes += len(data)

    def write(self, data):
        if isinstance(data, bytes):
            data = np.frombuffer(data, dtype=np.uint8)
        self.wait()
        self.pending = self.pool.submit(self._write, data)

    def wait(self):
        if self.pending is not None:
            self.pending.result()
            self.pending = None

    def finish(self):
        """Write EOF and the checksum of everything before it."""
        self.write(bytes([OPCODE_EOF]))
        self.wait()
        self.file.write(self.crc.to_bytes(8, "little"))
        self.bytes += 8
        self.pool.shutdown()


def estimated_used_mem(spec, expires):
    """A rough used-mem for the AUX field: Redis's baseline plus about what each key costs on 7.0."""
    key_bytes = len(spec.prefix) + 9
    return 900_000 + spec.keys * (56 + key_bytes) + expires * 40


def keep_freed_memory():
    """Have glibc's malloc keep freed memory instead of returning it to the kernel.

    Every block allocates arrays of the same sizes; kept, they are reused, instead of
    being unmapped and faulted in again page by page (a tenth of the run's CPU time).
    """
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc: nothing to tune
        return
    libc.mallopt(M_MMAP_THRESHOLD, 32 << 20)  # glibc's maximum; a block's arrays are smaller
    libc.mallopt(M_TRIM_THRESHOLD, 256 << 20)


def generate(spec):
    """Write the dump; return (keys with an expiry, bytes written)."""
    keep_freed_memory()
    ranges = spec.db_ranges()
    expires = {db: count_expires(spec, a, b) for db, a, b in ranges}
    total_expires = sum(expires.values())
    batch_instants = spec.batch_instants_ms()
    tmp = spec.out.with_name(f".{spec.out.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as file:
            writer = ChecksummedWriter(file)
            writer.write(header(spec, estimated_used_mem(spec, total_expires)))
            for db, a, b in ranges:
                writer.write(db_header(db, b - a, expires[db]))
                for start, stop in spec.blocks(a, b):
                    writer.write(build_block(spec, start, stop, batch_instants))
            writer.finish()
        os.replace(tmp, spec.out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return total_expires, writer.bytes


# ---------------------------------------------------------------- command line


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def share(text):
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be a share between 0 and 1, not {text!r}")
    return value


def parse_args(argv):
    parser = Parser(prog="make_rdb.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--keys", type=int, required=True, metavar="N", help="number of keys")
    parser.add_argument("--out", type=Path, required=True, metavar="PATH", help="the dump to write")
    parser.add_argument("--prefix", default="user:session:", metavar="P", help="prefix of the session keys")
    parser.add_argument("--ttl-share", type=share, default=0.3, metavar="F",
                        help="share of session keys with an expiry")
    parser.add_argument("--cache-share", type=share, default=0.1, metavar="F",
                        help="share of all keys that are cache:page:<n> (each with an expiry)")
    parser.add_argument("--batch-share", type=share, default=0.05, metavar="F",
                        help="share of expiring keys in exact-millisecond batches")
    parser.add_argument("--dbs", type=int, default=1, metavar="K", help="spread the keys over this many dbs (0..K-1)")
    parser.add_argument("--seed", type=int, default=1, metavar="S",
                        help="random seed: the same arguments (and --ctime) give the same bytes")
    parser.add_argument("--ctime", type=int, default=None, metavar="T",
                        help="the dump's creation time, Unix seconds (default: now); expiries follow it")
    parser.add_argument("--rdb-version", type=int, choices=sorted(REDIS_VERSIONS), default=10, metavar="V",
                        help="10 as Redis 7.0 writes (default), 11 as Redis 7.2 writes")
    args = parser.parse_args(argv)
    if args.keys < 0:
        raise UsageError(f"--keys must be 0 or more, not {args.keys}")
    if not 1 <= args.dbs <= MAX_DBS:
        raise UsageError(f"--dbs must be 1 to {MAX_DBS}, not {args.dbs}")
    if args.seed < 0:
        raise UsageError(f"--seed must be 0 or more, not {args.seed}")
    prefix = args.prefix.encode()
    if not prefix.strip(b"-0123456789"):
        # Keys that read as integers would be integer-encoded by Redis: not what this writes.
        raise UsageError(f"--prefix {args.prefix!r} must hold a character other than digits and '-'")
    if args.cache_share > 0 and (prefix.startswith(CACHE_PREFIX) or CACHE_PREFIX.startswith(prefix)):
        raise UsageError(f"--prefix {args.prefix!r} overlaps the cache:page: keys (or pass --cache-share 0)")
    if args.out.is_dir():
        raise UsageError(f"{args.out}: is a directory")
    if not args.out.parent.is_dir():
        raise UsageError(f"{args.out}: its directory does not exist")
    return Spec(keys=args.keys, out=args.out, prefix=prefix, ttl_share=args.ttl_share,
                cache_share=args.cache_share, batch_share=args.batch_share, dbs=args.dbs, seed=args.seed,
                ctime=int(time.time()) if args.ctime is None else args.ctime, rdb_version=args.rdb_version)


def main(argv=None):
    try:
        spec = parse_args(argv)
    except UsageError as error:
        print(f"make_rdb.py: error: {error}", file=sys.stderr)
        return 2
    began = time.perf_counter()
    try:
        expires, size = generate(spec)
    except OSError as error:
        print(f"make_rdb.py: error: {spec.out}: {error.strerror or error}", file=sys.stderr)
        return 2
    took = time.perf_counter() - began
    print(f"{spec.out}: {spec.keys:,} keys ({expires:,} with an expiry) in {len(spec.db_ranges())} db(s), "
          f"{size:,} bytes in {took:.1f} s ({spec.keys / took:,.0f} keys/s, {size / took / 1e6:,.0f} MB/s)",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
