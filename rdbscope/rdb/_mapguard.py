"""A mapped dump that shrinks under the scan: the fault becomes an error, not the end of the process.

The compiled scanner reads a plain dump file mapped in memory. When another
process truncates the file meanwhile (a backup job rewriting it in place, cp
over it, a full disk), the first read of a page past the new end raises SIGBUS,
whose default action kills the process without a word.

``guard(mapping)`` registers a mapping. The SIGBUS handler it installs maps
fresh pages over the rest of that mapping from the page that faulted (the first
of them filled with 0xFF, the EOF opcode, the others zeros), records where that
was, and returns: the read that faulted goes on over bytes that end the scan
soon. The scan asks ``cut(slot)`` after each batch and before it reports an
error, and reports the truncation instead of anything read past it. Faults
elsewhere go to the handler that was there before (faulthandler's, or the
default action).

Measured against reading the file into a buffer instead of mapping it (see
bench/README.md): the guard costs nothing per byte, a copy from the page cache
did. Only the compiled build maps dumps; as Python ``guard`` returns -1.
"""

try:
    import cython
except ImportError:  # running as Python without Cython installed
    from ..compiled import cython_shim as cython
if not cython.compiled:
    from ..compiled import cython_shim as cython
import sys

SLOTS = cython.declare(cython.int, 8)  # mappings guarded at once; a further scan streams its dump
installed = False
page_size = 4096


def on_sigbus(sig, info, context):
    """The SIGBUS handler (compiled build only: ``info`` is a siginfo_t pointer)."""
    if info.si_code > 0:  # raised by a fault, not sent by kill(): si_addr is the faulting address
        addr = cython.cast(cython.size_t, info.si_addr)
        i = 0
        while i < SLOTS:
            start = slot_start[i]
            end = slot_end[i]
            if start <= addr < end:
                page = addr & ~(page_size - 1)
                if mmap(cython.cast(cython.p_void, page), end - page, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED:
                    memset(cython.cast(cython.p_void, page), 0xFF, page_size)
                    if slot_cut[i] < 0 or cython.cast(cython.Py_ssize_t, page - start) < slot_cut[i]:
                        slot_cut[i] = page - start
                    return
            i += 1
    if previous.sa_flags & SA_SIGINFO:
        previous.sa_sigaction(sig, info, context)
    elif previous.sa_handler == SIG_DFL:  # what would have happened without us
        sigaction(SIGBUS, cython.address(previous), cython.NULL)
        raise_(SIGBUS)
    elif previous.sa_handler != SIG_IGN:
        previous.sa_handler(sig)


def install():
    """Install on_sigbus once for the process; False where that is refused."""
    global installed, page_size
    if installed:
        return True
    import mmap as mmap_module

    page_size = mmap_module.PAGESIZE
    memset(cython.address(action), 0, cython.sizeof(action))
    action.sa_sigaction = on_sigbus
    action.sa_flags = SA_SIGINFO | SA_ONSTACK
    sigemptyset(cython.address(action.sa_mask))
    if sigaction(SIGBUS, cython.address(action), cython.address(previous)) != 0:
        return False
    installed = True
    return True


def guard(mapping):
    """Guard a read-only mapping against truncation of its file; return its slot.

    Returns -1 where it cannot be guarded (the Python build, a platform
    without SIGBUS, all slots taken): the dump must then not be read mapped.
    """
    if not cython.compiled or not sys.platform.startswith("linux") or len(mapping) == 0:
        return -1
    if not install():
        return -1
    view = mapping
    start = cython.cast(cython.size_t, cython.address(view[0]))
    end = (start + len(mapping) + page_size - 1) & ~(page_size - 1)
    i = 0
    while i < SLOTS:
        if slot_end[i] == 0:
            slot_cut[i] = -1
            slot_start[i] = start
            slot_end[i] = end  # last: a slot whose end is 0 is free, whatever its start says
            return i
        i += 1
    return -1


def cut(slot):
    """Where the guarded mapping's file ended when the scan reached it, or -1 while it has not."""
    if slot < 0:
        return -1
    return slot_cut[slot]


def release(slot):
    """Stop guarding; call before the mapping closes."""
    if slot >= 0:
        slot_end[slot] = 0
        slot_start[slot] = 0
