#!/usr/bin/env python3
"""Time rdbscope against other RDB parsers on the dumps of ``make_bench_dumps.py``.

Every contender runs in its own subprocess, once per dump (``--repeat`` for
more; the fastest run is kept).  For each run we record:

* ``seconds``: the parse itself, timed inside the child around the call that
  reads the whole dump (interpreter start-up and imports excluded), or the
  whole process for command-line contenders;
* ``wall``: the whole subprocess, start-up included;
* ``keys``: how many keys the contender reported, so mismatches show;
* ``peak RSS``: the child's maximum resident set size, from ``/usr/bin/time
  -v`` when available, else from a tiny launcher process that reports its
  only child's ``ru_maxrss``.

``keys/s`` and ``MB/s`` (dump file size / seconds) are derived from
``seconds``.  Before a dump's first contender the file is read once so every
contender finds it in the page cache.

Contenders:

``rdbscope-compiled``  ``rdbscope.load(dump)`` with the Cython reader
``rdbscope-no-memory`` the same with ``estimate_memory=False``: the memory model's cost
``rdbscope-streamed``  the same, the file read through a buffer instead of mapped
``rdbscope-pure``      the same with ``RDBSCOPE_PUREPYTHON=1`` (pure Python)
``rdbscope-parquet``   the CLI, ``rdbscope scan DUMP -o OUT.parquet``
``rdb-py``             rdb-py's ``RdbDecoder``, iterated over every item
``rdbtools-tikon``     rdbtools' memory report (``MemoryCallback`` +
                       ``PrintAllKeys`` to /dev/null, i.e. ``rdb -c memory``)

The competitors live in their own virtualenvs (see bench/README.md); a
contender whose interpreter or package is missing is reported as
"not installed", an rdbscope that cannot be imported as "unavailable".

Usage::

    python bench/bench_scan.py                              # everything
    python bench/bench_scan.py --only rdb-py --only rdbtools-tikon --json out.json
    python bench/bench_scan.py --skip rdbscope-pure --name populate-10m.rdb
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

DEFAULT_DUMPS = "/tmp/rdbscope-bench"
DEFAULT_VENVS = Path("/tmp/bench-venvs")
REPO_ROOT = Path(__file__).resolve().parent.parent
RESULT_PREFIX = "@@BENCH "
TIME_BIN = "/usr/bin/time"

# ---------------------------------------------------------------------------
# Code run inside the children.  Each prints one line: RESULT_PREFIX + JSON
# with "keys" and "seconds" (time of the parse alone).  The dump path is
# sys.argv[1].
# ---------------------------------------------------------------------------

RDBSCOPE_LOAD = """
import json, sys, time
expected = sys.argv[2]
import rdbscope, rdbscope.rdb
assert rdbscope.rdb.IMPLEMENTATION == expected, (
    f"rdbscope.rdb.IMPLEMENTATION is {rdbscope.rdb.IMPLEMENTATION!r}, expected {expected!r}")
mode = sys.argv[3] if len(sys.argv) > 3 else ""
source = sys.argv[1]
if mode == "streamed":  # read through a buffer, as a file that cannot be mapped is
    import io
    class Unmappable(io.FileIO):
        def fileno(self):
            raise io.UnsupportedOperation("not mapped")
    source = Unmappable(sys.argv[1])
t0 = time.perf_counter()
t = rdbscope.load(source, estimate_memory=mode != "no-memory")
n = t.num_rows
seconds = time.perf_counter() - t0
print("@@BENCH " + json.dumps({"keys": n, "seconds": seconds}))
"""

RDBSCOPE_PROBE = """
import sys
import rdbscope, rdbscope.rdb
impl = rdbscope.rdb.IMPLEMENTATION
if impl != sys.argv[1]:
    sys.exit(f"rdbscope.rdb.IMPLEMENTATION is {impl!r}, expected {sys.argv[1]!r}")
"""

PARQUET_ROWS = """
import sys
import pyarrow.parquet as pq
print(pq.ParquetFile(sys.argv[1]).metadata.num_rows)
"""

RDBPY_ITERATE = """
import json, sys, time
import rdb
KEY_TYPES = {"string", "list", "set", "sorted_set", "hash"}  # streams are skipped by rdb-py
t0 = time.perf_counter()
n = 0
for item in rdb.RdbDecoder(sys.argv[1]):
    if item["type"] in KEY_TYPES:
        n += 1
seconds = time.perf_counter() - t0
print("@@BENCH " + json.dumps({"keys": n, "seconds": seconds}))
"""

TIKON_MEMORY = """
import json, os, sys, time
from rdbtools import RdbParser, MemoryCallback, PrintAllKeys
from rdbtools.parser import HAS_PYTHON_LZF

class CountingStream:
    # Counts the key records on their way to the CSV writer of `rdb -c memory`.
    def __init__(self, inner):
        self.inner, self.keys = inner, 0
    def next_record(self, record):
        if record.key is not None:
            self.keys += 1
        self.inner.next_record(record)
    def end_rdb(self):
        self.inner.end_rdb()

t0 = time.perf_counter()
with open(os.devnull, "wb") as out:
    stream = CountingStream(PrintAllKeys(out, None, None))
    RdbParser(MemoryCallback(stream, 64)).parse(sys.argv[1])
seconds = time.perf_counter() - t0
print("@@BENCH " + json.dumps({"keys": stream.keys, "seconds": seconds,
                               "note": "" if HAS_PYTHON_LZF else "python-lzf missing"}))
"""

# Fallback when /usr/bin/time is missing: run the command as our only child
# and report its peak RSS (Linux: kilobytes) on stderr.
LAUNCHER = """
import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:])
sys.stderr.write("\\n@@MAXRSS_KB %d\\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)
"""


# ---------------------------------------------------------------------------
# Contenders
# ---------------------------------------------------------------------------


@dataclass
class Contender:
    """How to run one parser on one dump."""

    name: str
    command: Callable[[Path, Path], list[str]]  # (dump, scratch dir) -> argv
    probe: list[str] | None = None  # must exit 0 for the contender to run
    missing: str | None = None  # "not installed: ..." if known up front
    env: dict[str, str] = field(default_factory=dict)
    unset_env: tuple[str, ...] = ()
    cwd: Path = REPO_ROOT
    count_keys: Callable[[Path], int] | None = None  # for contenders that print nothing
    timed_inside: bool = True  # False: `seconds` is the whole process


def default_python(venv: str) -> str:
    return str(DEFAULT_VENVS / venv / "bin" / "python")


def find_rdbscope_cli(python: str) -> str | None:
    """The ``rdbscope`` console script next to ``python``, else on PATH."""
    beside = Path(python).parent / "rdbscope"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("rdbscope")


def make_contenders(args: argparse.Namespace) -> list[Contender]:
    py = args.python_rdbscope
    cli = args.rdbscope_cli or find_rdbscope_cli(py)

    def parquet_rows(out: Path) -> int:
        res = subprocess.run([py, "-c", PARQUET_ROWS, str(out)], capture_output=True, text=True,
                             cwd=REPO_ROOT, check=True)
        return int(res.stdout.strip())

    contenders = [
        Contender(
            "rdbscope-compiled",
            lambda dump, tmp: [py, "-c", RDBSCOPE_LOAD, str(dump), "cython"],
            probe=[py, "-c", RDBSCOPE_PROBE, "cython"],
            unset_env=("RDBSCOPE_PUREPYTHON",),
        ),
        Contender(
            "rdbscope-no-memory",
            lambda dump, tmp: [py, "-c", RDBSCOPE_LOAD, str(dump), "cython", "no-memory"],
            probe=[py, "-c", RDBSCOPE_PROBE, "cython"],
            unset_env=("RDBSCOPE_PUREPYTHON",),
        ),
        Contender(
            "rdbscope-streamed",
            lambda dump, tmp: [py, "-c", RDBSCOPE_LOAD, str(dump), "cython", "streamed"],
            probe=[py, "-c", RDBSCOPE_PROBE, "cython"],
            unset_env=("RDBSCOPE_PUREPYTHON",),
        ),
        Contender(
            "rdbscope-pure",
            lambda dump, tmp: [py, "-c", RDBSCOPE_LOAD, str(dump), "python"],
            probe=[py, "-c", RDBSCOPE_PROBE, "python"],
            env={"RDBSCOPE_PUREPYTHON": "1"},
        ),
        Contender(
            "rdbscope-parquet",
            lambda dump, tmp: [cli, "scan", str(dump), "-o", str(tmp / "keys.parquet")],
            probe=[cli, "--help"] if cli else None,
            missing=None if cli else "not installed: no `rdbscope` command found",
            unset_env=("RDBSCOPE_PUREPYTHON",),
            count_keys=lambda tmp: parquet_rows(tmp / "keys.parquet"),
            timed_inside=False,
        ),
    ]
    for name, python, code, module in [
        ("rdb-py", args.python_rdbpy, RDBPY_ITERATE, "rdb"),
        ("rdbtools-tikon", args.python_tikon, TIKON_MEMORY, "rdbtools"),
    ]:
        missing = None if Path(python).exists() else f"not installed: no interpreter {python}"
        # -I: isolated mode, so neither the working directory nor PYTHON* variables leak in.
        contenders.append(Contender(
            name,
            lambda dump, tmp, python=python, code=code: [python, "-I", "-c", code, str(dump)],
            probe=[python, "-I", "-c", f"import {module}"],
            missing=missing,
            cwd=Path(tempfile.gettempdir()),
        ))
    return contenders


CONTENDER_NAMES = ["rdbscope-compiled", "rdbscope-no-memory", "rdbscope-streamed", "rdbscope-pure",
                   "rdbscope-parquet", "rdb-py", "rdbtools-tikon"]


# ---------------------------------------------------------------------------
# Running and measuring
# ---------------------------------------------------------------------------


@dataclass
class Result:
    dump: str
    contender: str
    status: str  # ok | timeout | error | not installed | unavailable
    keys: int | None = None
    seconds: float | None = None
    wall: float | None = None
    peak_rss_mb: float | None = None
    keys_per_s: float | None = None
    mb_per_s: float | None = None
    note: str = ""


def child_env(c: Contender) -> dict[str, str]:
    env = dict(os.environ)
    for name in c.unset_env:
        env.pop(name, None)
    env.update(c.env)
    return env


def probe(c: Contender) -> tuple[str, str] | None:
    """Return (status, reason) if the contender cannot run, else None."""
    if c.missing:
        return "not installed", c.missing
    if c.probe is None:
        return "not installed", "nothing to run"
    try:
        res = subprocess.run(c.probe, capture_output=True, text=True, env=child_env(c), cwd=c.cwd,
                             timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return "unavailable", str(exc)
    if res.returncode != 0:
        reason = last_line(res.stderr) or f"exit status {res.returncode}"
        status = "unavailable" if c.name.startswith("rdbscope") else "not installed"
        return status, reason
    return None


def last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def run_measured(argv: list[str], env: dict, cwd: Path, timeout: float) -> dict:
    """Run argv; return status, wall time, peak RSS (kB), stdout and stderr."""
    with tempfile.NamedTemporaryFile(prefix="bench-time-", suffix=".txt") as timefile:
        if os.access(TIME_BIN, os.X_OK):
            full = [TIME_BIN, "-v", "-o", timefile.name, *argv]
        else:
            full = [sys.executable, "-c", LAUNCHER, *argv]
        t0 = time.perf_counter()
        # A new session lets a timeout kill the wrapper and the contender together.
        proc = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env, cwd=cwd, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return {"status": "timeout", "wall": time.perf_counter() - t0}
        wall = time.perf_counter() - t0
        peak_kb = None
        for line in Path(timefile.name).read_text().splitlines() + err.splitlines():
            if "Maximum resident set size (kbytes):" in line:
                peak_kb = int(line.rsplit(":", 1)[1])
            elif line.startswith("@@MAXRSS_KB "):
                peak_kb = int(line.split()[1])
    status = "ok" if proc.returncode == 0 else "error"
    return {"status": status, "wall": wall, "peak_kb": peak_kb, "stdout": out, "stderr": err,
            "returncode": proc.returncode}


def measure(c: Contender, dump: Path, timeout: float) -> Result:
    size_mb = dump.stat().st_size / 1e6
    with tempfile.TemporaryDirectory(prefix="rdbscope-bench-") as tmp:
        tmp = Path(tmp)
        run = run_measured(c.command(dump, tmp), child_env(c), c.cwd, timeout)
        res = Result(dump.name, c.name, run["status"], wall=run["wall"])
        if run["status"] == "timeout":
            res.note = f"killed after {timeout:g} s"
            return res
        res.peak_rss_mb = run["peak_kb"] / 1024 if run["peak_kb"] is not None else None
        if run["status"] != "ok":
            stderr = "\n".join(l for l in run["stderr"].splitlines() if not l.startswith("@@MAXRSS_KB"))
            res.note = last_line(stderr) or f"exit status {run['returncode']}"
            return res
        try:
            if c.timed_inside:
                lines = [l for l in run["stdout"].splitlines() if l.startswith(RESULT_PREFIX)]
                report = json.loads(lines[-1][len(RESULT_PREFIX):])
                res.keys, res.seconds = report["keys"], report["seconds"]
                res.note = report.get("note", "")
            else:
                res.seconds = run["wall"]
                res.keys = c.count_keys(tmp)
        except Exception as exc:  # a contender that ran but reported nonsense
            res.status, res.note = "error", f"could not read result: {exc!r}"
            return res
    if res.seconds:
        res.keys_per_s = res.keys / res.seconds if res.keys is not None else None
        res.mb_per_s = size_mb / res.seconds
    return res


def best_of(results: list[Result]) -> Result:
    """Fastest successful run, with the highest peak RSS seen; else the first failure."""
    failures = [r for r in results if r.status != "ok"]
    if failures:
        return failures[0]
    best = min(results, key=lambda r: r.seconds)
    best.peak_rss_mb = max((r.peak_rss_mb for r in results if r.peak_rss_mb is not None),
                           default=None)
    return best


def warm_page_cache(path: Path) -> None:
    with open(path, "rb") as f:
        while f.read(16 << 20):
            pass


# ---------------------------------------------------------------------------
# Reporting
# ---------------------------------------------------------------------------


def fmt_rate(v: float | None) -> str:
    if v is None:
        return "-"
    if v >= 1e6:
        return f"{v / 1e6:.2f}M"
    if v >= 1e3:
        return f"{v / 1e3:.1f}k"
    return f"{v:.0f}"


def fmt_num(v: float | None, spec: str) -> str:
    return "-" if v is None else format(v, spec)


def speedup(fast: Result | None, slow: Result | None) -> str:
    """How many times less time `fast` took than `slow` on the same file."""
    if fast is None or slow is None:
        return "n/a"
    if fast.status == "timeout" and slow.status == "ok":
        return f"<{slow.seconds / fast.wall:.2f}x ({fast.contender} timed out)"
    if fast.status != "ok" or not fast.seconds:
        return f"n/a ({fast.contender}: {fast.status})"
    if slow.status == "ok":
        return f"{slow.seconds / fast.seconds:.1f}x"
    if slow.status == "timeout":
        return f">{slow.wall / fast.seconds:.0f}x ({slow.contender} timed out)"
    return f"n/a ({slow.contender}: {slow.status})"


RATIOS = [("rdbscope-compiled", "rdb-py"), ("rdbscope-compiled", "rdbtools-tikon"),
          ("rdbscope-pure", "rdb-py"), ("rdbscope-compiled", "rdbscope-no-memory"),
          ("rdbscope-compiled", "rdbscope-streamed")]


def print_table(dump: Path, results: list[Result]) -> None:
    size_mb = dump.stat().st_size / 1e6
    print(f"\n== {dump.name}  ({size_mb:,.1f} MB) ==")
    header = (f"{'contender':<18} {'keys':>12} {'seconds':>13} {'wall s':>8} {'keys/s':>8} "
              f"{'MB/s':>8} {'peak RSS MB':>11}")
    print(header)
    print("-" * len(header))
    for r in results:
        seconds = fmt_num(r.seconds, ".2f") if r.status == "ok" else r.status
        keys = fmt_num(r.keys, ",d")
        print(f"{r.contender:<18} {keys:>12} {seconds:>13} {fmt_num(r.wall, '.2f'):>8} "
              f"{fmt_rate(r.keys_per_s):>8} {fmt_num(r.mb_per_s, '.1f'):>8} "
              f"{fmt_num(r.peak_rss_mb, ',.0f'):>11}")
    for r in results:
        if r.note:
            print(f"  {r.contender}: {r.note}")
    by_name = {r.contender: r for r in results}
    shown = [(a, b) for a, b in RATIOS if a in by_name and b in by_name]
    if shown:
        print("speed-ups (time on the same file):")
        for a, b in shown:
            print(f"  {a} / {b}: {speedup(by_name[a], by_name[b])}")
    counts = {r.contender: r.keys for r in results if r.status == "ok" and r.keys is not None}
    if len(set(counts.values())) > 1:
        print("key counts differ: " + ", ".join(f"{n} {k:,}" for n, k in counts.items()))
    sys.stdout.flush()


def machine_info() -> dict:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpus": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "cpu_model": cpu or platform.processor(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "peak_rss_from": TIME_BIN + " -v" if os.access(TIME_BIN, os.X_OK) else "launcher ru_maxrss",
    }


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dumps", default=DEFAULT_DUMPS,
                    help=f"directory holding the *.rdb dumps (default {DEFAULT_DUMPS})")
    ap.add_argument("--name", action="append", metavar="FILE",
                    help="benchmark only this dump file of --dumps (repeatable)")
    ap.add_argument("--only", action="append", choices=CONTENDER_NAMES, metavar="CONTENDER",
                    help=f"run only this contender (repeatable): {', '.join(CONTENDER_NAMES)}")
    ap.add_argument("--skip", action="append", choices=CONTENDER_NAMES, metavar="CONTENDER",
                    default=[], help="do not run this contender (repeatable)")
    ap.add_argument("--timeout", type=float, default=1800,
                    help="seconds before a contender is killed and reported as timeout (default 1800)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per contender and dump; the fastest counts")
    ap.add_argument("--python-rdbscope", default=sys.executable,
                    help="interpreter that has rdbscope (default: this one)")
    ap.add_argument("--rdbscope-cli", help="the rdbscope command (default: beside that interpreter, or on PATH)")
    ap.add_argument("--python-rdbpy", default=default_python("rdb-py"),
                    help="interpreter with rdb-py (default %(default)s)")
    ap.add_argument("--python-tikon", default=default_python("rdbtools-tikon"),
                    help="interpreter with rdbtools-tikon93 (default %(default)s)")
    ap.add_argument("--json", metavar="OUT", help="also write the results as JSON to OUT")
    args = ap.parse_args(argv)

    dump_dir = Path(args.dumps)
    dumps = sorted(dump_dir.glob("*.rdb"))
    if args.name:
        dumps = [d for d in dumps if d.name in args.name]
    if not dumps:
        print(f"no dumps found in {dump_dir} (run bench/make_bench_dumps.py)", file=sys.stderr)
        return 1

    contenders = [c for c in make_contenders(args)
                  if (not args.only or c.name in args.only) and c.name not in args.skip]
    machine = machine_info()
    print(f"machine: {machine['cpus']} CPUs ({machine['cpu_model']}), {machine['platform']}; "
          f"peak RSS from {machine['peak_rss_from']}")

    blocked = {c.name: probe(c) for c in contenders}
    results: list[Result] = []
    for dump in dumps:
        warm_page_cache(dump)
        dump_results = []
        for c in contenders:
            if blocked[c.name]:
                status, reason = blocked[c.name]
                res = Result(dump.name, c.name, status, note=reason)
            else:
                print(f"  {dump.name}: {c.name} ...", end="", flush=True, file=sys.stderr)
                res = best_of([measure(c, dump, args.timeout) for _ in range(max(1, args.repeat))])
                print(f" {res.status}", file=sys.stderr)
            dump_results.append(res)
        print_table(dump, dump_results)
        results += dump_results

    if args.json:
        payload = {"machine": machine, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                   "timeout": args.timeout, "repeat": args.repeat,
                   "dumps": {d.name: d.stat().st_size for d in dumps},
                   "results": [asdict(r) for r in results]}
        Path(args.json).write_text(json.dumps(payload, indent=2) + "\n")
        print(f"\nresults written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
