"""A hostile keyspace written by a real server: keys that a careless renderer would print wrongly or act on.

Keys holding the byte 0xFF beside keys holding the four characters ``\\xff``, a NUL byte, terminal escape
sequences (set the title, clear the screen, an OSC-8 link), a right-to-left override, a 1 MiB name, and names
with emoji shortcodes in them (``big:key:45386``, BullMQ's ``bull:email:events``).
"""

import shutil

from servers import make_sample_dumps, server

#: Keys whose text, printed raw, would act on a terminal.
TERMINAL_ATTACKS = {
    "title": b"\x1b]0;pwned\x07:title",
    "clear": b"\x1b[2J\x1b[H:clear",
    "link": b"\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\:link",
}
BIDI = "bidi:\u202egnp.exe".encode()
NUL = b"nul:\x00:key"
#: A name of 1 MiB in 200,000 segments: its pattern is as long (one key of its form).
LONG = b"long:" + b"word:" * ((1 << 20) // 5)
#: Names with emoji shortcodes (``:key:``, ``:email:``), given the biggest values: the summary shows them.
SHORTCODES = {b"big:key:45386": 3_000_000, b"bull:email:events": 2_000_000}
#: The same ten ids under a prefix of the byte 0xFF and under one of the four characters ``\xff``.
HIGH_BYTE = [b"bin:\xff:%d" % i for i in range(10)]
LITERAL_ESCAPE = [b"bin:\\xff:%d" % i for i in range(10)]
#: Values of these sizes, so that every hostile key is among the biggest.
HOSTILE_VALUE_BYTES = 20_000
PLAIN = [b"user:%d:profile" % i for i in range(200)]


def hostile_keys():
    """Every key of the hostile dump."""
    return [*TERMINAL_ATTACKS.values(), BIDI, NUL, LONG, *SHORTCODES, *HIGH_BYTE, *LITERAL_ESCAPE, *PLAIN]


def value_bytes(key):
    return SHORTCODES.get(key, 8 if key in PLAIN else HOSTILE_VALUE_BYTES)


def write_hostile_dump(path):
    """Write the hostile keyspace on Debian's redis-server 7.0 and copy its dump to ``path``; returns the keys
    the server listed (``KEYS``), the oracle of what the dump holds."""
    with make_sample_dumps.RunningServer(server("redis-7.0"), {"save": "", "appendonly": "no"}) as running:
        client = running.client(0)
        pipe = client.pipeline(transaction=False)
        for key in hostile_keys():
            pipe.set(key, b"v" * value_bytes(key))
        pipe.execute()
        listed = set(client.keys())
        client.execute_command("SAVE")
        shutil.copy(running.dump_path, path)
    return listed
