"""How far the worker processes of a local pool have read, drawn by the process that started them.

Each item of a pool's run (a dump, or a stretch of one) has two slots in an array of shared
memory: the bytes read and the bytes to read. A worker's scan writes them through
:class:`WorkerProgress` (the ``on_progress`` that travels to it in place of the caller's); a
thread of the parent sums them a few times a second and calls the caller's ``on_progress``.
"""

import contextlib
import os
import threading

from .allocator import keep_freed_memory

#: Seconds between two readings of the workers' slots.
POLL_S = 0.25

#: In a pool's worker process: the shared slots, and the item it is running.
_SLOTS = None
_ITEM = 0


def expected_bytes(item):
    """The bytes an item will read, when it is a local file (alone, or after its number in a tuple);
    else 0 until its worker says (a stretch of a dump, a URL)."""
    path = item[1] if isinstance(item, tuple) else item
    if isinstance(path, (str, os.PathLike)) and os.path.isfile(path):
        return os.path.getsize(path)
    return 0


def start_worker(slots, keep_freed=False):
    """The pool's initializer: where this worker process writes its progress; ``keep_freed``: its allocator
    keeps freed memory, as the process that started it does (see :mod:`.allocator`)."""
    global _SLOTS
    _SLOTS = slots
    if keep_freed:
        keep_freed_memory()


def run_item(call, index, item):
    """``call(item)`` in a worker, its progress written to the slots of item ``index``."""
    global _ITEM
    _ITEM = index
    return call(item)


class WorkerProgress:
    """A scan's ``on_progress`` in a worker process (it pickles): writes the bytes read to the slots of
    the item it runs; nothing where no slots were given (in this process, on a Dask worker)."""

    def __call__(self, done, total, keys=None):
        if _SLOTS is not None:
            _SLOTS[2 * _ITEM] = done
            _SLOTS[2 * _ITEM + 1] = total or 0


def stretch_progress(on_progress, low, high):
    """``on_progress`` of the bytes read of the stretch ``[low, high)`` of a dump, from the scan's
    position in the whole dump."""
    if on_progress is None:
        return None

    def within(done, _total, keys=None):
        on_progress(min(max(done - low, 0), high - low), high - low)

    return within


@contextlib.contextmanager
def drawn(slots, on_progress):
    """While the block runs, call ``on_progress(bytes read, bytes to read)`` of all the items of
    ``slots`` (a shared array) a few times a second, and once more at its end."""
    if on_progress is None:
        yield
        return
    stop = threading.Event()

    def draw():
        done, total = sum(slots[0::2]), sum(slots[1::2])
        on_progress(done, total or None)

    def poll():
        while not stop.wait(POLL_S):
            draw()

    thread = threading.Thread(target=poll, name="rdbscope-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
    draw()
