"""What a run may use: memory budgets (the default share of the RAM, whether a dump
fits in memory) and the cores.

Imported to build ``--help``: it imports nothing heavy.
"""

import os

from ..sizes import parse_size

#: Share of the available memory a run may use at most when no budget is given.
DEFAULT_SHARE = 0.5
#: The memory budget when none is given (one process, chunks of ~700,000 keys).
DEFAULT_BUDGET = 1024**3
#: Peak bytes of an in-memory analysis per byte of an uncompressed dump (small keys: ~170 bytes
#: of table and temporaries per key, ~27 bytes per key in the dump).
MEMORY_PER_DUMP_BYTE = 7
#: Peak bytes of an in-memory analysis per byte of its keys table (``MEMORY_PER_DUMP_BYTE`` again,
#: for a table of ~100 bytes per key read from ~31 dump bytes per key): what decides whether a dump
#: of unknown size, read as a stream, still fits.
MEMORY_PER_TABLE_BYTE = 2.2
#: Working memory per key of a chunk being measured (its table, the pattern inference's
#: temporaries, the sorts), and what a process holds besides (Python, pyarrow, the merged partial);
#: measured on DEBUG POPULATE-shaped dumps of 50M keys: a process peaks near BASE + PER_KEY * chunk.
BYTES_PER_CHUNK_KEY = 1000
PROCESS_BASE_BYTES = 350 * 1000**2
#: Keys per chunk below which one process is better than several sharing the budget.
MIN_SHARED_CHUNK_KEYS = 200_000
#: Chunks one process measures at once, each in a thread (numpy, pyarrow and the compiled kernels let
#: go of the GIL for most of the work; past two, the GIL and the scanner's thread leave little to gain).
MEASURE_THREADS = 2

def available_memory():
    """Bytes of memory available to new work: the machine's (``MemAvailable``), or less where this process's
    memory cgroup (a container's limit, a systemd slice) leaves less; None where unknown."""
    machine = _machine_available()
    room = cgroup_room()
    return machine if room is None else room if machine is None else min(machine, room)


def _machine_available():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


#: Where cgroups are mounted, and the names of a memory cgroup's limit and usage: version 2, then version 1.
CGROUP_MEMORY = (("/sys/fs/cgroup", "memory.max", "memory.current"),
                 ("/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes"))
#: Limits this large mean none (version 1 writes a page-rounded 2**63 - 1).
NO_LIMIT = 1 << 60


def cgroup_room():
    """Bytes the memory cgroups of this process still allow (the least, over its cgroup and those above it, of
    limit less usage), or None where no limit is set or none can be read."""
    try:
        with open("/proc/self/cgroup") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    rooms = []
    for line in lines:
        _number, controllers, path = line.split(":", 2)
        version = 0 if controllers == "" else 1 if "memory" in controllers.split(",") else None
        if version is None:
            continue
        mount, limit_name, usage_name = CGROUP_MEMORY[version]
        parts = [part for part in path.split("/") if part]
        for depth in range(len(parts), -1, -1):  # a container sees its own cgroup at the mount's root
            directory = os.path.join(mount, *parts[:depth])
            limit = _read_bytes(os.path.join(directory, limit_name))
            if limit is not None and limit < NO_LIMIT:
                rooms.append(max(0, limit - (_read_bytes(os.path.join(directory, usage_name)) or 0)))
    return min(rooms) if rooms else None


def _read_bytes(path):
    try:
        with open(path) as f:
            text = f.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def default_budget():
    """The budget when none is given: ``DEFAULT_BUDGET``, at most half the available memory. Larger
    chunks make a run no faster; a larger budget given lets ``--jobs`` processes share it."""
    available = available_memory()
    return min(DEFAULT_BUDGET, int(available * DEFAULT_SHARE)) if available else DEFAULT_BUDGET


def budget_of(size=None):
    """Bytes a run may use: ``size`` (bytes, or text such as ``2GB``) when given, else :func:`default_budget`.

    Raises:
        InputError: not a size.
    """
    return default_budget() if size is None else parse_size(size, "memory budget")


def in_memory_peak(paths):
    """Estimated peak bytes of analysing ``paths`` (as :func:`rdbscope.sources.input_paths` gives them)
    in memory; None when an input's size is not known before it is read: standard input, a live
    server, and a compressed dump, which may expand a thousandfold."""
    from ..sources import size_and_head

    total = 0
    for path in paths:
        known = size_and_head(path)
        if known is None or known[1] not in (b"REDIS", b"VALKE"):
            return None
        total += known[0] * MEMORY_PER_DUMP_BYTE
    return total


def chunk_keys_for(budget, processes=1, threads=1):
    """Keys per chunk that keep ``processes`` processes measuring ``threads`` chunks each, and the one
    that started them, within ``budget``."""
    per_process = (budget - PROCESS_BASE_BYTES * (1 if processes > 1 else 0)) // processes
    per_chunk = (per_process - PROCESS_BASE_BYTES) // threads
    return int(min(2_000_000, max(50_000, per_chunk // BYTES_PER_CHUNK_KEY)))


def measure_threads(processes=1):
    """Chunks a process measures at once: ``MEASURE_THREADS`` (at most one per core) when it is the only
    process; one each when several share the cores."""
    return min(MEASURE_THREADS, core_count()) if processes == 1 else 1


def sample_keys_for(budget):
    """Keys of the pattern-learning sample that fit an eighth of ``budget`` (at most a million)."""
    return int(min(1_000_000, max(10_000, budget // 8 // 256)))


def core_count():
    """The cores this process may run on: the default of --jobs."""
    if hasattr(os, "process_cpu_count"):  # Python 3.13
        return os.process_cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):  # a container or taskset may allow fewer cores than the machine has
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1
