"""Load one dump in a child process, with a cap on address space and on time, and say how it ended.

Children are forked from a fork server that has imported rdbscope once (both builds), so one run
costs milliseconds, not the second an import of pyarrow takes, and whatever the dump does (a
signal, an endless loop, a huge allocation) stays in the child. The child caps its address space
at what it already has mapped plus ``memory_limit`` bytes (the imports alone map over a gigabyte),
measures the load itself, and reports through a pipe.
"""

import dataclasses
import errno
import gc
import io
import multiprocessing
import os
import resource
import signal
import time
import traceback

import rdbscope
import rdbscope.rdb
from rdbscope.report import views

#: The bounds of issue 15: more time or memory than this for one small dump is a failure.
TIME_LIMIT_S = 1.0
MEMORY_LIMIT_BYTES = 256 << 20
#: A child still running after this many times the time limit is stopped (a timeout).
HARD_STOP_FACTOR = 10

OK, RDB_ERROR = "ok", "rdb-error"
EXCEPTION, MEMORY, SIGNAL, TIMEOUT = "exception", "memory", "signal", "timeout"

rdbscope.rdb.implementations()  # load both builds here, in the fork server, once


@dataclasses.dataclass(frozen=True)
class Outcome:
    """How one load ended.

    kind: "ok", "rdb-error" (both fine), or the failures "exception", "memory", "signal", "timeout".
    detail: the exception's type and message, or the signal's name.
    where: for an exception, the innermost rdbscope frame (file:line function) and its caller.
    seconds: time the four reads took together (the stop margin for a stopped child).
    rss_growth_bytes: how much the child's peak resident memory grew during the load.
    """

    kind: str
    detail: str = ""
    where: str = ""
    seconds: float = 0.0
    rss_growth_bytes: int = 0

    @property
    def failed(self):
        return self.kind not in (OK, RDB_ERROR)

    def signature(self):
        """What makes two failures the same failure (a minimiser keeps it)."""
        if self.kind in (EXCEPTION, MEMORY):
            return (self.kind, self.detail.split(":")[0], self.where)
        return (self.kind, self.detail if self.kind == SIGNAL else "", "")


def _mapped_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * resource.getpagesize()


def _peak_rss_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _innermost_rdbscope_frame(exc):
    # Compiled frames name their source relative to the checkout ("rdbscope/rdb/_scan.py").
    package = f"{os.sep}rdbscope{os.sep}"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if package in os.sep + f.filename]
    if not frames:
        return ""
    frame = frames[-1]
    where = f"{(os.sep + frame.filename).rpartition(package)[2]}:{frame.lineno} {frame.name.rpartition('.')[2]}"
    # The caller too: one allocation site reached from several readers is several defects.
    return where + "".join(f" < {caller.name.rpartition('.')[2]}" for caller in frames[-2:-1])


def _reads(data, path, implementation):
    """Read the dump from memory as a stream (what stdin and compressed dumps take) and from the
    file, which the compiled build maps; each by load() (batches presized for a whole database)
    and by scan() as `rdbscope scan` reads (small batches, on_error="stop")."""

    def load(source):
        rdbscope.load(source, verify_crc=False, implementation=implementation)

    def scan(source):
        for _batch in rdbscope.scan(source, verify_crc=False, batch_rows=64, on_error="stop",
                                    implementation=implementation):
            pass

    for source in [lambda: io.BytesIO(data)] + ([lambda: path] if path is not None else []):
        yield lambda source=source: load(source())
        yield lambda source=source: scan(source())


def _analyse(data, implementation):
    """Every pass over the dump, and the views that print its instants (expiry times, ctime): hostile
    values in a valid dump (issue 29: expiries past the year 9999, a ctime of 2**64) failed there, not in
    the scanner. Not timed with the reads: a hang is caught by the hard stop."""
    keys = rdbscope.load(io.BytesIO(data), verify_crc=False, implementation=implementation)
    result = rdbscope.analyze(keys)
    views.big_key_rows(result, top=None)
    views.dump_ctime(keys.info)


def _child(connection, data, path, implementation, memory_limit):
    resource.setrlimit(resource.RLIMIT_AS, (_mapped_bytes() + memory_limit, resource.RLIM_INFINITY))
    gc.freeze()  # what the fork server imported: a collection below then costs nothing for it
    rss_before = _peak_rss_bytes()
    seconds, error = 0.0, None
    try:
        for read in _reads(data, path, implementation):
            started = time.perf_counter()
            try:
                read()
            except rdbscope.RdbError as exc:  # only its text is kept: its traceback holds the scanner
                error = error or f"{type(exc).__name__}: {exc}"
            seconds += time.perf_counter() - started
            # A scan stopped by an error sits in a reference cycle (error, traceback, frame) with
            # its presized buffers until the cyclic collector runs: each read gets the bound alone.
            gc.collect()
        kind, detail, where = (OK, "", "") if error is None else (RDB_ERROR, error, "")
        if error is None:  # a valid dump: its values must also get through the analysis and what prints them
            _analyse(data, implementation)
    except Exception as exc:  # noqa: BLE001  (the failures this module is here to catch)
        seconds += time.perf_counter() - started
        out_of_memory = isinstance(exc, MemoryError) or (isinstance(exc, OSError) and exc.errno == errno.ENOMEM)
        kind = MEMORY if out_of_memory else EXCEPTION
        detail, where = f"{type(exc).__name__}: {exc}", _innermost_rdbscope_frame(exc)
    connection.send(Outcome(kind, detail[:300], where, seconds, max(0, _peak_rss_bytes() - rss_before)))
    connection.close()


_CONTEXT = None


def _context():
    global _CONTEXT
    if _CONTEXT is None:
        _CONTEXT = multiprocessing.get_context("forkserver")
        _CONTEXT.set_forkserver_preload([__name__])
    return _CONTEXT


def run_bounded(data, implementation, path=None, time_limit=TIME_LIMIT_S, memory_limit=MEMORY_LIMIT_BYTES):
    """Load ``data`` (and the file ``path`` holding it, if given) with ``implementation``
    ("cython" or "python") in a child process; return an :class:`Outcome`."""
    context = _context()
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(send, data, path, implementation, memory_limit))
    child.start()
    send.close()
    stop_after = time_limit * HARD_STOP_FACTOR
    outcome = None
    if receive.poll(stop_after):
        try:
            outcome = receive.recv()
        except EOFError:  # the child died before it could report
            pass
    child.join(stop_after if outcome is not None else 0.5)
    if child.exitcode is None:
        child.kill()
        child.join()
        return Outcome(TIMEOUT, f"still running after {stop_after:g} s", seconds=stop_after)
    if child.exitcode < 0:
        return Outcome(SIGNAL, signal.Signals(-child.exitcode).name)
    if outcome is None:
        return Outcome(EXCEPTION, f"the child exited with status {child.exitcode} and no report")
    if outcome.kind in (OK, RDB_ERROR) and outcome.seconds > time_limit:
        return dataclasses.replace(outcome, kind=TIMEOUT, detail=f"{outcome.seconds:.2f} s")
    return outcome
