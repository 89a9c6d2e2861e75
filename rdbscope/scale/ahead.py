"""Read the next chunk while this one is measured: a scan in a thread of its own, one chunk ahead.

The scanner and the measures each keep a core busy for about as long on a dump of small keys; in
turn they take the sum of both, side by side closer to the longer one (numpy and pyarrow let the
scanner's thread run while they work).
"""

import queue
import threading

_END = object()


def read_ahead(items, depth=1):
    """The items of the iterator ``items``, taken from it in another thread up to ``depth`` ahead.

    An exception ``items`` raises is raised here, where its item would have come; when the consumer
    stops early (it breaks, or fails), the thread stops taking items and ``items`` is closed there.
    """
    handed = queue.Queue(depth)
    stop = threading.Event()

    def hand(item):
        while not stop.is_set():
            try:
                handed.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce():
        try:
            for item in items:
                if not hand((item, None)):
                    return
        except BaseException as exc:  # noqa: BLE001 (raised again in the consumer's thread)
            hand((None, exc))
            return
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()
        hand((_END, None))

    thread = threading.Thread(target=produce, name="rdbscope-read-ahead", daemon=True)
    thread.start()
    try:
        while True:
            item, error = handed.get()
            if error is not None:
                raise error
            if item is _END:
                return
            yield item
    finally:
        stop.set()
        thread.join()
