"""Let the C allocator keep the memory a chunk freed for the next chunk.

Each chunk allocates arrays of a few megabytes and frees them. glibc serves allocations of that size
from fresh mappings and returns them to the kernel when freed, so every chunk faults the same memory
in again, page by page: on a virtual machine that is about a tenth of a run's CPU. Raised thresholds
keep such arrays in the heap, where the next chunk reuses them. One arena for every thread: the scan
allocates a chunk's columns in one thread and a measuring thread frees them, and the small heaps of
per-thread arenas are trimmed and unmapped as chunks come and go, so their pages were faulted in again
(bench/README.md, seventh round). Only the command does this, and the worker processes it starts: a
notebook keeps its process's allocator as it is.
"""

import ctypes
import os

#: mallopt parameters (malloc.h).
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_MAX = -1, -3, -8
#: Allocations up to this size come from the heap (glibc's largest allowed threshold on 64-bit).
MMAP_THRESHOLD_BYTES = 32 << 20
#: Free memory at the heap's top returned to the kernel only past this.
TRIM_THRESHOLD_BYTES = 256 << 20


_kept = False


def keep_freed_memory():
    """Raise glibc's thresholds (a no-op under another C library)."""
    global _kept
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return
        mallopt = ctypes.CDLL(None).mallopt
        mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES)
        mallopt(M_ARENA_MAX, 1)
        _kept = True
    except (OSError, ValueError, AttributeError):
        return


def keeps_freed_memory():
    """Whether this process raised the thresholds: the worker processes it starts then do too."""
    return _kept
