#!/usr/bin/env python3
"""Build the RDB dumps used by ``bench_scan.py``.

A throw-away ``redis-server`` is started on 127.0.0.1 at a free port, with a
temporary working directory, no persistence of its own (``--save ''``,
``--appendonly no``) and ``DEBUG`` enabled for local connections.  For each
dump the server is emptied, filled, and ``SAVE``d; the resulting ``dump.rdb``
is moved to the output directory under the dump's name.  The server is always
shut down, even on error.

Dumps:

``populate-10m.rdb``
    ``DEBUG POPULATE 10000000``: ten million small strings (``key:N`` ->
    ``value:N``).  The raw-throughput benchmark.
``mixed-1m.rdb``
    About one million keys of every type with realistic names and sizes,
    about a third with a TTL, a handful of big collections (10k-100k
    members) and 200 streams, three of which hold 50k entries with two
    consumer groups and pending entries.  Generated from a fixed seed, so
    the *content* is the same on every build (the byte layout is not: Redis
    randomises its hash seeds, and TTLs and pending-entry delivery times are
    relative to the build time).
``populate-1m.rdb``
    ``DEBUG POPULATE 1000000``: the first million keys of the 10M dump, a
    sample on which slow contenders can still be timed.
``populate-10m-session.rdb``, ``populate-50m.rdb``
    ``DEBUG POPULATE 10000000 user:session`` and ``DEBUG POPULATE 50000000
    user:session``: small strings ``user:session:N`` -> ``value:N``, the
    same shape at two sizes, for ``bench_scale.py``.  The 50M dump is not
    built unless named with ``--only``: the server needs about 6 GB for it.

Usage::

    python bench/make_bench_dumps.py                     # all dumps, skip existing
    python bench/make_bench_dumps.py --only mixed-1m --force
    python bench/make_bench_dumps.py --out /some/dir

Needs the ``redis`` Python client and a ``redis-server`` binary (7.0 or later).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import redis

DEFAULT_OUT = "/tmp/rdbscope-bench"
SEED = 20240611
PIPELINE_BATCH = 2000  # commands per pipeline round trip
BIG_CHUNK = 1000  # members per command when filling big collections

# A fixed stream-ID epoch keeps stream IDs deterministic (2023-11-14T22:13:20Z).
STREAM_EPOCH_MS = 1_700_000_000_000


# --------------------------------------------------------------------------
# Server management
# --------------------------------------------------------------------------


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisServer:
    """A temporary redis-server process, used as a context manager."""

    def __init__(self, binary: str):
        self.binary = binary
        self.port = free_port()
        self.workdir = Path(tempfile.mkdtemp(prefix="rdbscope-bench-redis-"))
        self.log_path = self.workdir / "redis.log"
        self.proc: subprocess.Popen | None = None
        self.client: redis.Redis | None = None

    @property
    def dump_path(self) -> Path:
        return self.workdir / "dump.rdb"

    def __enter__(self) -> RedisServer:
        argv = [
            self.binary,
            "--bind", "127.0.0.1",
            "--port", str(self.port),
            "--dir", str(self.workdir),
            "--dbfilename", "dump.rdb",
            "--save", "",
            "--appendonly", "no",
            "--enable-debug-command", "local",
            "--logfile", str(self.log_path),
            "--daemonize", "no",
        ]
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
        try:
            self.client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=None)
            self._wait_ready()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited early:\n{self.log_tail()}")
            try:
                if self.client.ping():
                    return
            except redis.ConnectionError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"redis-server not ready after {timeout}s:\n{self.log_tail()}")
            time.sleep(0.05)

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def __exit__(self, *exc) -> None:
        try:
            if self.proc is not None and self.proc.poll() is None:
                try:
                    self.client.shutdown(nosave=True)
                except redis.RedisError:
                    pass  # the connection drops while the server exits
                try:
                    self.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
        finally:
            if self.client is not None:
                self.client.close()
            shutil.rmtree(self.workdir, ignore_errors=True)

    def save_to(self, target: Path) -> None:
        """SAVE the dataset and move the dump to ``target`` atomically."""
        self.client.save()
        partial = target.with_name(target.name + ".partial")
        shutil.move(str(self.dump_path), partial)
        os.replace(partial, target)


# --------------------------------------------------------------------------
# Pipelined writes
# --------------------------------------------------------------------------


class Writer:
    """Sends commands through a non-transactional pipeline in batches."""

    def __init__(self, client: redis.Redis, batch: int = PIPELINE_BATCH):
        self.pipe = client.pipeline(transaction=False)
        self.batch = batch
        self.pending = 0
        self.keys = 0
        self.with_ttl = 0

    def command(self, *args) -> None:
        self.pipe.execute_command(*args)
        self.pending += 1
        if self.pending >= self.batch:
            self.flush()

    def key(self, rnd: random.Random, ttl_prob: float, ttl_range_s: tuple[int, int],
            *args) -> None:
        """Send a command creating one new key, with a TTL with probability ttl_prob."""
        self.command(*args)
        self.keys += 1
        if ttl_prob and rnd.random() < ttl_prob:
            ttl_ms = rnd.randint(ttl_range_s[0] * 1000, ttl_range_s[1] * 1000)
            self.command("PEXPIRE", args[1], ttl_ms)
            self.with_ttl += 1

    def flush(self) -> None:
        if self.pending:
            self.pipe.execute()
            self.pending = 0


# --------------------------------------------------------------------------
# Realistic-looking values (all drawn from one seeded Random)
# --------------------------------------------------------------------------

FIRST_NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan",
               "judy", "mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent",
               "victor", "walter", "yusuf", "zoe", "mei", "arjun", "fatima", "lukas"]
LAST_NAMES = ["smith", "garcia", "kim", "nguyen", "müller", "rossi", "dubois", "tanaka",
              "okafor", "silva", "johansson", "kowalski", "hernández", "ivanova", "chen"]
DOMAINS = ["example.com", "mail.example.org", "corp.example.net", "example.io"]
COUNTRIES = ["US", "DE", "FR", "JP", "BR", "IN", "NG", "GB", "CA", "KR", "IT", "ES"]
PLANS = ["free", "free", "free", "pro", "pro", "team", "enterprise"]
WORDS = ("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor "
         "incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud "
         "exercitation ullamco laboris nisi aliquip ex ea commodo consequat").split()
ENDPOINTS = ["users", "products", "orders", "search", "recommendations", "inventory",
             "prices", "reviews", "shipping", "categories"]
SERVICES = ["api", "worker", "billing", "auth", "search", "mailer"]
EVENTS = ["page_view", "click", "add_to_cart", "checkout", "login", "logout", "search",
          "signup", "purchase", "refund"]
GAMES = ["chess", "tetris", "snake", "poker", "sudoku", "go"]


def uid(rnd: random.Random) -> str:
    return str(uuid.UUID(int=rnd.getrandbits(128), version=4))


def hexid(rnd: random.Random, nbytes: int = 16) -> str:
    return rnd.getrandbits(nbytes * 8).to_bytes(nbytes, "big").hex()


def words(rnd: random.Random, n: int) -> str:
    return " ".join(rnd.choices(WORDS, k=n))


def ip(rnd: random.Random) -> str:
    return f"{rnd.randint(1, 223)}.{rnd.randint(0, 255)}.{rnd.randint(0, 255)}.{rnd.randint(1, 254)}"


def epoch_s(rnd: random.Random) -> int:
    """A timestamp in 2023-2024."""
    return rnd.randint(1_672_531_200, 1_735_689_599)


def session_json(rnd: random.Random) -> str:
    data = {
        "user_id": rnd.randint(1, 5_000_000),
        "created": epoch_s(rnd),
        "ip": ip(rnd),
        "ua": rnd.choice(["Mozilla/5.0 (X11; Linux x86_64)", "Mozilla/5.0 (Macintosh)",
                          "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0)", "okhttp/4.12.0"]),
        "csrf": hexid(rnd, 16),
        "roles": rnd.sample(["user", "admin", "editor", "billing", "support"], rnd.randint(1, 3)),
    }
    if rnd.random() < 0.5:
        data["cart"] = [rnd.randint(1, 99999) for _ in range(rnd.randint(1, 8))]
    return json.dumps(data, separators=(",", ":"))


def html_page(rnd: random.Random) -> str:
    """A few KB of repetitive markup: compresses well (LZF-compressed in the dump)."""
    items = "".join(f'<li class="item"><a href="/p/{rnd.randint(1, 99999)}">{words(rnd, 4)}</a></li>'
                    for _ in range(rnd.randint(5, 60)))
    return (f"<!doctype html><html><head><title>{words(rnd, 3)}</title></head>"
            f"<body><ul>{items}</ul></body></html>")


def api_json(rnd: random.Random) -> str:
    rows = [{"id": rnd.randint(1, 10**6), "name": words(rnd, 2), "price": round(rnd.uniform(1, 500), 2)}
            for _ in range(rnd.randint(0, 12))]
    return json.dumps({"ok": True, "count": len(rows), "data": rows}, separators=(",", ":"))


def profile_fields(rnd: random.Random, user_id: int) -> dict:
    first, last = rnd.choice(FIRST_NAMES), rnd.choice(LAST_NAMES)
    fields = {
        "id": user_id,
        "first_name": first.capitalize(),
        "last_name": last.capitalize(),
        "email": f"{first}.{last}{rnd.randint(1, 999)}@{rnd.choice(DOMAINS)}",
        "country": rnd.choice(COUNTRIES),
        "plan": rnd.choice(PLANS),
        "created_at": epoch_s(rnd),
        "last_login": epoch_s(rnd),
    }
    for name in ("avatar_url", "bio", "timezone", "locale", "referrer", "score"):
        if rnd.random() < 0.5:
            fields[name] = {
                "avatar_url": f"https://cdn.example.com/a/{hexid(rnd, 8)}.png",
                "bio": words(rnd, rnd.randint(3, 30)),  # sometimes > 64 bytes: hashtable encoding
                "timezone": rnd.choice(["UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo"]),
                "locale": rnd.choice(["en-US", "de-DE", "fr-FR", "ja-JP", "pt-BR"]),
                "referrer": rnd.choice(["google", "newsletter", "friend", "ads", "direct"]),
                "score": rnd.randint(0, 100000),
            }[name]
    return fields


# --------------------------------------------------------------------------
# The mixed dump
# --------------------------------------------------------------------------

HOUR, DAY = 3600, 86400


def fill_small_keys(w: Writer, rnd: random.Random) -> None:
    """About a million small keys of every type, ~1/3 with TTLs."""
    # --- strings (550k) ---
    for _ in range(120_000):
        w.key(rnd, 1.0, (HOUR, DAY), "SET", f"session:{uid(rnd)}", session_json(rnd))
    for _ in range(40_000):
        w.key(rnd, 1.0, (HOUR, 7 * DAY), "SET", f"cache:page:{hexid(rnd, 20)}", html_page(rnd))
    for _ in range(60_000):
        w.key(rnd, 0.7, (HOUR, DAY), "SET",
              f"cache:api:v2:{rnd.choice(ENDPOINTS)}:{hexid(rnd, 8)}", api_json(rnd))
    for i in range(80_000):
        day = 20240101 + rnd.randint(0, 27)
        w.key(rnd, 0.1, (7 * DAY, 90 * DAY), "SET", f"counter:page_views:{day}:{i}",
              rnd.randint(0, 2_000_000))
    for i in range(75_000):
        user_id = 1_000_000 + i * 7
        w.key(rnd, 0.0, (0, 0), "SET", f"user:{user_id}:name",
              f"{rnd.choice(FIRST_NAMES).capitalize()} {rnd.choice(LAST_NAMES).capitalize()}")
        w.key(rnd, 0.0, (0, 0), "SET", f"user:{user_id}:email",
              f"{rnd.choice(FIRST_NAMES)}{i}@{rnd.choice(DOMAINS)}")
    for i in range(50_000):
        w.key(rnd, 1.0, (HOUR, 2 * HOUR), "SET", f"ratelimit:{ip(rnd)}:{28_000_000 + i}",
              rnd.randint(1, 120))
    for i in range(10_000):
        w.key(rnd, 1.0, (HOUR, 3 * HOUR), "SET", f"lock:job:{i}", uid(rnd))
    for i in range(5_000):
        w.key(rnd, 0.0, (0, 0), "SET", f"config:flag:{rnd.choice(WORDS)}_{i}",
              rnd.choice(["on", "off", '{"rollout":0.25}', "1", "0"]))
    for _ in range(20_000):
        w.key(rnd, 1.0, (HOUR, DAY), "SET", f"token:reset:{hexid(rnd, 24)}", rnd.randint(1, 5_000_000))
    for i in range(15_000):
        blob = rnd.getrandbits(8 * 512).to_bytes(512, "big")[: rnd.randint(64, 512)]
        w.key(rnd, 0.3, (DAY, 30 * DAY), "SET", f"thumb:{i}:64x64", blob)  # incompressible bytes

    # --- hashes (200k) ---
    for i in range(120_000):
        user_id = 1_000_000 + i * 7
        w.key(rnd, 0.0, (0, 0), "HSET", f"user:{user_id}:profile",
              *_flatten(profile_fields(rnd, user_id)))
    for i in range(40_000):
        fields = {"sku": f"SKU-{i:07d}", "name": words(rnd, 3), "price": round(rnd.uniform(1, 900), 2),
                  "stock": rnd.randint(0, 5000), "category": rnd.choice(ENDPOINTS),
                  "rating": round(rnd.uniform(1, 5), 1)}
        if rnd.random() < 0.3:
            fields["description"] = words(rnd, rnd.randint(10, 60))
        w.key(rnd, 0.0, (0, 0), "HSET", f"product:SKU-{i:07d}", *_flatten(fields))
    for _ in range(30_000):
        items = {f"item:{rnd.randint(1, 99999)}": rnd.randint(1, 5) for _ in range(rnd.randint(1, 12))}
        w.key(rnd, 1.0, (DAY, 14 * DAY), "HSET", f"cart:{uid(rnd)}", *_flatten(items))
    for _ in range(10_000):
        settings = {"theme": rnd.choice(["dark", "light"]), "push": rnd.randint(0, 1),
                    "lang": rnd.choice(["en", "de", "ja"]), "volume": rnd.randint(0, 100)}
        w.key(rnd, 0.0, (0, 0), "HSET", f"device:{hexid(rnd, 8)}:settings", *_flatten(settings))

    # --- sets (80k) ---
    for i in range(40_000):
        n = rnd.choice([1, 3, 10, 30, 100, 300, 800])  # >512 integers leaves the intset encoding
        members = rnd.sample(range(1, 5_000_000), n)
        w.key(rnd, 0.0, (0, 0), "SADD", f"user:{1_000_000 + i * 7}:followers", *members)
    for i in range(30_000):
        tags = rnd.sample(WORDS, rnd.randint(1, 10))
        w.key(rnd, 0.0, (0, 0), "SADD", f"article:{i}:tags", *tags)
    for _ in range(10_000):
        members = [f"user:{rnd.randint(1, 5_000_000)}" for _ in range(rnd.randint(2, 40))]
        w.key(rnd, 0.5, (HOUR, DAY), "SADD", f"room:{hexid(rnd, 6)}:members", *members)

    # --- sorted sets (80k) ---
    for i in range(20_000):
        n = rnd.choice([10, 50, 100, 200, 500])  # >128 members: skiplist encoding
        pairs = []
        for _ in range(n):
            pairs += [rnd.randint(0, 1_000_000), f"player:{rnd.randint(1, 5_000_000)}"]
        w.key(rnd, 0.0, (0, 0), "ZADD",
              f"leaderboard:{rnd.choice(GAMES)}:{i}:season{rnd.randint(1, 12)}", *pairs)
    for i in range(50_000):
        pairs = []
        for _ in range(rnd.randint(5, 100)):
            pairs += [epoch_s(rnd), f"post:{rnd.randint(1, 50_000_000)}"]
        w.key(rnd, 0.2, (DAY, 30 * DAY), "ZADD", f"user:{1_000_000 + i * 7}:timeline", *pairs)
    for i in range(10_000):
        pairs = []
        for _ in range(rnd.randint(1, 30)):
            pairs += [epoch_s(rnd) + rnd.random(), json.dumps({"job": uid(rnd), "try": rnd.randint(0, 3)})]
        w.key(rnd, 0.0, (0, 0), "ZADD", f"delayed:queue:{i}", *pairs)

    # --- lists (90k) ---
    for i in range(60_000):
        items = [rnd.randint(1, 99999) for _ in range(rnd.randint(1, 50))]
        w.key(rnd, 0.3, (DAY, 30 * DAY), "RPUSH", f"user:{1_000_000 + i * 7}:recent_views", *items)
    for i in range(20_000):
        jobs = [json.dumps({"to": f"u{rnd.randint(1, 10**6)}@{rnd.choice(DOMAINS)}",
                            "template": rnd.choice(["welcome", "reset", "digest"])})
                for _ in range(rnd.randint(1, 30))]
        w.key(rnd, 0.0, (0, 0), "RPUSH", f"queue:email:{i}", *jobs)
    for i in range(10_000):
        lines = [f"{epoch_s(rnd)} {rnd.choice(['INFO', 'WARN', 'ERROR'])} {words(rnd, rnd.randint(3, 12))}"
                 for _ in range(rnd.randint(10, 200))]
        w.key(rnd, 0.5, (DAY, 7 * DAY), "RPUSH", f"log:{rnd.choice(SERVICES)}:{20240101 + i % 28}:{i}",
              *lines)


def fill_big_collections(w: Writer, rnd: random.Random) -> None:
    """Hashes, sets and sorted sets of 10k-100k members, and lists of 100k."""

    def chunked(total: int, make: Callable[[int], list]) -> Iterator[list]:
        for start in range(0, total, BIG_CHUNK):
            args: list = []
            for i in range(start, min(total, start + BIG_CHUNK)):
                args += make(i)
            yield args

    for name, n in [("catalog:prices", 100_000), ("catalog:stock", 50_000), ("geo:city_names", 10_000)]:
        for args in chunked(n, lambda i: [f"item:{i}", f"{rnd.uniform(0, 1000):.2f}"]):
            w.command("HSET", name, *args)
        w.keys += 1
    for name, n in [("visitors:unique:20240115", 100_000), ("blocklist:ip", 50_000),
                    ("users:active_ids", 10_000)]:
        if name == "users:active_ids":
            def make(i):
                return [1_000_000 + i * 3]  # integers, too many for an intset
        else:
            def make(i):
                return [f"{ip(rnd)}#{i}"]
        for args in chunked(n, make):
            w.command("SADD", name, *args)
        w.keys += 1
    for name, n in [("leaderboard:global", 100_000), ("trending:posts", 50_000),
                    ("ranking:sellers", 10_000)]:
        for args in chunked(n, lambda i: [rnd.randint(0, 10**7), f"member:{i}"]):
            w.command("ZADD", name, *args)
        w.keys += 1
    for name in ["events:firehose", "queue:jobs:default"]:
        for args in chunked(100_000, lambda i: [json.dumps({"seq": i, "event": rnd.choice(EVENTS)})]):
            w.command("RPUSH", name, *args)
        w.keys += 1


def fill_streams(w: Writer, rnd: random.Random, client: redis.Redis) -> None:
    """200 streams; three have 50k entries, two consumer groups and pending entries."""
    w.flush()

    def entries(key: str, n: int) -> None:
        ms = STREAM_EPOCH_MS + rnd.randint(0, 10**9)
        for seq in range(n):
            ms += rnd.choice([0, 1, 1, 5, 20, 100])
            w.command("XADD", key, f"{ms}-{seq}", "event", rnd.choice(EVENTS),
                      "user", rnd.randint(1, 5_000_000), "ts", ms)

    # 197 ordinary streams, some with one consumer group, a few trimmed.
    for i in range(197):
        key = f"stream:events:{rnd.choice(SERVICES)}:{i}"
        entries(key, rnd.randint(1, 500))
        w.keys += 1
        if i % 5 == 0:
            w.command("XTRIM", key, "MAXLEN", rnd.randint(0, 50))  # some end up empty
        if i % 3 == 0:
            w.command("XGROUP", "CREATE", key, "workers", "0")
    w.flush()

    # Three big streams: 50k entries, two groups, several consumers, pending entries.
    for i, name in enumerate(["stream:orders", "stream:clickstream", "stream:audit"]):
        entries(name, 50_000)
        w.keys += 1
        w.flush()
        for group in ("billing", "analytics"):
            client.xgroup_create(name, group, id="0")
            for consumer in ("c1", "c2", "c3"):
                # Read (and so leave pending) a deterministic slice of the stream.
                got = client.xreadgroup(group, f"{group}-{consumer}", {name: ">"},
                                        count=2_000 + 1_000 * i)
                ids = [entry_id for _, batch in got for entry_id, _ in batch]
                # Acknowledge half, the rest stays in the PEL.
                if ids:
                    client.xack(name, group, *ids[: len(ids) // 2])


def _flatten(mapping: dict) -> list:
    out: list = []
    for k, v in mapping.items():
        out += [k, v]
    return out


# --------------------------------------------------------------------------
# Builders
# --------------------------------------------------------------------------


def build_populate(server: RedisServer, n: int, prefix: str = "key") -> None:
    server.client.execute_command("DEBUG", "POPULATE", n, prefix)


def build_mixed(server: RedisServer) -> None:
    rnd = random.Random(SEED)
    w = Writer(server.client)
    fill_small_keys(w, rnd)
    fill_big_collections(w, rnd)
    fill_streams(w, rnd, server.client)
    w.flush()
    print(f"    sent {w.keys:,} keys, {w.with_ttl:,} with a TTL", flush=True)


DUMPS: dict[str, Callable[[RedisServer], None]] = {
    "populate-10m": lambda s: build_populate(s, 10_000_000),
    "mixed-1m": build_mixed,
    "populate-1m": lambda s: build_populate(s, 1_000_000),
    "populate-10m-session": lambda s: build_populate(s, 10_000_000, "user:session"),
    "populate-50m": lambda s: build_populate(s, 50_000_000, "user:session"),
}
# Built only when named with --only: the server needs about 6 GB for it.
ON_REQUEST = {"populate-50m"}


def keyspace_summary(client: redis.Redis) -> str:
    info = client.info("keyspace").get("db0", {})
    keys, expires = info.get("keys", 0), info.get("expires", 0)
    return f"{keys:,} keys, {expires:,} with TTL"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=DEFAULT_OUT, help=f"output directory (default {DEFAULT_OUT})")
    ap.add_argument("--only", choices=sorted(DUMPS), action="append",
                    help="build only this dump (repeatable)")
    ap.add_argument("--force", action="store_true", help="rebuild dumps that already exist")
    ap.add_argument("--redis-server", default=shutil.which("redis-server") or "/usr/bin/redis-server",
                    help="redis-server binary (default: from PATH)")
    args = ap.parse_args(argv)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    todo = []
    for name in args.only or [name for name in DUMPS if name not in ON_REQUEST]:
        target = out / f"{name}.rdb"
        if target.exists() and not args.force:
            print(f"{target}: exists, skipped (use --force to rebuild)")
        else:
            todo.append((name, target))
    if not todo:
        return 0

    with RedisServer(args.redis_server) as server:
        print(f"redis-server on 127.0.0.1:{server.port}, dir {server.workdir}")
        for name, target in todo:
            t0 = time.perf_counter()
            print(f"building {name} ...", flush=True)
            server.client.flushall()
            server.client.execute_command("MEMORY", "PURGE")
            DUMPS[name](server)
            summary = keyspace_summary(server.client)
            t1 = time.perf_counter()
            server.save_to(target)
            t2 = time.perf_counter()
            size_mb = target.stat().st_size / 1e6
            print(f"  {target}: {summary}, {size_mb:,.1f} MB "
                  f"(fill {t1 - t0:.1f}s, save {t2 - t1:.1f}s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
