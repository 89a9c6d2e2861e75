"""Where the CPU of one ``rdbscope.analyze(DUMP)`` goes, thread by thread.

Prints the run's wall and process CPU seconds, then the CPU seconds of each thread that ran
(the scan, the checksum, each measuring thread), of the chunks' measures and of their merges.
On a machine shared with other work, CPU seconds are the steadier figure: waiting for a core
does not count. Run from the repository root, after ``python -m compileall -q rdbscope``:

    python bench/thread_cpu.py /tmp/rdbscope-bench/populate-50m.rdb
    python bench/thread_cpu.py /tmp/rdbscope-bench/gen-10m.rdb --measure-threads 1

One warm-up analysis of a bundled sample dump runs first, so that imports are not counted.
"""

import argparse
import collections
import threading
import time

import rdbscope
import rdbscope.scale.budget as budget
import rdbscope.scale.chunks as chunks

SPENT = collections.Counter()


def timed(name, function):
    """``function``, adding the CPU seconds of the thread that runs it to ``SPENT[name]``."""
    def run(*args, **kwargs):
        started = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            SPENT[name] += time.thread_time() - started
    return run


class CountedThread(threading.Thread):
    """A thread whose CPU seconds are added to ``SPENT`` under its name (less its number) when it ends."""

    def run(self):
        started = time.thread_time()
        try:
            super().run()
        finally:
            SPENT["thread " + self.name.rstrip("0123456789").rstrip("_-")] += time.thread_time() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dump")
    parser.add_argument("--measure-threads", type=int, default=None,
                        help="chunks measured at once (default: the engine's choice)")
    args = parser.parse_args()
    if args.measure_threads is not None:
        budget.MEASURE_THREADS = args.measure_threads
    chunks.chunk_partial = timed("chunks measured", chunks.chunk_partial)
    chunks.merge = timed("partials merged", chunks.merge)
    threading.Thread = CountedThread
    rdbscope.analyze("sample_dumps/redis-8.2-default.rdb")
    SPENT.clear()
    wall, cpu = time.perf_counter(), time.process_time()
    rdbscope.analyze(args.dump)
    print(f"wall {time.perf_counter() - wall:.2f} s, process CPU {time.process_time() - cpu:.2f} s")
    for name, seconds in sorted(SPENT.items()):
        print(f"  {name:32s} {seconds:6.2f} s")


if __name__ == "__main__":
    main()
