"""How long the command line takes to answer before it reads anything.

Prints the best of N wall and CPU times (fresh interpreter each run, after one warm-up run
that writes the bytecode) of ``rdbscope --help``, a usage error, and the floor they are
measured against: ``python -c "import typer, rich"``.
Run from the repository root: ``python bench/bench_startup.py``.
"""

import argparse
import os
import resource
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


# An installed package has its bytecode compiled; a checkout run with PYTHONDONTWRITEBYTECODE
# would compile rdbscope's modules on every run and measure the compiler instead.
ENVIRONMENT = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def best_of(command, runs):
    """The best wall time and the best CPU time (user + system) of ``runs`` runs.

    CPU time is the steadier figure on a shared machine: waiting for a core does not count.
    """
    walls, cpus = [], []
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=ENVIRONMENT)
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=ENVIRONMENT)
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(walls), min(cpus)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per command; the best counts (default 5)")
    args = parser.parse_args()
    floor = None
    print(f"{'command':40} {'wall':>7}       {'cpu':>7}")
    for name, command in COMMANDS.items():
        wall, cpu = best_of(command, args.runs)
        floor = floor or (wall, cpu)
        print(f"{name:40} {wall * 1000:5.0f} ms {wall / floor[0]:4.2f}x {cpu * 1000:5.0f} ms {cpu / floor[1]:4.2f}x")


if __name__ == "__main__":
    main()
