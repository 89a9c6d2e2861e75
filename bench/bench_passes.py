#!/usr/bin/env python3
"""Time the analysis passes against the scan they follow.

For each dump, a child process scans it with the compiled scanner of
``--scanner-root`` (a checkout with a built extension; default: this one)
and times ``rdbscope.load()``, then hands the keys table over in an Arrow IPC
file. This process loads that file into memory and times ``analyze()`` on it
with this checkout's passes, pass by pass (best of ``--repeat``), plus
``infer_patterns`` alone, since it is the bulk of the patterns pass.

``load()`` delivers one chunk per column (per database), and the passes read
such columns without copying. ``--multi-chunk`` times the table cut into the
65536-row batches ``scan()`` yields instead (153 on ``populate-10m``), where
the passes join each column they read.

``--synthetic N`` adds a generated table of N keys that looks like a real
keyspace (about forty pattern families, 40% of keys with a TTL, batches that
expire together), because ``populate-10m`` is one pattern without TTLs.

Usage::

    python bench/bench_passes.py                                  # populate-10m
    python bench/bench_passes.py --dump mixed-1m.rdb --synthetic 10000000
    python bench/bench_passes.py --scanner-root /path/to/built/checkout --json out.json
    python bench/bench_passes.py --multi-chunk                    # the table in scan()'s batches
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

import rdbscope  # noqa: E402
from rdbscope.keys import KeyTable  # noqa: E402
from rdbscope.patterns import infer_patterns  # noqa: E402
from rdbscope.rdb import KEYS_SCHEMA, DumpInfo  # noqa: E402

DEFAULT_DUMPS = Path("/tmp/rdbscope-bench")

SCAN_CHILD = r"""
import json, sys, time
import pyarrow as pa
import rdbscope, rdbscope.rdb
assert rdbscope.rdb.IMPLEMENTATION == "cython", rdbscope.rdb.IMPLEMENTATION
best = None
for _ in range(int(sys.argv[3])):
    started = time.perf_counter()
    keys = rdbscope.load(sys.argv[1])
    seconds = time.perf_counter() - started
    best = seconds if best is None else min(best, seconds)
table = keys.to_arrow().replace_schema_metadata({"aux": json.dumps(keys.info.aux)})
with pa.OSFile(sys.argv[2], "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
    writer.write_table(table)
print(json.dumps({"scan_s": best, "keys": keys.num_rows, "root": rdbscope.__file__}))
"""


def scan_in_child(dump, scanner_root, repeat, out):
    env = dict(os.environ, PYTHONPATH=str(scanner_root))
    done = subprocess.run([sys.executable, "-c", SCAN_CHILD, str(dump), str(out), str(repeat)],
                          env=env, cwd=scanner_root, capture_output=True, text=True, check=False)
    if done.returncode:
        sys.exit(f"scan of {dump} failed:\n{done.stderr.strip().splitlines()[-1]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def read_ipc(path, multi_chunk=False):
    """The keys table of the IPC file: one chunk per column, or the scan's batches with ``multi_chunk``."""
    with pa.OSFile(str(path), "rb") as source:
        table = pa.ipc.open_file(source).read_all()
    aux = json.loads(table.schema.metadata[b"aux"])
    table = table.replace_schema_metadata(None)
    if multi_chunk:  # as scan() yields it: 65536-row batches
        table = pa.Table.from_batches(table.to_batches(max_chunksize=65536))
    return KeyTable(table, DumpInfo(aux=aux))


def time_passes(keys, repeat):
    """Best-of-``repeat`` seconds per pass and for the whole ``analyze()``."""
    best_total, best_passes, result = None, None, None
    for _ in range(repeat):
        started = time.perf_counter()
        result = rdbscope.analyze(keys)
        total = time.perf_counter() - started
        if best_total is None or total < best_total:
            best_total, best_passes = total, dict(result.seconds)
    infer = min(_timed(lambda: infer_patterns(keys.to_arrow()["key"])) for _ in range(repeat))
    return best_total, best_passes, infer, result


def _chunks(keys):
    return keys.to_arrow()["key"].num_chunks


def _timed(call):
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


# --- a synthetic keyspace ---------------------------------------------------------

HOUR = 3600
DAY = 24 * HOUR
# (key template, type, encoding, share of keys, TTL policy, mean rdb_bytes, mean elements)
# TTL policies: None (persistent), ("spread", seconds), ("batch", n instants, spread s), ("some", share, s)
FAMILIES = [
    ("user:{id}:profile", "string", "raw", 0.10, None, 180, 150),
    ("user:{id}:settings", "hash", "listpack", 0.06, None, 110, 5),
    ("user:{id}:following", "set", "intset", 0.04, ("some", 0.1, 30 * DAY), 60, 12),
    ("user:{id}:cart", "hash", "listpack", 0.02, ("spread", 7 * DAY), 90, 3),
    ("session:{hex32}", "string", "embstr", 0.12, ("spread", 2 * HOUR), 80, 40),
    ("cache:product:{id}", "string", "raw", 0.10, ("batch", 6, 0), 300, 250),
    ("cache:page:{hex16}", "string", "raw", 0.05, ("some", 0.7, DAY), 2000, 1900),
    ("cache:search:{hex16}", "string", "raw", 0.03, ("spread", HOUR), 900, 850),
    ("rate:ip:{id}", "string", "int", 0.04, ("batch", 60, 0), 30, 2),
    ("lock:order:{id}", "string", "embstr", 0.005, ("spread", 60), 50, 36),
    ("otp:{id}", "string", "int", 0.005, ("spread", 300), 30, 6),
    ("token:refresh:{hex32}", "string", "embstr", 0.02, ("spread", 30 * DAY), 90, 40),
    ("order:{id}", "hash", "listpack", 0.05, None, 250, 12),
    ("order:{id}:items", "list", "listpack", 0.03, None, 200, 4),
    ("product:{id}", "hash", "listpack", 0.04, None, 400, 20),
    ("product:{id}:reviews", "list", "quicklist", 0.01, None, 3000, 40),
    ("product:{id}:viewers", "set", "listpack", 0.02, ("spread", 3 * DAY), 150, 10),
    ("leaderboard:daily:{date}", "zset", "skiplist", 0.00001, ("batch", 1, 0), 200_000, 8000),
    ("leaderboard:game:{id}", "zset", "listpack", 0.01, None, 600, 50),
    ("feed:user:{id}", "zset", "listpack", 0.05, ("some", 0.3, 14 * DAY), 700, 60),
    ("notifications:user:{id}", "list", "listpack", 0.04, ("spread", 30 * DAY), 400, 15),
    ("counter:page:{id}:views", "string", "int", 0.03, None, 20, 5),
    ("stats:daily:{date}:{id}", "hash", "listpack", 0.02, ("spread", 90 * DAY), 300, 24),
    ("index:email:{hex16}", "string", "int", 0.03, None, 40, 7),
    ("queue:email:{id}", "list", "quicklist", 0.0001, None, 50_000, 6000),
    ("events:{id}", "stream", "stream", 0.00005, None, 500_000, 20_000),
    ("tmp:upload:{hex16}", "string", "raw", 0.004, None, 5000, 4900),
    ("job:{id}", "hash", "listpack", 0.02, ("batch", 24, 600), 200, 6),
    ("job:{id}:log", "list", "listpack", 0.01, ("batch", 24, 600), 800, 20),
    ("geo:city:{id}", "zset", "listpack", 0.002, None, 900, 80),
    ("flag:{id}", "string", "int", 0.005, None, 20, 1),
    ("config:app:{id}", "hash", "listpack", 0.0005, None, 500, 30),
    ("blob:avatar:{id}", "string", "raw", 0.01, None, 12_000, 12_000),
    ("presence:user:{id}", "string", "int", 0.02, ("spread", 120), 25, 1),
    ("typing:{id}:{id}", "string", "int", 0.005, ("spread", 10), 25, 1),
    ("captcha:{hex16}", "string", "embstr", 0.005, ("spread", 600), 40, 6),
    ("analytics:hll:{date}", "string", "raw", 0.0001, None, 12_000, 12_000),
    ("bloom:urls:{id}", "string", "raw", 0.0001, None, 1_000_000, 1_000_000),
]


def synthetic_keys(n, seed=7):
    """A KeyTable of about ``n`` keys of :data:`FAMILIES`, in random order; ctime is 2030-01-01."""
    rng = np.random.default_rng(seed)
    ctime = 1_893_456_000
    shares = np.array([f[3] for f in FAMILIES])
    sizes = np.maximum(1, np.round(shares / shares.sum() * n)).astype(np.int64)
    parts = []
    for family, size in zip(FAMILIES, sizes, strict=True):
        template, type_name, encoding, _share, ttl, mean_bytes, mean_elements = family
        keys = _render(template, size, rng)
        rdb_bytes = np.maximum(1, rng.lognormal(np.log(mean_bytes), 0.5, size)).astype(np.uint64)
        elements = np.maximum(0, rng.lognormal(np.log(mean_elements + 1), 0.5, size)).astype(np.uint64)
        expire = _expiries(ttl, size, ctime, rng)
        parts.append((keys, type_name, encoding, rdb_bytes, elements, expire))
    order = rng.permutation(int(sizes.sum()))
    keys = pa.concat_arrays([p[0] for p in parts]).take(pa.array(order))
    columns = {
        "db": pa.array(np.zeros(len(order), np.int32)),
        "key": keys,
        "type": _dictionary([p[1] for p in parts], sizes, order, KEYS_SCHEMA.field("type").type),
        "encoding": _dictionary([p[2] for p in parts], sizes, order, KEYS_SCHEMA.field("encoding").type),
        "expire_at": _expire_column(np.concatenate([p[5] for p in parts])[order]),
        "rdb_bytes": pa.array(np.concatenate([p[3] for p in parts])[order]),
        "n_elements": pa.array(np.concatenate([p[4] for p in parts])[order]),
    }
    for name in KEYS_SCHEMA.names:
        if name not in columns:
            columns[name] = pa.nulls(len(order), KEYS_SCHEMA.field(name).type) if name != "offset" \
                else pa.array(np.zeros(len(order), np.uint64))
    table = pa.table([columns[name] for name in KEYS_SCHEMA.names], schema=KEYS_SCHEMA)
    return KeyTable(table, DumpInfo(magic="REDIS", rdb_version=10, aux={"ctime": str(ctime)}))


def _render(template, size, rng):
    pieces = []
    rest = template
    while "{" in rest:
        head, _, tail = rest.partition("{")
        kind, _, rest = tail.partition("}")
        pieces.append(pa.scalar(head.encode(), pa.binary()))
        pieces.append(_values(kind, size, rng))
    pieces.append(pa.scalar(rest.encode(), pa.binary()))
    return pc.binary_join_element_wise(*pieces, pa.scalar(b"", pa.binary()))


def _values(kind, size, rng):
    if kind == "id":
        return pc.cast(pa.array(rng.integers(1, 50_000_000, size)), pa.string()).cast(pa.binary())
    if kind == "date":
        days = rng.integers(0, 365, size)
        return pc.strftime(pa.array(days * 86400 * 1000 + 1_893_456_000_000, pa.timestamp("ms")),
                           format="%Y-%m-%d").cast(pa.binary())
    width = int(kind[3:])
    digits = np.frombuffer(b"0123456789abcdef", np.uint8)[rng.integers(0, 16, (size, width))]
    return pa.FixedSizeBinaryArray.from_buffers(pa.binary(width), size, [None, pa.py_buffer(digits.tobytes())]
                                                ).cast(pa.binary())


NO_TTL = np.iinfo(np.int64).min


def _expiries(policy, size, ctime, rng):
    """Absolute expiries in ms; ``NO_TTL`` for keys without one."""
    never = np.full(size, NO_TTL, dtype=np.int64)
    if policy is None:
        return never
    kind = policy[0]
    if kind == "spread":
        return ctime * 1000 + rng.integers(0, policy[1] * 1000, size)
    if kind == "some":
        values = ctime * 1000 + rng.integers(0, policy[2] * 1000, size)
        return np.where(rng.random(size) < policy[1], values, never)
    instants = ctime * 1000 + rng.integers(60, 2 * DAY, policy[1]) * 1000
    jitter = rng.integers(0, policy[2] * 1000 + 1, size) if policy[2] else 0
    return instants[rng.integers(0, policy[1], size)] + jitter


def _expire_column(values):
    return pa.array(values, pa.int64(), mask=values == NO_TTL).cast(pa.timestamp("ms", tz="UTC"))


def _dictionary(names, sizes, order, typ):
    dictionary = sorted(set(names))
    codes = np.repeat(np.array([dictionary.index(n) for n in names], np.int8), sizes)[order]
    return pa.DictionaryArray.from_arrays(pa.array(codes, typ.index_type), pa.array(dictionary))


# --- report -------------------------------------------------------------------------

def report(name, n_keys, scan_s, total, passes, infer, result, chunks):
    print(f"\n{name}: {n_keys:,} keys in {chunks} chunk{'s' if chunks != 1 else ''}, "
          f"{len(result.tables['patterns']):,} patterns, {len(result.finding_list)} findings")
    if scan_s is not None:
        print(f"  scan (compiled)      {scan_s:7.3f} s")
    for pass_id, seconds in passes.items():
        print(f"  pass {pass_id:<15} {seconds:7.3f} s")
    print(f"    of which infer_patterns {infer:6.3f} s")
    print(f"  analyze() in all     {total:7.3f} s" +
          (f"  ({total / scan_s:.2f}x the scan)" if scan_s else ""))
    print(f"  passes without infer_patterns {total - infer:6.3f} s")
    return {"name": name, "keys": n_keys, "chunks": chunks, "patterns": len(result.tables["patterns"]),
            "scan_s": scan_s, "analyze_s": total, "passes_s": passes, "infer_patterns_s": infer}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dumps", type=Path, default=DEFAULT_DUMPS)
    parser.add_argument("--dump", action="append", help="dump file name in --dumps (repeatable; "
                        "default populate-10m.rdb)")
    parser.add_argument("--scanner-root", type=Path, default=REPO_ROOT,
                        help="checkout whose compiled scanner scans the dumps")
    parser.add_argument("--synthetic", type=int, default=0, metavar="N", help="also a generated table of N keys")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--multi-chunk", action="store_true",
                        help="time the table in the scan's record batches, not joined into one chunk")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory(prefix="rdbscope-bench-passes-") as tmp:
        for name in args.dump or (["populate-10m.rdb"] if not args.synthetic else []):
            scanned = scan_in_child(args.dumps / name, args.scanner_root, args.repeat, Path(tmp) / "keys.arrow")
            keys = read_ipc(Path(tmp) / "keys.arrow", args.multi_chunk)
            total, passes, infer, result = time_passes(keys, args.repeat)
            results.append(report(name, keys.num_rows, scanned["scan_s"], total, passes, infer, result,
                                  _chunks(keys)))
            del keys, result
    if args.synthetic:
        keys = synthetic_keys(args.synthetic)
        if not args.multi_chunk:
            keys = KeyTable(keys.to_arrow().combine_chunks(), keys.info)
        total, passes, infer, result = time_passes(keys, args.repeat)
        results.append(report(f"synthetic-{args.synthetic}", keys.num_rows, None, total, passes, infer, result,
                              _chunks(keys)))
    if args.json:
        args.json.write_text(json.dumps({"machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                                                     "processor": platform.processor()},
                                         "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
