"""A dump file truncated by another process while it is scanned: an error, never a dead process.

The compiled build reads a plain dump file mapped in memory, where touching a
page past the file's new end raises SIGBUS (exit 135, no message, before the
guard). The truncation happens at a set point: from the scan's own progress
callback, after its first batch, through the public ``on_progress`` option.
"""

import os
import subprocess
import sys

import pytest
from conftest import ROOT

import rdbscope
import rdbscope.rdb

KEYS = 200_000
PAGE = os.sysconf("SC_PAGE_SIZE")


def string_dump(path, keys=KEYS):
    """A dump of ``keys`` plain string keys in db 0 (src/rdb.h); returns its bytes."""
    records = b"".join(b"\x00" + bytes([len(k)]) + k + bytes([len(v)]) + v
                       for k, v in ((b"user:%08d" % i, b"value-%d" % i) for i in range(keys)))
    data = b"REDIS0009" + b"\xfe\x00" + records + b"\xff" + b"\x00" * 8
    path.write_bytes(data)
    return data


def truncating_on_first_progress(path, size):
    """An on_progress that truncates ``path`` to ``size`` bytes the first time the scan reports."""
    calls = []

    def on_progress(done, total):
        if not calls:
            os.truncate(path, size)
        calls.append(done)

    return on_progress


@pytest.mark.parametrize("cut", [4 << 20, (4 << 20) + 1234])
def test_load_raises_a_truncation_at_the_new_end(cut, implementation, tmp_path):
    path = tmp_path / "big.rdb"
    data = string_dump(path)
    with pytest.raises(rdbscope.RdbTruncatedError) as caught:
        rdbscope.load(path, batch_rows=65536, contiguous=False, implementation=implementation,
                      on_progress=truncating_on_first_progress(path, cut))
    # Mapped (compiled) or streamed (Python), the error is the file's new end.
    assert (caught.value.path, caught.value.offset) == (str(path), cut)
    assert caught.value.message == "dump ends early: the file was truncated during the scan"
    assert cut < len(data)


def test_stop_on_damage_keeps_the_keys_before_the_cut(implementation, tmp_path):
    path = tmp_path / "big.rdb"
    string_dump(path)
    cut = (4 << 20) + 1234  # mid-page: the rest of that page reads as zeros, not as a fault
    keys = rdbscope.load(path, batch_rows=65536, contiguous=False, implementation=implementation,
                         on_progress=truncating_on_first_progress(path, cut), on_error="stop")
    table = keys.to_arrow()
    assert isinstance(keys.info.stopped_by, rdbscope.RdbTruncatedError)
    ends = [o + n for o, n in zip(table["offset"].to_pylist(), table["rdb_bytes"].to_pylist(), strict=True)]
    assert max(ends) <= keys.info.truncated_at == cut
    # Every key kept is a key of the dump, in order; none was made up from the zeros past the cut.
    assert table["key"].to_pylist() == [b"user:%08d" % i for i in range(table.num_rows)]
    assert table.num_rows > KEYS // 3
    assert table["key"].null_count == 0 and table["expire_at"].null_count == table.num_rows


SCAN_TRUNCATING = r"""
import os, sys
import rdbscope.rdb

path, cut = sys.argv[1], int(sys.argv[2])
original = rdbscope.rdb.Scan.__init__

def scan_that_truncates(self, source, *, on_progress=None, **options):
    def progress(*args):
        if os.path.getsize(path) > cut:
            os.truncate(path, cut)
        if on_progress is not None:
            on_progress(*args)
    original(self, source, on_progress=progress, **options)

rdbscope.rdb.Scan.__init__ = scan_that_truncates
from rdbscope.cli import main
sys.argv = ["rdbscope", "scan", path, "-o", sys.argv[3]]
main()
"""


@pytest.mark.slow
@pytest.mark.parametrize("existing", [False, True], ids=["no-output-yet", "output-exists"])
def test_scan_command_exits_2_with_one_line_and_no_output(existing, implementation, tmp_path):
    """`rdbscope scan big.rdb -o out.parquet` whose dump is cut to 4 MiB after the first batch."""
    path = tmp_path / "big.rdb"
    string_dump(path)
    output = tmp_path / "out.parquet"
    if existing:
        output.write_bytes(b"last night's report")
    env = dict(os.environ, RDBSCOPE_PUREPYTHON="1" if implementation == "python" else "")
    cut = 4 << 20
    done = subprocess.run([sys.executable, "-c", SCAN_TRUNCATING, str(path), str(cut), str(output)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"error: {path}: offset "), lines[0]
    assert lines[0] == (f"error: {path}: offset {cut}: dump ends early: the file was truncated during the scan "
                        "while reading file")
    assert done.stdout == ""
    if existing:
        assert output.read_bytes() == b"last night's report"
    else:
        assert not output.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["big.rdb"] + (["out.parquet"] if existing else []))


def test_a_dump_left_alone_reads_whole_with_the_guard(tmp_path):
    """The guard is there on every mapped scan; an untouched dump gives every key."""
    path = tmp_path / "big.rdb"
    string_dump(path)
    keys = rdbscope.load(path)
    assert keys.num_rows == KEYS and keys.info.stopped_by is None


@pytest.mark.slow
@pytest.mark.skipif(len(rdbscope.rdb.implementations()) < 2, reason="the compiled scanner is not built here")
@pytest.mark.parametrize("cut", [4 << 20, (4 << 20) + 1234])
def test_both_builds_keep_the_same_keys(cut, tmp_path):
    path = tmp_path / "big.rdb"
    data = string_dump(path)
    tables = {}
    for name in ("cython", "python"):
        path.write_bytes(data)
        keys = rdbscope.load(path, batch_rows=65536, contiguous=False, implementation=name, on_error="stop",
                             on_progress=truncating_on_first_progress(path, cut))
        tables[name] = (keys.to_arrow(), keys.info.truncated_at, str(keys.info.stopped_by))
    assert tables["cython"][1:] == tables["python"][1:]
    assert tables["cython"][0].equals(tables["python"][0])


@pytest.mark.skipif("cython" not in rdbscope.rdb.implementations(), reason="the compiled scanner is not built here")
def test_the_compiled_build_has_its_guard(tmp_path):
    """Without the compiled guard the compiled scanner streams its dumps (safe, but slower): it must be built."""
    import mmap

    from rdbscope.compiled import compiled_module
    from rdbscope.rdb import _mapguard

    assert compiled_module("rdb._mapguard") is not None
    path = tmp_path / "one.rdb"
    path.write_bytes(b"REDIS0009\xff" + bytes(8))
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapping:
        slot = _mapguard.guard(mapping)
        try:
            assert slot >= 0 and _mapguard.cut(slot) == -1
        finally:
            _mapguard.release(slot)


FOREIGN_FAULT = r"""
import mmap, os, sys
import rdbscope

dump, other = sys.argv[1], sys.argv[2]
assert rdbscope.load(dump).num_rows == 1  # the guard's handler is installed from here on
with open(other, "wb") as f:
    f.write(b"x" * 65536)
with open(other, "rb") as f:
    mapping = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
os.truncate(other, 0)
print("touching", flush=True)
mapping[40000]  # a mapping the guard does not know: its fault is the process's, as before
print("survived", flush=True)
"""


@pytest.mark.slow
@pytest.mark.skipif("cython" not in rdbscope.rdb.implementations(), reason="the compiled scanner is not built here")
@pytest.mark.parametrize("faulthandler", [False, True])
def test_a_fault_elsewhere_still_goes_to_the_handler_before(faulthandler, tmp_path):
    dump = tmp_path / "one.rdb"
    dump.write_bytes(b"REDIS0009\x00\x01k\x01v\xff" + bytes(8))
    flags = ["-X", "faulthandler"] if faulthandler else []
    done = subprocess.run([sys.executable, *flags, "-c", FOREIGN_FAULT, str(dump), str(tmp_path / "other")],
                          cwd=ROOT, env=dict(os.environ, RDBSCOPE_PUREPYTHON=""), capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.stdout == "touching\n", done.stdout
    assert done.returncode == -7, (done.returncode, done.stderr)  # killed by SIGBUS
    assert ("Bus error" in done.stderr) == faulthandler, done.stderr
