"""The memory model: which server layout and allocator a dump's estimates follow.

``est_memory_bytes`` estimates what ``MEMORY USAGE key SAMPLES 0`` reports on the
server that wrote the dump, once that server has loaded it. Three things decide
it: the server's data layout (chosen from the ``redis-ver`` AUX field and the
magic), its allocator (not recorded in a dump: Redis's own builds use their
bundled jemalloc, distribution packages often the system one), and
``list-compress-depth``. The arithmetic lives in ``_memory.py``, compiled with
the scanner; the constants below repeat its C constants (a test ties them).
"""

from dataclasses import dataclass

from ._builds import compiled_module, python_module

#: allocator names accepted by ``scan(..., allocator=...)`` and their codes.
ALLOCATORS = {
    "jemalloc": 0,  # Redis's and Valkey's own builds: bundled jemalloc, 8-byte size classes
    "jemalloc-16": 1,  # distribution packages on the system jemalloc (Debian, Ubuntu): 16-byte classes
    "libc": 2,  # builds with MALLOC=libc (glibc malloc)
}

#: layout codes and the servers each one models.
LAYOUTS = {
    0: ("redis-6", "Redis 4.0-6.2"),
    1: ("redis-7.0", "Redis 7.0"),
    2: ("redis-7.2", "Redis 7.2-7.4 and Valkey 7.2"),
    3: ("redis-8", "Redis 8.0-8.2"),
    4: ("valkey-8", "Valkey 8.0-9.0"),
    5: ("valkey-9", "Valkey 9.1 and newer"),
    6: ("redis-8.4", "Redis 8.4"),
    7: ("redis-8.6", "Redis 8.6-8.8"),
    8: ("redis-unstable", "Redis unstable builds newer than 8.8"),
}
L_REDIS6, L_REDIS70, L_REDIS72, L_REDIS8, L_VALKEY8, L_VALKEY9, L_REDIS84, L_REDIS86, L_REDIS_NEXT = range(9)

#: layouts checked key by key against MEMORY USAGE on real servers (sample_dumps/).
VERIFIED_LAYOUTS = frozenset([L_REDIS6, L_REDIS70, L_REDIS8, L_VALKEY8, L_REDIS84, L_REDIS86, L_REDIS_NEXT])

#: the newest Redis release each layout models; an unstable build newer than it gets the next layout.
NEWEST_REDIS = 808


def choose_layout(valkey_ver, redis_ver, unstable=False):
    """The layout for a writer given as Valkey or Redis major*100+minor (0: not that server).

    ``unstable``: the writer reported 255.255.255, and ``redis_ver`` is the newest
    release that writes the dump's RDB version; an unstable build is newer than it.
    Returns ``(layout, exact)``: ``exact`` is False when the writer is unknown
    (no ``redis-ver`` AUX field) or older than any model, so the nearest one is used.
    """
    if valkey_ver >= 901:
        return L_VALKEY9, True
    if valkey_ver >= 800:
        return L_VALKEY8, True
    if valkey_ver >= 700 or 702 <= redis_ver < 800:
        return L_REDIS72, True
    if unstable and redis_ver >= NEWEST_REDIS:
        return L_REDIS_NEXT, True
    if redis_ver >= 806:
        return L_REDIS86, True
    if redis_ver >= 804:
        return L_REDIS84, True
    if redis_ver >= 800:
        return L_REDIS8, True
    if redis_ver >= 700:
        return L_REDIS70, True
    return L_REDIS6, redis_ver >= 400


@dataclass(frozen=True)
class MemoryModelInfo:
    """Which model the estimates of a dump follow (``DumpInfo.memory_model``)."""

    layout: str
    servers: str
    allocator: str
    list_compress_depth: int
    exact_match: bool  # False: the writer's version is unknown or older than any model
    verified: bool  # the layout was checked against MEMORY USAGE on a real server

    def describe(self):
        note = "" if self.exact_match else " (nearest model: the writer's version is not known)"
        return f"{self.layout} layout ({self.servers}), {self.allocator} allocator{note}"


def model_factory(allocator="jemalloc", list_compress_depth=0, pure=False):
    """A callable the scanner calls at the first key, once the AUX fields are known.

    ``pure`` picks the model's Python build, for the Python build of the scanner.
    """
    code = ALLOCATORS[allocator]
    module = None if pure else compiled_module("_memory")
    model_class = (module or python_module("_memory")).MemoryModel

    def model_for(scanner):
        layout, _exact = choose_layout(scanner.writer_valkey_ver, scanner.writer_redis_ver, scanner.writer_unstable)
        return model_class(layout, code, list_compress_depth)

    return model_for


def new_model(layout, allocator="jemalloc", list_compress_depth=0):
    """A memory model of ``layout`` (a code of :data:`LAYOUTS`), for estimates of encodings a key does not have."""
    module = compiled_module("_memory") or python_module("_memory")
    return module.MemoryModel(layout, ALLOCATORS[allocator], list_compress_depth)


def model_info(scanner, allocator, list_compress_depth):
    """Describe the model the scanner used (None when it saw no key)."""
    if scanner.mm is None:
        return None
    layout, exact = choose_layout(scanner.writer_valkey_ver, scanner.writer_redis_ver, scanner.writer_unstable)
    exact = exact and any(key in (b"redis-ver", b"valkey-ver") for key, _value in scanner.aux)
    name, servers = LAYOUTS[layout]
    return MemoryModelInfo(name, servers, allocator, list_compress_depth, exact, layout in VERIFIED_LAYOUTS)


def db_overhead_bytes(layout_name, keys, expires):
    """What a database's key tables cost beyond the keys' own MEMORY USAGE.

    Redis: the main dict's bucket array, and the expires dict (entries and
    buckets; Redis 8 stores the objects themselves, so buckets only).
    Valkey 8+: the 64-byte buckets of both hashtables.
    """
    arithmetic = compiled_module("_memory") or python_module("_memory")
    tables = [n for n in (keys, expires) if n]
    if layout_name.startswith("valkey-"):
        return sum(64 * arithmetic.valkey_buckets(n) for n in tables)
    overhead = sum(8 * arithmetic.next_power(n) for n in tables)
    if not (layout_name.startswith("redis-8") or layout_name == "redis-unstable"):
        overhead += 24 * expires
    return overhead
