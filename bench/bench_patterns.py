#!/usr/bin/env python3
"""Time ``rdbscope.patterns.infer_patterns`` on synthetic key columns.

Not a test: run it by hand on a quiet machine, from the repository root::

    python bench/bench_patterns.py                      # 1M and 10M keys, every mix
    python bench/bench_patterns.py --sizes 1000000 --mix families --repeat 3

Mixes:

``families``  the keyspace of the accuracy test (tests/patterns/keyspace.py):
              50+ families, about one key in eight from a family of untyped
              values (user names, slugs, random tokens) that stay distinct
              until generalized: the hard case
``typed``     the same families less those: ids, uuids, hashes, dates, …
``populate``  ``key:N`` for N in 0..n-1, as ``DEBUG POPULATE`` writes

Generating 10M keys takes about a minute per mix; the columns are cached as
Arrow files in ``--cache`` (default /tmp/rdbscope-bench-patterns).
"""

import argparse
import pathlib
import sys
import time

import numpy as np
import pyarrow as pa

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "patterns"))

from keyspace import FAMILIES, generate  # noqa: E402

from rdbscope.patterns import infer_patterns  # noqa: E402

MIXES = ("families", "typed", "populate")


def make_keys(mix, n_keys):
    if mix == "populate":
        numbers = pa.array(np.arange(n_keys)).cast(pa.string())
        return pa.compute.binary_join_element_wise("key:", numbers, "").cast(pa.binary())
    families = FAMILIES if mix == "families" else [f for f in FAMILIES if "{*}" not in f[0]]
    keys, _ = generate(12345, n_keys, families)
    return pa.array(keys, pa.binary())


def cached_keys(mix, n_keys, cache):
    path = cache / f"{mix}-{n_keys}.arrow"
    if path.exists():
        with pa.memory_map(str(path)) as source:
            return pa.ipc.open_file(source).read_all().column("key").combine_chunks()
    keys = make_keys(mix, n_keys)
    cache.mkdir(parents=True, exist_ok=True)
    table = pa.table({"key": keys})
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    return keys


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--mix", choices=MIXES, action="append")
    parser.add_argument("--repeat", type=int, default=1, help="runs per case; the fastest is kept")
    parser.add_argument("--cache", type=pathlib.Path, default=pathlib.Path("/tmp/rdbscope-bench-patterns"))
    args = parser.parse_args(argv)
    print(f"{'mix':<10} {'keys':>11} {'seconds':>8} {'keys/s':>11} {'patterns':>9}")
    for mix in args.mix or MIXES:
        for n_keys in args.sizes:
            keys = cached_keys(mix, n_keys, args.cache)
            best = None
            for _ in range(args.repeat):
                start = time.perf_counter()
                patterns = infer_patterns(keys)
                elapsed = time.perf_counter() - start
                best = elapsed if best is None else min(best, elapsed)
            print(f"{mix:<10} {len(keys):>11,} {best:>8.2f} {len(keys) / best:>11,.0f} "
                  f"{len(patterns.dictionary):>9,}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
