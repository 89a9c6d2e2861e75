"""Replay what a fuzzing campaign saved on the compiled build, within the bounds; minimise failures.

Every input runs in a child process (fuzz/bounded.py) capped at 256 MB of address space beyond the
interpreter's own, and counts as a failure if it raises anything but RdbError, dies of a signal, or
takes more than 1 s. Failures are grouped by class (kind, exception type, innermost rdbscope frame);
the smallest input of each class is cut down byte run by byte run while it still fails the same
way, and ``--save`` writes it to tests/rdb/fuzz_regressions/.

    python fuzz/replay.py /tmp/fuzz-failures /tmp/fuzz-corpus --save
"""

import argparse
import hashlib
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fuzz.bounded import run_bounded

REGRESSIONS = ROOT / "tests" / "rdb" / "fuzz_regressions"
MAX_MINIMISING_RUNS = 3000


def inputs(paths):
    for path in paths:
        if path.is_dir():
            yield from sorted(p for p in path.iterdir() if p.is_file())
        else:
            yield path


class Replayer:
    """Runs inputs on one build, each also from a file, so the compiled build maps it."""

    def __init__(self, implementation):
        self.implementation = implementation
        self.scratch = pathlib.Path(tempfile.mkdtemp(prefix="rdbscope-replay-")) / "input.rdb"

    def run(self, data):
        self.scratch.write_bytes(data)
        return run_bounded(data, self.implementation, str(self.scratch))

    def minimise(self, data, signature):
        """Delete runs of bytes, long ones first, while the input still fails with ``signature``."""
        runs = 0
        chunk = max(1, len(data) // 2)
        while chunk >= 1 and runs < MAX_MINIMISING_RUNS:
            start = 0
            while start < len(data) and runs < MAX_MINIMISING_RUNS:
                candidate = data[:start] + data[start + chunk:]
                runs += 1
                if candidate and self.run(candidate).signature() == signature:
                    data = candidate  # the same start now holds the bytes after the deleted run
                else:
                    start += chunk
            chunk //= 2
        return data


def regression_name(outcome, data):
    return f"{outcome.kind}-{hashlib.sha1(data).hexdigest()[:12]}.rdb"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=pathlib.Path, help="saved inputs, or folders of them")
    parser.add_argument("--implementation", default="cython", choices=("cython", "python"))
    parser.add_argument("--save", action="store_true",
                        help=f"write minimised failures to {REGRESSIONS.relative_to(ROOT)}")
    parser.add_argument("--no-minimise", dest="minimise", action="store_false")
    args = parser.parse_args(argv)
    replayer = Replayer(args.implementation)
    classes = {}  # signature -> (outcome, smallest input, count)
    total = 0
    for path in inputs(args.paths):
        data = path.read_bytes()
        outcome = replayer.run(data)
        total += 1
        if not outcome.failed:
            continue
        print(f"{path.name}: {outcome.kind}: {outcome.detail} [{outcome.where}] {outcome.seconds:.2f} s")
        signature = outcome.signature()
        seen = classes.get(signature)
        if seen is None or len(data) < len(seen[1]):
            classes[signature] = (outcome, data, (seen[2] if seen else 0) + 1)
        else:
            classes[signature] = (seen[0], seen[1], seen[2] + 1)
    print(f"\n{total} inputs replayed on the {args.implementation} build; {len(classes)} failure classes")
    for signature, (outcome, data, count) in classes.items():
        if args.minimise:
            data = replayer.minimise(data, signature)
        line = f"  {count} x {outcome.kind}: {outcome.detail[:120]} [{outcome.where}]; minimised to {len(data)} bytes"
        if args.save:
            REGRESSIONS.mkdir(parents=True, exist_ok=True)
            target = REGRESSIONS / regression_name(outcome, data)
            target.write_bytes(data)
            line += f" -> {target.relative_to(ROOT)}"
        print(line)
    return 1 if classes else 0


if __name__ == "__main__":
    sys.exit(main())
