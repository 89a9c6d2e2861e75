#!/usr/bin/env python3
"""Time the lint rules against the scan they follow.

For each dump this loads the keys table with the compiled scanner (best of
``--repeat``), then times ``rdbscope.lint()`` on that table (best of
``--repeat``): pattern inference, then every default rule, each timed on its
own. ``--cli`` also times the whole ``rdbscope lint DUMP`` command, start-up
included, beside ``rdbscope scan DUMP -o keys.parquet``.

Before timing, the loaded table is made one chunk per column
as ``load()`` delivers it; ``--multi-chunk`` lints it cut into the 65536-row
batches ``scan()`` yields.

``--synthetic N`` adds bench_passes.py's generated table of N keys (forty
pattern families, TTLs, realistic sizes), since ``populate-10m`` is one pattern.

Run it from a checkout with the extension built (``python setup.py build_ext
--inplace``): key slots and the scan must be the compiled ones.

Usage::

    python bench/bench_lint.py                                   # populate-10m
    python bench/bench_lint.py --dump mixed-1m.rdb --synthetic 10000000 --cli
    python bench/bench_lint.py --multi-chunk                      # the table in scan()'s batches
"""

import argparse
import functools
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "bench"))

import pyarrow as pa  # noqa: E402

import rdbscope  # noqa: E402
import rdbscope.rdb  # noqa: E402
from rdbscope import lint  # noqa: E402
from rdbscope.keys import KeyTable  # noqa: E402

DEFAULT_DUMPS = Path("/tmp/rdbscope-bench")


def best_of(repeat, call):
    best, value = None, None
    for _ in range(repeat):
        started = time.perf_counter()
        value = call()
        seconds = time.perf_counter() - started
        best = seconds if best is None else min(best, seconds)
    return best, value


def time_lint(keys, repeat):
    """Best-of-``repeat`` seconds of lint(), its steps from the best run, and the result."""
    best, steps, result = None, None, None
    for _ in range(repeat):
        started = time.perf_counter()
        result = lint(keys)
        seconds = time.perf_counter() - started
        if best is None or seconds < best:
            best, steps = seconds, dict(result.seconds)
    return best, steps, result


def time_command(args):
    started = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(map(str, args))} failed:\n{done.stderr.strip()}")
    return seconds


def report(name, scan_s, lint_s, steps, result, n_keys, chunks):
    print(f"{name}: {n_keys:,} keys in {chunks} chunk{'s' if chunks != 1 else ''}, "
          f"{len({f.pattern for f in result.finding_list})} patterns in findings, {len(result.finding_list)} findings")
    if scan_s is not None:
        print(f"  scan (compiled load)   {scan_s:7.3f} s")
    print(f"  lint, all default rules {lint_s:6.3f} s" +
          (f"  ({lint_s / scan_s:.2f}x the scan)" if scan_s else ""))
    slow = sorted(steps.items(), key=lambda kv: -kv[1])
    for step, seconds in slow[:8]:
        print(f"    {step:<22} {seconds:7.3f} s")
    rest = sum(seconds for _step, seconds in slow[8:])
    print(f"    {'other rules':<22} {rest:7.3f} s")
    codes = {}
    for finding in result.finding_list:
        codes[finding.code] = codes.get(finding.code, 0) + 1
    print("  findings by code: " + ", ".join(f"{c} {n}" for c, n in sorted(codes.items())))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dumps", type=Path, default=DEFAULT_DUMPS)
    ap.add_argument("--dump", action="append", help="dump file name in --dumps (default populate-10m.rdb)")
    ap.add_argument("--synthetic", type=int, default=0, help="also a generated table of this many keys")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cli", action="store_true", help="also time the rdbscope lint and scan commands")
    ap.add_argument("--json", type=Path, help="save the figures here")
    ap.add_argument("--multi-chunk", action="store_true", help="lint the table in scan()'s 65536-row batches, "
                    "not joined into one chunk per column")
    args = ap.parse_args(argv)
    if rdbscope.rdb.IMPLEMENTATION != "cython":
        print("warning: the scanner is not compiled here; build with setup.py build_ext --inplace",
              file=sys.stderr)
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()},"
          f" scanner {rdbscope.rdb.IMPLEMENTATION}")
    figures = []
    for name in args.dump or ["populate-10m.rdb"]:
        path = args.dumps / name
        scan_s, keys = best_of(args.repeat, functools.partial(rdbscope.load, path))
        if args.multi_chunk:  # as scan() yields it: 65536-row batches
            keys = KeyTable(pa.Table.from_batches(keys.to_arrow().to_batches(max_chunksize=65536)), keys.info)
        chunks = keys.to_arrow()["key"].num_chunks
        lint_s, steps, result = time_lint(keys, args.repeat)
        report(name, scan_s, lint_s, steps, result, keys.num_rows, chunks)
        entry = {"dump": name, "keys": keys.num_rows, "chunks": chunks, "scan_s": scan_s, "lint_s": lint_s,
                 "steps_s": steps, "findings": len(result.finding_list)}
        if args.cli:
            exe = [sys.executable, "-m", "rdbscope"]
            with tempfile.TemporaryDirectory() as tmp:
                entry["cli_scan_s"] = time_command([*exe, "scan", str(path), "-o", f"{tmp}/k.parquet", "-q"])
                entry["cli_lint_s"] = time_command([*exe, "lint", str(path), "-q", "--format", "json"])
            print(f"  rdbscope scan -o parquet {entry['cli_scan_s']:6.3f} s  (whole command)")
            print(f"  rdbscope lint           {entry['cli_lint_s']:6.3f} s  (whole command: scan and lint)")
        figures.append(entry)
        del keys
    if args.synthetic:
        from bench_passes import synthetic_keys

        keys = synthetic_keys(args.synthetic)
        lint_s, steps, result = time_lint(keys, args.repeat)
        report(f"synthetic {args.synthetic:,}", None, lint_s, steps, result, keys.num_rows,
               keys.to_arrow()["key"].num_chunks)
        figures.append({"dump": f"synthetic-{args.synthetic}", "keys": keys.num_rows, "lint_s": lint_s,
                        "steps_s": steps, "findings": len(result.finding_list)})
    if args.json:
        args.json.write_text(json.dumps({"machine": platform.platform(), "figures": figures}, indent=2))


if __name__ == "__main__":
    main()
