#!/usr/bin/env python3
"""Time ``rdbscope info`` against ``load()`` on one dump, interleaved, in one process.

Usage: ``python bench/bench_info.py /tmp/rdbscope-bench/populate-10m.rdb [--runs 7]``, from the
checkout to measure (it imports the ``rdbscope`` found there). Wall time moves with whatever
else the machine runs; CPU time (every thread of the process) much less.
"""

import argparse
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from typer.testing import CliRunner  # noqa: E402

import rdbscope  # noqa: E402
from rdbscope.cli import app  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dump")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    runner = CliRunner()
    steps = {"load()": lambda: rdbscope.load(args.dump),
             "info": lambda: runner.invoke(app, ["info", "-q", args.dump], catch_exceptions=False)}
    for step in steps.values():  # page cache and imports warm
        step()
    times = {name: ([], []) for name in steps}
    for _ in range(args.runs):
        for name, step in steps.items():
            wall, cpu = time.perf_counter(), time.process_time()
            step()
            times[name][0].append(time.perf_counter() - wall)
            times[name][1].append(time.process_time() - cpu)
    for name, (wall, cpu) in times.items():
        print(f"{name:7} wall best {min(wall):.2f} s, median {_median(wall):.2f} s; "
              f"cpu best {min(cpu):.2f} s, median {_median(cpu):.2f} s")
    (load_wall, load_cpu), (info_wall, info_cpu) = times["load()"], times["info"]
    print(f"info / load(): wall best {min(info_wall) / min(load_wall):.2f}, median "
          f"{_median(info_wall) / _median(load_wall):.2f}; cpu best {min(info_cpu) / min(load_cpu):.2f}, "
          f"median {_median(info_cpu) / _median(load_cpu):.2f}")


def _median(values):
    return sorted(values)[len(values) // 2]


if __name__ == "__main__":
    main()
