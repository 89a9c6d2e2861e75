"""The dump checksum as a user meets it: a server's dump of several MiB (the checksum runs ahead of the scan
in stretches, or beside a stream read in chunks) verifies, and one byte changed in it is a checksum mismatch."""

import gzip
import random

import pytest
import servers
from typer.testing import CliRunner

from rdbscope.cli import app

pytestmark = pytest.mark.server

runner = CliRunner()
KEYS = 30000


@pytest.fixture(scope="module")
def large_dump(tmp_path_factory):
    """A Redis 7.0 dump of about 6 MiB: KEYS strings of 200 random hex characters."""
    rng = random.Random(64)
    values = {f"crc:{i}": rng.randbytes(100).hex() for i in range(KEYS)}

    def write(pipe):
        for key, value in values.items():
            pipe.set(key, value)

    path = servers.dump_written_by("redis-7.0", write, tmp_path_factory.mktemp("crc") / "large.rdb")
    return path, values


def as_gzip(path):
    packed = path.with_name(path.name + ".gz")
    packed.write_bytes(gzip.compress(path.read_bytes(), compresslevel=1))
    return packed


@pytest.mark.parametrize("packed", [False, True], ids=["mapped", "gzip-stream"])
def test_a_large_server_dump_verifies(large_dump, packed):
    path, _values = large_dump
    assert path.stat().st_size > 5 << 20
    result = runner.invoke(app, ["info", str(as_gzip(path) if packed else path)])
    assert result.exit_code == 0, result.output
    assert f"{KEYS:,} keys" in result.stdout and "checksum verified" in result.stdout


@pytest.mark.parametrize("packed", [False, True], ids=["mapped", "gzip-stream"])
def test_one_byte_changed_mid_dump_is_a_checksum_mismatch(large_dump, tmp_path, packed):
    path, values = large_dump
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    # A byte inside a value near the middle: the dump still parses.
    near = (data.find(value.encode(), middle - 500, middle + 500) for value in values.values())
    at = next(found for found in near if found > 0) + 37
    data[at] ^= 0x01
    bad = tmp_path / "flipped.rdb"
    bad.write_bytes(bytes(data))
    result = runner.invoke(app, ["info", str(as_gzip(bad) if packed else bad)])
    assert result.exit_code == 2
    assert "CRC64 mismatch" in result.stderr and "flipped.rdb" in result.stderr
    assert "Traceback" not in result.output
