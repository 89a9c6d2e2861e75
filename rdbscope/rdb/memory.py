"""The memory model: which server layout and allocator a dump's estimates follow.

``est_memory_bytes`` estimates what ``MEMORY USAGE key SAMPLES 0`` reports on the
server that wrote the dump, once that server has loaded it. Three things decide
it: the server's data layout (chosen from the ``redis-ver`` AUX field and the
magic), its allocator (not recorded in a dump: Redis's own builds use their
bundled jemalloc, distribution packages often the system one), and
``list-compress-depth``. The arithmetic lives in ``_memory.py``, compiled with
the scanner; the constants below repeat its C constants (a test ties them).
"""

import re
from dataclasses import dataclass

from ..compiled import compiled_module, python_module
from .format import writer_version

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
    4: ("valkey-8", "Valkey 8.1"),
    5: ("valkey-9", "Valkey 9.1 and newer"),
    6: ("redis-8.4", "Redis 8.4"),
    7: ("redis-8.6", "Redis 8.6-8.8"),
    8: ("redis-unstable", "Redis unstable builds newer than 8.8"),
    9: ("valkey-9.0", "Valkey 9.0"),
    10: ("valkey-8.0", "Valkey 8.0"),
}
(L_REDIS6, L_REDIS70, L_REDIS72, L_REDIS8, L_VALKEY8, L_VALKEY9, L_REDIS84, L_REDIS86, L_REDIS_NEXT,
 L_VALKEY90, L_VALKEY80) = range(11)

#: layouts checked key by key against MEMORY USAGE on real servers (sample_dumps/).
VERIFIED_LAYOUTS = frozenset([L_REDIS6, L_REDIS70, L_REDIS8, L_VALKEY80, L_VALKEY8, L_VALKEY90, L_VALKEY9, L_REDIS84,
                              L_REDIS86, L_REDIS_NEXT])

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
    if valkey_ver >= 900:
        return L_VALKEY90, True
    if valkey_ver >= 801:
        return L_VALKEY8, True
    if valkey_ver >= 800:
        return L_VALKEY80, True
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


#: why each allocator may be the one a dump's server used, for ``info`` and reports.
ALLOCATOR_NOTES = {
    "jemalloc": "Redis's and Valkey's own builds and images",
    "jemalloc-16": "Debian's and Ubuntu's packages",
    "libc": "builds with MALLOC=libc",
}
#: layouts by name, for the ``layout=`` option.
LAYOUT_CODES = {name: code for code, (name, _servers) in LAYOUTS.items()}


@dataclass(frozen=True)
class MemoryModelInfo:
    """Which model the estimates of a dump follow (``DumpInfo.memory_model``)."""

    layout: str
    servers: str
    allocator: str
    list_compress_depth: int
    exact_match: bool  # False: the writer's version is unknown or older than any model
    verified: bool  # the layout was checked against MEMORY USAGE on a real server
    layout_reason: str = ""  # why this layout: the AUX field it follows, or "given"
    allocator_given: bool = False  # the caller named the allocator (else the default was assumed)
    # The writer is an unstable build (255.255.255) placed by the RDB version it writes:
    # a guess, which naming the release it corresponds to (server_version) replaces.
    layout_guessed: bool = False

    def describe(self):
        note = "" if self.exact_match else " (nearest model: the writer's version is not known)"
        if self.layout_guessed:
            note += (" (a guess: unstable builds of one RDB version span several layouts; name the release "
                     "this build corresponds to with --server-version X.Y, or server_version in the config)")
        why = f", {self.layout_reason}" if self.layout_reason else ""
        if self.allocator_given:
            allocator = f"{self.allocator} allocator (given)"
        else:
            # A dump does not record its server's allocator (its used-mem is dominated by
            # memory outside the keys), so the default is an assumption: say so.
            # The option as one word, so that no line wrap splits the advice.
            allocator = (f"{self.allocator} allocator assumed, as in {ALLOCATOR_NOTES[self.allocator]} "
                         f"(--allocator=jemalloc-16 for {ALLOCATOR_NOTES['jemalloc-16']}, --allocator=libc for "
                         f"{ALLOCATOR_NOTES['libc']})")
        return f"{self.layout} layout ({self.servers}{why}){note}, {allocator}"


def _writer_layout(scanner, layout):
    """The layout code and whether it matches the writer exactly."""
    if layout is not None:
        return LAYOUT_CODES[layout], True
    return choose_layout(scanner.writer_valkey_ver, scanner.writer_redis_ver, scanner.writer_unstable)


def parse_server_version(text):
    """``"8.4"`` -> 804: the release an unstable build corresponds to, as major*100+minor."""
    match = re.fullmatch(r"\s*(\d{1,2})\.(\d{1,2})\s*", str(text))
    if match is None:
        raise ValueError(f"server version {text!r}: expected the release as X.Y, e.g. 8.4 or 7.4")
    return int(match.group(1)) * 100 + int(match.group(2))


def check_layout(layout):
    """Refuse a ``layout=`` that names no layout."""
    if layout is not None and layout not in LAYOUT_CODES:
        raise ValueError(f"unknown memory layout {layout!r}; expected one of {', '.join(LAYOUT_CODES)}")


def model_factory(allocator="jemalloc", list_compress_depth=0, pure=False, layout=None):
    """A callable the scanner calls at the first key, once the AUX fields are known.

    ``pure`` picks the model's Python build, for the Python build of the scanner;
    ``layout`` (a name of :data:`LAYOUTS`) overrides the one the writer implies.
    """
    code = ALLOCATORS[allocator]
    check_layout(layout)
    module = None if pure else compiled_module("rdb._memory")
    model_class = (module or python_module("rdb._memory")).MemoryModel

    def model_for(scanner):
        return model_class(_writer_layout(scanner, layout)[0], code, list_compress_depth)

    return model_for


def new_model(layout, allocator="jemalloc", list_compress_depth=0):
    """A memory model of ``layout`` (a code of :data:`LAYOUTS`), for estimates of encodings a key does not have."""
    module = compiled_module("rdb._memory") or python_module("rdb._memory")
    return module.MemoryModel(layout, ALLOCATORS[allocator], list_compress_depth)


def layout_reason(scanner, layout):
    """Why the estimates follow the layout they do, in a few words."""
    if layout is not None:
        return "given"
    for key, value in scanner.aux:
        if key in (b"redis-ver", b"valkey-ver"):
            version = value.decode("ascii", "replace")
            if scanner.writer_unstable:
                return (f"{key.decode()} {version}: an unstable build writing RDB {scanner.version}, "
                        "modelled as the newest layout that writes it")
            if scanner.writer_named:
                named = f"{scanner.named_version // 100}.{scanner.named_version % 100}"
                server = "Valkey" if key == b"valkey-ver" else "Redis"
                return f"{key.decode()} {version}: an unstable build, named {server} {named} by server_version"
            if writer_version(value) is None:
                return (f"{key.decode()} {version} is not a version: modelled as the oldest server writing "
                        f"RDB {scanner.version}")
            return f"from {key.decode()} {version}"
    return f"no redis-ver AUX field: the oldest server writing RDB {scanner.version}"


def model_info(scanner, allocator, list_compress_depth, layout=None, allocator_given=False):
    """Describe the model the scanner used (None when it saw no key)."""
    if scanner.mm is None:
        return None
    code, exact = _writer_layout(scanner, layout)
    exact = exact and (layout is not None or any(key in (b"redis-ver", b"valkey-ver") for key, _value in scanner.aux))
    name, servers = LAYOUTS[code]
    return MemoryModelInfo(name, servers, allocator, list_compress_depth, exact, code in VERIFIED_LAYOUTS,
                           layout_reason(scanner, layout), allocator_given,
                           layout is None and scanner.writer_unstable)


def db_overhead_bytes(layout_name, keys, expires):
    """What a database's key tables cost beyond the keys' own MEMORY USAGE.

    Redis: the main dict's bucket array, and the expires dict (entries and
    buckets; Redis 8 stores the objects themselves, so buckets only).
    Valkey 8.1+: the 64-byte buckets of both hashtables (Valkey 8.0 has Redis 7's dicts).
    """
    arithmetic = compiled_module("rdb._memory") or python_module("rdb._memory")
    tables = [n for n in (keys, expires) if n]
    if layout_name.startswith("valkey-") and layout_name != "valkey-8.0":
        return sum(64 * arithmetic.valkey_buckets(n) for n in tables)
    overhead = sum(8 * arithmetic.next_power(n) for n in tables)
    if not (layout_name.startswith("redis-8") or layout_name == "redis-unstable"):
        overhead += 24 * expires
    return overhead
