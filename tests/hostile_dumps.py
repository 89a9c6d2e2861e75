"""Dumps with hostile values that are still valid: written by a real server, then, where no server writes
such a value, edited byte-exactly (the field rewritten, the CRC-64 recomputed).

Redis 7.0 accepts ``EXPIREAT k 253402300799`` (9999-12-31T23:59:59Z, a common "never"), and ``PEXPIREAT``
of 2**62 and of 2**63-1, and writes them as they are. It never writes a ctime or a redis-ver out of range,
nor an expiry before 1970 (it deletes the key instead): those are edits of its dump.
"""

import struct

import servers

from rdbscope.rdb import _crc64

#: The keys every dump holds besides ``never``: ``user:N`` strings with a TTL of an hour or so.
N_USERS = 120
#: What the server is told for ``never``: (name of the dump, command, argument).
SENTINELS = {
    "year-9999": ("EXPIREAT", 253402300799),
    "2-pow-62-ms": ("PEXPIREAT", 1 << 62),
    "int64-max-ms": ("PEXPIREAT", (1 << 63) - 1),
}


def server_dump(command, when, n_users=N_USERS):
    """The bytes of a Redis 7.0 SAVE holding ``n_users`` keys with a TTL and the key ``never`` with
    ``command never when`` applied."""
    with servers.make_sample_dumps.RunningServer(servers.server("redis-7.0"), {"save": ""}) as running:
        client = running.client(0)
        for i in range(n_users):
            client.set(f"user:{i}", "x" * 10, ex=3600 + i)
        client.set("never", "v")
        assert client.execute_command(command, "never", when) == 1
        assert client.pttl("never") > 0  # accepted as a time ahead, not refused nor expired
        client.execute_command("SAVE")
        return running.dump_path.read_bytes()


def _rdb_string(raw):
    n = len(raw)
    return (bytes([n]) if n < 64 else bytes([0x40 | n >> 8, n & 0xFF])) + raw


def _string_end(data, at):
    """Where the RDB string at ``at`` ends (plain, or an integer encoding: src/rdb.c rdbLoadLen)."""
    first = data[at]
    if first >> 6 == 3:
        return at + 1 + {0: 1, 1: 2, 2: 4}[first & 0x3F]
    if first >> 6 == 0:
        return at + 1 + (first & 0x3F)
    assert first >> 6 == 1, "longer strings are not in a header"
    return at + 2 + (((first & 0x3F) << 8) | data[at + 1])


def with_checksum(body):
    """``body`` (everything before the checksum) followed by its CRC-64."""
    return body + _crc64.crc64_chunk(0, body, 0, len(body)).to_bytes(8, "little")


def with_aux(dump, name, value):
    """``dump`` with AUX field ``name`` (bytes) set to the string ``value`` (bytes)."""
    marker = b"\xfa" + _rdb_string(name)
    at = dump.index(marker) + len(marker)
    return with_checksum(dump[:at] + _rdb_string(value) + dump[_string_end(dump, at):-8])


def with_expiry(dump, old_ms, new_ms):
    """``dump`` with the one EXPIRETIME_MS of ``old_ms`` set to ``new_ms``."""
    old = b"\xfc" + struct.pack("<q", old_ms)
    assert dump.count(old) == 1
    return with_checksum(dump[:-8].replace(old, b"\xfc" + struct.pack("<q", new_ms)))
