#!/usr/bin/env python3
"""How rdbscope's cost grows with the size of a dump.

For each dump given and each mode, a fresh child process runs the mode once;
the parent reads the child's peak RSS from ``wait4`` and the child reports
its own timing as one JSON line. The table shows, per mode, seconds, keys/s,
peak RSS and the ratio of time and keys against the smallest dump given, so
that linear growth reads as ``time x`` equal to ``keys x``.

Modes are the entries of ``MODES``: a name, what is timed, and the code the
child runs (``DUMP`` is the dump's path; the code sets ``seconds`` and may
set ``keys`` and ``detail``), or a command line timed from outside. Add a
mode (a memory budget, ``--jobs``, a Dask cluster) by adding an entry.

Usage::

    python bench/bench_scale.py /tmp/rdbscope-bench/populate-10m-session.rdb \\
        /tmp/rdbscope-bench/populate-50m.rdb
    python bench/bench_scale.py --mode load --mode analyze DUMP...
    python bench/bench_scale.py --profile /tmp/prof DUMP...   # a cProfile file per child

Run from the repository root, so that an in-place build is used. The dumps
are run one at a time, smallest first: never two big children at once.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Mode:
    """One way of running rdbscope over a dump.

    ``code`` runs in a child Python (``DUMP`` set, rdbscope importable) and
    must set ``seconds`` and ``cpu`` (``seconds, cpu = since(clock())`` around
    what is timed); it may set ``keys`` and ``detail`` (a dict of figures
    shown beside the row). ``argv`` instead runs a command (``{dump}``
    replaced), stdout to /dev/null, timed from start to exit.
    """

    name: str
    what: str
    code: str = ""
    argv: tuple[str, ...] = ()
    tree: bool = False  # several processes: peak RSS is the sum over the child and its descendants


MODES = (
    Mode("load", "`rdbscope.load(dump)`", code="""
import rdbscope
mark = clock()
keys_table = rdbscope.load(DUMP)
seconds, cpu = since(mark)
keys = keys_table.num_rows
"""),
    Mode("analyze", "`rdbscope.analyze(table)` after a load (RSS: the whole child)", code="""
import rdbscope
mark = clock()
keys_table = rdbscope.load(DUMP)
load_seconds, _ = since(mark)
mark = clock()
result = rdbscope.analyze(keys_table)
seconds, cpu = since(mark)
keys = keys_table.num_rows
detail = {"load": load_seconds, **result.seconds}
"""),
    Mode("report", "`rdbscope report DUMP --format json > /dev/null` (every process)",
         argv=(sys.executable, "-m", "rdbscope", "report", "{dump}", "--format", "json"), tree=True),
    Mode("bounded-1GB", "`rdbscope.analyze(dump, memory_budget='1GB', jobs=1)`: scan and analysis, bounded", code="""
import rdbscope
mark = clock()
result = rdbscope.analyze(DUMP, memory_budget="1GB", jobs=1)
seconds, cpu = since(mark)
keys = result.n_keys
detail = {"bounded": float(result.bounded)}
"""),
    Mode("report-1GB", "`rdbscope report DUMP --memory-budget 1GB --jobs 1 --format json` (whole process)",
         argv=(sys.executable, "-m", "rdbscope", "report", "{dump}", "--memory-budget", "1GB", "--jobs", "1",
               "--format", "json")),
    Mode("report-2GB-jobs1", "`rdbscope report DUMP --memory-budget 2GB --jobs 1 --format json` (whole process)",
         argv=(sys.executable, "-m", "rdbscope", "report", "{dump}", "--memory-budget", "2GB", "--jobs", "1",
               "--format", "json")),
    Mode("report-2GB-jobs2", "`rdbscope report DUMP --memory-budget 2GB --jobs 2 --format json` (every process)",
         argv=(sys.executable, "-m", "rdbscope", "report", "{dump}", "--memory-budget", "2GB", "--jobs", "2",
               "--format", "json"), tree=True),
    # A directory of dumps (a cluster's nodes) as DUMP:
    Mode("dask-2", "`rdbscope.analyze(dumps, memory_budget='2GB', client=...)` on a Dask LocalCluster of 2 "
         "worker processes (start-up in detail; every process)", tree=True, code="""
import rdbscope
from distributed import Client, LocalCluster
mark = clock()
cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
client = Client(cluster)
start_seconds, _ = since(mark)
mark = clock()
result = rdbscope.analyze(DUMP, memory_budget="2GB", client=client)
seconds, cpu = since(mark)
keys = result.n_keys
detail = {"cluster start": start_seconds, "bounded": float(result.bounded)}
client.close()
cluster.close()
"""),
)

CHILD = """
import json, os, resource, sys, time
DUMP = sys.argv[1]
keys = None
detail = {}

def clock():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return time.perf_counter(), usage.ru_utime + usage.ru_stime

def since(mark):
    now = clock()
    return now[0] - mark[0], now[1] - mark[1]

PROFILE = os.environ.get("BENCH_PROFILE")
if PROFILE:
    import cProfile
    profiler = cProfile.Profile()
    profiler.enable()
%s
if PROFILE:
    profiler.disable()
    profiler.dump_stats(PROFILE)
print("@@RESULT " + json.dumps({"seconds": seconds, "cpu": cpu, "keys": keys, "detail": detail}), flush=True)
"""


@dataclass
class Run:
    dump: Path
    mode: Mode
    seconds: float | None = None
    cpu: float | None = None  # user + system seconds, all threads
    keys: int | None = None
    peak_rss: int = 0  # bytes
    detail: dict | None = None
    error: str = ""


def run(mode: Mode, dump: Path, timeout: float, profile_dir: Path | None) -> Run:
    """Run ``mode`` on ``dump`` in a fresh child; its peak RSS comes from wait4."""
    env = dict(os.environ)
    if profile_dir is not None:
        env["BENCH_PROFILE"] = str(profile_dir / f"{dump.stem}.{mode.name}.prof")
    if mode.code:
        argv = [sys.executable, "-c", CHILD % mode.code, str(dump)]
    else:
        argv = [part.replace("{dump}", str(dump)) for part in mode.argv]
    result = Run(dump, mode)
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=ROOT, env=env, stderr=stderr,
                                stdout=stdout if mode.code else subprocess.DEVNULL)
        killer = threading.Timer(timeout, proc.kill)
        killer.start()
        tree_peak = [0]
        poller = threading.Thread(target=_poll_tree_rss, args=(proc.pid, tree_peak), daemon=True)
        if mode.tree:
            poller.start()
        # wait4, not Popen.wait: it gives this child's own peak RSS, not the largest child's so far
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - t0
        killer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        result.peak_rss = max(usage.ru_maxrss * 1024, tree_peak[0]) if mode.tree else usage.ru_maxrss * 1024
        stdout.seek(0)
        output = stdout.read()
        stderr.seek(0)
        err = stderr.read().decode(errors="replace").strip()
    if proc.returncode not in ((0,) if mode.code else (0, 1)):  # report exits 1 on findings at --fail-on
        result.error = f"exit {proc.returncode}: " + (err.splitlines()[-1] if err else "no message")
        return result
    if mode.code:
        line = next(x for x in output.decode().splitlines() if x.startswith("@@RESULT "))
        data = json.loads(line.removeprefix("@@RESULT "))
        result.seconds, result.cpu = data["seconds"], data["cpu"]
        result.keys, result.detail = data["keys"], data["detail"]
    else:
        result.seconds, result.cpu = elapsed, usage.ru_utime + usage.ru_stime
    return result


def _poll_tree_rss(pid: int, peak: list) -> None:
    """Keep ``peak[0]`` at the largest sum of RSS over process ``pid`` and its descendants."""
    import psutil

    try:
        root = psutil.Process(pid)
        while root.is_running() and root.status() != psutil.STATUS_ZOMBIE:
            total = 0
            for process in (root, *root.children(recursive=True)):
                try:
                    total += process.memory_info().rss
                except psutil.Error:
                    pass
            peak[0] = max(peak[0], total)
            time.sleep(0.05)
    except psutil.Error:
        pass


def fmt_count(n: float) -> str:
    for unit, size in (("M", 1e6), ("k", 1e3)):
        if n >= size:
            return f"{n / size:.3g}{unit}"
    return f"{n:.0f}"


def fmt_bytes(n: int) -> str:
    return f"{n / 2**30:.2f} GB" if n >= 2**30 else f"{n / 2**20:.0f} MB"


def table(runs: list[Run], dumps: list[Path]) -> str:
    keys_of = {r.dump: r.keys for r in runs if r.keys is not None}
    base = dumps[0]
    lines = ["| mode | dump | keys | seconds | cpu s | keys/s | peak RSS | keys x | time x | cpu x | detail (s) |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in runs:
        keys = keys_of.get(r.dump)
        shown = fmt_count(keys) if keys else "?"
        if r.error:
            lines.append(f"| {r.mode.name} | {r.dump.stem} | {shown} | error | | | | | | | {r.error} |")
            continue
        base_run = next((b for b in runs if b.mode == r.mode and b.dump == base and not b.error), None)
        keys_x = f"{keys / keys_of[base]:.2f}" if keys and keys_of.get(base) else ""
        time_x = f"{r.seconds / base_run.seconds:.2f}" if base_run else ""
        cpu_x = f"{r.cpu / base_run.cpu:.2f}" if base_run else ""
        rate = fmt_count(keys / r.seconds) if keys else ""
        detail = ", ".join(f"{k} {v:.2f}" for k, v in (r.detail or {}).items())
        lines.append(f"| {r.mode.name} | {r.dump.stem} | {shown} | {r.seconds:.2f} | {r.cpu:.2f} "
                     f"| {rate} | {fmt_bytes(r.peak_rss)} | {keys_x} | {time_x} | {cpu_x} | {detail} |")
    return "\n".join(lines)


def _size(path: Path) -> int:
    """A dump's size, or a directory's dumps' (a cluster's nodes)."""
    return sum(p.stat().st_size for p in path.iterdir()) if path.is_dir() else path.stat().st_size


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dumps", nargs="+", type=Path,
                    help="dumps (or directories of a cluster's dumps), any order (run smallest first)")
    ap.add_argument("--mode", action="append", choices=[m.name for m in MODES],
                    help="run only this mode (repeatable; default: all)")
    ap.add_argument("--timeout", type=float, default=1800, help="kill a child after this many seconds")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs per mode and dump, interleaved over the dumps; the fastest counts")
    ap.add_argument("--profile", type=Path, metavar="DIR",
                    help="write a cProfile file per Python child into DIR")
    ap.add_argument("--json", type=Path, help="also save the runs as JSON")
    args = ap.parse_args(argv)

    missing = [str(p) for p in args.dumps if not p.exists()]
    if missing:
        ap.error(f"no such dump: {', '.join(missing)}")
    dumps = sorted(args.dumps, key=_size)
    modes = [m for m in MODES if not args.mode or m.name in args.mode]
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
    runs = []
    for mode in modes:
        best: dict[Path, Run] = {}
        for _ in range(args.repeat):
            for dump in dumps:
                print(f"{mode.name} {dump.name} ...", file=sys.stderr, flush=True)
                this = run(mode, dump, args.timeout, args.profile)
                kept = best.get(dump)
                if kept is None or (not this.error and (kept.error or this.seconds < kept.seconds)):
                    best[dump] = this
        runs.extend(best[dump] for dump in dumps)
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", file=sys.stderr)
    print(table(runs, dumps))
    if args.json:
        args.json.write_text(json.dumps([{"mode": r.mode.name, "dump": str(r.dump), "keys": r.keys,
                                          "seconds": r.seconds, "cpu": r.cpu, "peak_rss": r.peak_rss,
                                          "detail": r.detail, "error": r.error} for r in runs], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
