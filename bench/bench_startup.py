"""How long the command line takes to answer before it reads anything.

Prints the best of N wall times (fresh interpreter each run) of ``rdbscope --help``,
a usage error, and the floor they are measured against: ``python -c "import typer, rich"``.
Run from the repository root: ``python bench/bench_startup.py``.
"""

import argparse
import subprocess
import sys
import time

COMMANDS = {
    'python -c "import typer, rich"': [sys.executable, "-c", "import typer, rich"],
    "rdbscope --help": [sys.executable, "-m", "rdbscope", "--help"],
    "rdbscope report --help": [sys.executable, "-m", "rdbscope", "report", "--help"],
    "rdbscope report --no-such-option": [sys.executable, "-m", "rdbscope", "report", "--no-such-option"],
    "rdbscope --version": [sys.executable, "-m", "rdbscope", "--version"],
    "python -c 'import rdbscope'": [sys.executable, "-c", "import rdbscope"],
}


def best_of(command, runs):
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - started)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per command; the best counts (default 5)")
    args = parser.parse_args()
    floor = None
    for name, command in COMMANDS.items():
        seconds = best_of(command, args.runs)
        floor = floor or seconds
        print(f"{name:40} {seconds * 1000:7.0f} ms  {seconds / floor:4.2f}x")


if __name__ == "__main__":
    main()
