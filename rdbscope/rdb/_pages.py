"""Memory pages of a compiled scan: buffers mapped lazily, faulted in ahead, dropped behind.

On the VM this was measured on, the first write to fresh memory costs more
than the scan itself (bench/README.md), so the compiled scanner hands page
faults to a helper thread and keeps a mapped dump's pages out of its resident
memory once read. None of this holds per-key state; the Python build uses
only ``lazy_zeros``.
"""

try:
    import cython
except ImportError:  # running as Python without Cython installed
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython

import numpy as np

RELEASE_EVERY = cython.declare(cython.Py_ssize_t, 64 << 20)


def release_pages(mapping, start, length):
    """Drop pages of a read-only file mapping from this process (the page cache keeps them)."""
    import mmap

    try:
        mapping.madvise(mmap.MADV_DONTNEED, start, length)
    except (AttributeError, ValueError, OSError):  # no madvise here: the pages just stay mapped
        pass


def background_pool():
    """A helper thread of a compiled scan."""
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="rdbscope-scan")


MADV_POPULATE_WRITE = cython.declare(cython.int, 23)  # Linux 5.14 and later
PAGE = cython.declare(cython.Py_ssize_t, 4096)


def warm_pages(regions):
    """Have the kernel map and clear the pages of each ``(uint8 array, start, stop)`` byte region.

    Runs on the helper thread, so that page faults on fresh column buffers cost
    the scan loop nothing. MADV_POPULATE_WRITE faults pages in as a write would,
    without writing, so it is safe while the scanner writes the same pages. A
    kernel without it refuses, and the scan loop takes the faults itself.
    """
    for region in regions:
        view = region[0]
        start = region[1]
        stop = region[2]
        if stop > len(region[0]):
            stop = len(region[0])
        if start >= stop:
            continue
        first = cython.cast(cython.size_t, cython.address(view[start]))
        last = first + cython.cast(cython.size_t, stop - start)
        first = (first + PAGE - 1) & ~cython.cast(cython.size_t, PAGE - 1)
        last = last & ~cython.cast(cython.size_t, PAGE - 1)
        refused = 0
        if last > first:
            with cython.nogil:
                refused = madvise(cython.cast(cython.p_void, first), last - first, MADV_POPULATE_WRITE)
        if refused:
            return False
    return True


def lazy_zeros(nbytes):
    """A uint8 array of ``nbytes`` whose pages exist only once written (an anonymous mapping).

    Big batch buffers are sized for the rows a database announces, and only
    what is written costs memory.
    """
    import mmap

    if not hasattr(mmap, "MAP_ANONYMOUS"):  # Windows: no anonymous private mappings
        return np.zeros(nbytes, np.uint8)
    flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS  # not Python's default MAP_SHARED: that is shmem
    return np.frombuffer(mmap.mmap(-1, max(nbytes, 1), flags=flags), np.uint8)[:nbytes]


def empty_bytes(nbytes):
    return np.empty(nbytes, np.uint8)


def zero_bytes(nbytes):
    return np.zeros(nbytes, np.uint8)


def warmed_columns(columns):
    """``columns``, once their pages are faulted in (run on the helper thread)."""
    warm_pages([(c, 0, len(c)) for c in columns])
    return columns
