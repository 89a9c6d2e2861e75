"""Internal placeholder markers and how they are shown to users.

While patterns are being inferred, a placeholder is written as a name between
two private-use code points, so that it can never be mistaken for braces that
belong to the key itself (Redis Cluster hash tags such as ``{user:1000}``).
Only the finished pattern shows placeholders as ``{name}``.
"""

import re

OPEN = "\ue000"
CLOSE = "\ue001"

# Placeholder names, as they appear in finished patterns.
ID = "id"
UUID = "uuid"
HEX = "hex"
DATE = "date"
TS = "ts"
IP = "ip"
EMAIL = "email"
B64 = "b64"
TOKEN = "token"
ANY = "*"

NAMES = (ID, UUID, HEX, DATE, TS, IP, EMAIL, B64, TOKEN, ANY)

# Numbers whose length makes them candidates for a timestamp or a compact
# date; they are resolved to ts/date/id once their values have been checked.
NUMBER_CANDIDATE_LENGTHS = (13, 10, 8, 6)


def marker(name):
    """The internal form of placeholder ``name``."""
    return f"{OPEN}{name}{CLOSE}"


def number_candidate(length):
    """Internal name of a standalone number of ``length`` digits awaiting a value check."""
    return f"n{length}"


MARKER_RE = re.compile(f"{OPEN}([^{CLOSE}]*){CLOSE}")


def is_placeholder(text):
    """True when ``text`` is exactly one internal placeholder."""
    return len(text) > 2 and text[0] == OPEN and text[-1] == CLOSE and text.count(OPEN) == 1


def placeholder_name(text):
    """The name inside a single internal placeholder."""
    return text[1:-1]


def render(text):
    """Internal form to user form: every marker becomes ``{name}``."""
    return text.replace(OPEN, "{").replace(CLOSE, "}")
