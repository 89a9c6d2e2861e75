"""How close est_memory_bytes comes to MEMORY USAGE, per server, type and encoding.

Reads the committed sample dumps and their oracles (``memory_usage_loaded``:
MEMORY USAGE … SAMPLES 0 after the writing server reloaded its own dump), and
prints the error distribution. Where rdbtools can read a dump (RDB <= 9), its
MemoryCallback runs on the same keys for comparison.

    python bench/memory_accuracy.py [--variant default]
"""

import argparse
import collections
import json
import pathlib
import statistics
import sys

import rdbscope

ROOT = pathlib.Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_dumps"
sys.path.insert(0, str(SAMPLES))
from make_sample_dumps import BUILD_ALLOCATOR  # noqa: E402  (each sample server build's allocator)


def rdbscope_estimates(path, oracle):
    keys = rdbscope.load(path, allocator=BUILD_ALLOCATOR[oracle["server"]],
                         list_compress_depth=int(oracle["config"].get("list-compress-depth", 0)))
    rows = keys.table.select(["db", "key", "est_memory_bytes", "est_memory_fallback"]).to_pylist()
    return {(r["db"], r["key"]): r["est_memory_bytes"] for r in rows if not r["est_memory_fallback"]}


def rdbtools_estimates(path, oracle):
    """rdbtools' MemoryCallback figures, or None when it cannot read the dump."""
    if int(oracle["rdb_version"]) > 9:
        return None
    try:
        from rdbtools import MemoryCallback, RdbParser
    except ImportError:
        return None
    found = {}

    class Collect:
        def next_record(self, record):
            if record.key is not None:
                key = record.key if isinstance(record.key, bytes) else record.key.encode("utf-8", "surrogateescape")
                found[(record.database, key)] = record.bytes

        def end_rdb(self):
            pass

    version = oracle["server_version"].split()[1].rsplit(".", 1)[0]
    RdbParser(MemoryCallback(Collect(), 64, redis_version=version)).parse(str(path))
    return found


def distribution(pairs):
    if not pairs:
        return (0, float("nan"), float("nan"), float("nan"), float("nan"))
    errors = [abs(est - real) / real for real, est in pairs]
    real = sum(r for r, _ in pairs)
    est = sum(e for _, e in pairs)
    return (len(pairs), statistics.median(errors), sorted(errors)[int(0.95 * (len(errors) - 1))],
            sum(e <= 0.10 for e in errors) / len(errors), est / real - 1)


def row(label, stats):
    n, median, p95, within, total = stats
    return f"{label:<34} {n:>6} {median:>8.2%} {p95:>8.2%} {within:>8.1%} {total:>+9.2%}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default=None, help="only this variant (default, lfu, lru, nocompress)")
    args = parser.parse_args(argv)
    header = f"{'dump / type / encoding':<34} {'keys':>6} {'median':>8} {'p95':>8} {'<=10%':>8} {'total':>9}"
    for path in sorted(SAMPLES.glob("*.rdb")):
        if path.stem == "libraries":  # its JSON is the library truth, not a make_sample_dumps oracle
            continue
        oracle = json.loads(path.with_suffix(".json").read_text())
        if args.variant and oracle["variant"] != args.variant:
            continue
        truth = {(r["db"], bytes.fromhex(r["key"])): r for r in oracle["keys"]}
        ours = rdbscope_estimates(path, oracle)
        theirs = rdbtools_estimates(path, oracle)
        groups = collections.defaultdict(list)
        their_groups = collections.defaultdict(list)
        for key, est in ours.items():
            record = truth[key]
            real = record["memory_usage_loaded"]
            groups[(record["type"], record["encoding"])].append((real, est))
            if theirs is not None and (key[0], key[1]) in theirs:
                their_groups[(record["type"], record["encoding"])].append((real, theirs[key]))
        print(f"\n{path.stem}  ({oracle['server_version']}, RDB {oracle['rdb_version']}, "
              f"{BUILD_ALLOCATOR[oracle['server']]})")
        print(header)
        for (typ, enc), pairs in sorted(groups.items()):
            print(row(f"  {typ} / {enc}", distribution(pairs)))
        print(row("  all keys: rdbscope", distribution([p for ps in groups.values() for p in ps])))
        if theirs is not None:
            for (typ, enc), pairs in sorted(their_groups.items()):
                print(row(f"  {typ} / {enc} (rdbtools)", distribution(pairs)))
            print(row("  all keys: rdbtools MemoryCallback",
                      distribution([p for ps in their_groups.values() for p in ps])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
