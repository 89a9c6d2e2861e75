"""scan()/load(): inputs, compression, filters, batches, pandas, parity of the two builds."""

import bz2
import gzip
import io
import lzma
import random

import lz4.frame
import pyarrow as pa
import pytest
import zstandard
from conftest import SAMPLE_DUMPS, one_quick, require_compiled, sample_dumps

import rdbscope
import rdbscope.rdb
from rdbscope.compiled import compiled_module

DEFAULT = SAMPLE_DUMPS / "redis-7.0-default.rdb"


def test_compiled_scanner_is_used_where_it_was_built():
    if require_compiled():
        assert rdbscope.rdb.IMPLEMENTATION == "cython"
        assert "cython" in rdbscope.rdb.implementations()
        # The scanner cimports these: a Python module among them would not even link.
        for name in ("_columns", "_crc64", "_lzf", "_pages", "_scan"):
            assert compiled_module(f"rdb.{name}") is not None, name
    assert rdbscope.rdb.IMPLEMENTATION in rdbscope.rdb.implementations()


@pytest.mark.parametrize("path", sample_dumps(), ids=[p.stem for p in sample_dumps()])
def test_both_builds_give_the_same_table(path):
    tables = [rdbscope.load(path, implementation=name).to_arrow() for name in rdbscope.rdb.implementations()]
    assert all(t.equals(tables[0]) for t in tables)


class Trickle(io.RawIOBase):
    """A pipe that hands out 1 to 97 bytes per read, so the scanner's buffer ends anywhere."""

    def __init__(self, data, seed):
        self._inner = io.BytesIO(data)
        self._sizes = random.Random(seed)

    def readable(self):
        return True

    def readinto(self, b):
        return self._inner.readinto(memoryview(b)[:self._sizes.randint(1, 97)])


@pytest.mark.parametrize("path", one_quick(sample_dumps()), ids=[p.stem for p in sample_dumps()])
def test_buffers_that_end_anywhere_change_nothing(path):
    """Every read of a record or a compact blob that the buffer ends inside is resumed, not misread."""
    expected = rdbscope.load(path).to_arrow()
    for seed in range(2):
        assert rdbscope.load(Trickle(path.read_bytes(), seed), implementation="python").to_arrow().equals(expected)


def test_rdb_bytes_tile_the_file():
    keys = rdbscope.load(DEFAULT).to_arrow()
    offsets = keys["offset"].to_pylist()
    spans = keys["rdb_bytes"].to_pylist()
    # Entries follow one another except where a SELECTDB/RESIZEDB/AUX opcode sits between them.
    gaps = [offsets[i + 1] - (offsets[i] + spans[i]) for i in range(len(offsets) - 1)]
    assert min(gaps) == 0 and sum(1 for g in gaps if g) == 2  # two db switches after db 0
    assert sum(spans) < DEFAULT.stat().st_size


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress,
                                      lambda d: zstandard.ZstdCompressor().compress(d), lz4.frame.compress],
                         ids=["gzip", "bz2", "xz", "zstd", "lz4"])
def test_compressed_backups_stream(tmp_path, compress):
    plain = rdbscope.load(DEFAULT).to_arrow()
    path = tmp_path / "dump.rdb.z"
    path.write_bytes(compress(DEFAULT.read_bytes()))
    keys = rdbscope.load(path)
    assert keys.to_arrow().equals(plain)
    assert keys.info.compression in {"gzip", "bz2", "xz", "zstd", "lz4"}


def test_file_objects_seekable_or_not():
    data = DEFAULT.read_bytes()

    class Pipe(io.RawIOBase):
        def __init__(self):
            self._inner = io.BytesIO(data)

        def readable(self):
            return True

        def readinto(self, b):
            return self._inner.readinto(b)

    plain = rdbscope.load(DEFAULT).to_arrow()
    assert rdbscope.load(io.BytesIO(data)).to_arrow().equals(plain)
    assert rdbscope.load(Pipe()).to_arrow().equals(plain)
    assert rdbscope.load(io.BufferedReader(Pipe(), 7)).to_arrow().equals(plain)


def test_damaged_gzip_is_a_format_error(tmp_path):
    packed = bytearray(gzip.compress(DEFAULT.read_bytes()))
    packed[len(packed) // 2] ^= 0xFF
    path = tmp_path / "dump.rdb.gz"
    path.write_bytes(bytes(packed))
    with pytest.raises(rdbscope.RdbFormatError, match="gzip"):
        rdbscope.load(path)


def test_batches_are_bounded_and_complete():
    scan = rdbscope.scan(DEFAULT, batch_rows=100)
    sizes = [b.num_rows for b in scan]
    assert max(sizes) == 100 and sum(sizes) == rdbscope.load(DEFAULT).num_rows
    assert all(isinstance(b, pa.RecordBatch) for b in rdbscope.scan(DEFAULT, batch_rows=100))


def test_filters_are_pushed_into_the_scan():
    everything = rdbscope.load(DEFAULT).to_arrow().to_pylist()
    db1 = rdbscope.load(DEFAULT, db=1).to_arrow().to_pylist()
    assert db1 == [r for r in everything if r["db"] == 1] and db1
    hashes = rdbscope.load(DEFAULT, types=["hash", "zset"]).to_arrow().to_pylist()
    assert hashes == [r for r in everything if r["type"] in ("hash", "zset")] and hashes
    users = rdbscope.load(DEFAULT, key_glob="user:*").to_arrow().to_pylist()
    assert users == [r for r in everything if r["key"].startswith(b"user:")] and users
    with pytest.raises(ValueError, match="unknown type"):
        rdbscope.load(DEFAULT, types=["hyperloglog"])


def test_pandas_keys_are_text_with_escapes():
    frame = rdbscope.load(DEFAULT).to_pandas()
    raw = rdbscope.load(DEFAULT).to_arrow()["key"].to_pylist()
    non_utf8 = [k for k in raw if not _is_utf8(k)]
    assert non_utf8, "the sample dump should hold a key that is not UTF-8"
    assert non_utf8[0].decode("utf-8", "backslashreplace") in set(frame["key"])
    assert str(frame["type"].dtype) == "category"


def _is_utf8(b):
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def test_info_holds_the_dump_metadata():
    info = rdbscope.load(DEFAULT).info
    assert info.magic == "REDIS" and info.rdb_version == 10
    assert info.aux["redis-ver"] == "7.0.15"
    assert set(info.resizedb) == {0, 1, 5}
    assert info.checksum_verified and info.complete
    assert "KeyTable 2073 keys" in repr(rdbscope.load(DEFAULT))


@pytest.mark.slow
def test_python_build_without_cython_installed_gives_the_same_table(tmp_path):
    """Where Cython is missing, the .py sources run through a shim: same table as the compiled build."""
    import subprocess
    import sys

    out = tmp_path / "keys.arrow"
    code = (
        "import sys; sys.modules['cython'] = None\n"
        "import pyarrow as pa, rdbscope\n"
        f"t = rdbscope.load({str(DEFAULT)!r}, implementation='python').to_arrow()\n"
        f"with pa.OSFile({str(out)!r}, 'wb') as f, pa.ipc.new_file(f, t.schema) as w: w.write_table(t)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    table = pa.ipc.open_file(str(out)).read_all()
    assert table.equals(rdbscope.load(DEFAULT).to_arrow())


@pytest.mark.parametrize("glob, expected", [
    ("user:1\\*", []),                       # an escaped star is a literal star, as in Redis
    ("session:[^0-9a-e]*", "session:f"),      # Redis negates classes with ^
    ("stats:int64:m?x", "stats:int64:max"),
])
def test_key_glob_follows_redis(glob, expected):
    keys = [k.decode("utf-8", "replace") for k in rdbscope.load(DEFAULT, key_glob=glob).to_arrow()["key"].to_pylist()]
    if isinstance(expected, list):
        assert keys == expected
    else:
        assert keys and all(k.startswith(expected) for k in keys)


def _decoded_modules(table):
    """The table with module names as plain strings: batches built at different times
    carry different module dictionaries for the same names."""
    at = table.schema.get_field_index("module_name")
    return table.set_column(at, "module_name", table["module_name"].cast(pa.string()))


def _tables_by_build(source_of, **options):
    """The key table of each available build, read in contiguous batches and in bounded ones."""
    out = []
    for name in rdbscope.rdb.implementations():
        whole = rdbscope.load(source_of(), implementation=name, **options).to_arrow()
        bounded = pa.Table.from_batches(list(rdbscope.scan(source_of(), implementation=name, batch_rows=64,
                                                           **options)))
        out.append((name, _decoded_modules(whole), _decoded_modules(bounded)))
    return out


@pytest.mark.parametrize("path", one_quick(sample_dumps()), ids=[p.stem for p in sample_dumps()])
def test_load_builds_one_chunk_per_database_with_the_same_rows(path):
    dbs = len(set(rdbscope.load(path, batch_rows=64).to_arrow()["db"].to_pylist()))
    for streamed in (False, True):
        def source(streamed=streamed):
            return io.BytesIO(path.read_bytes()) if streamed else path

        for name, whole, bounded in _tables_by_build(source):
            assert whole.equals(bounded), (name, streamed)
            # RESIZEDB announces each database's keys, so a database fills one chunk at most
            # (two share one when a database held fewer keys than it announced).
            assert 1 <= whole["key"].num_chunks <= dbs, (name, streamed)


def _string_record(key, value):
    return b"\x00" + bytes([len(key)]) + key + bytes([len(value)]) + value


def _dump(announced, keys, version=9):
    """A dump of db 0 holding ``keys`` string keys; RESIZEDB announces ``announced`` (None: no RESIZEDB)."""
    body = b"\xfe\x00"
    if announced is not None:
        body += b"\xfb" + bytes([announced]) + b"\x00"
    body += b"".join(_string_record(b"k:%d" % i, b"v%d" % i) for i in range(keys))
    return b"REDIS%04d" % version + body + b"\xff" + b"\x00" * 8


@pytest.mark.parametrize("announced", [None, 1, 3000 // 64, 60])
def test_contiguous_batches_grow_past_a_wrong_or_missing_resizedb(announced, tmp_path):
    path = tmp_path / "dump.rdb"
    path.write_bytes(_dump(announced, 3000, version=6 if announced is None else 9))
    for name, whole, bounded in _tables_by_build(lambda: path):
        assert whole.num_rows == 3000 and whole.equals(bounded), name
        assert whole["key"].to_pylist()[2999] == b"k:2999"


def test_contiguous_batches_with_filters_keep_what_bounded_ones_keep():
    for name, whole, bounded in _tables_by_build(lambda: DEFAULT, key_glob="user:*", db=0):
        assert whole.num_rows > 0 and whole.equals(bounded), name


@pytest.mark.slow
def test_python_exits_after_a_scan_left_part_read(tmp_path):
    """A scan of a large dump left after its first batch is closed when collected at exit; its checksum
    thread, then waiting for the scan to move on, must not keep the interpreter from exiting."""
    import subprocess
    import sys

    from conftest import ROOT

    dump = tmp_path / "large.rdb"  # larger than the checksum's lead on the scan (128 MiB)
    subprocess.run([sys.executable, str(ROOT / "bench" / "make_rdb.py"), "--keys", "4500000", "--out", str(dump)],
                   check=True, capture_output=True)
    code = ("import rdbscope.rdb, sys\n"
            "for batch in rdbscope.rdb.scan(sys.argv[1], batch_rows=1000):\n"
            "    break\n"
            "print(batch.num_rows)\n")
    done = subprocess.run([sys.executable, "-c", code, str(dump)], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (0, "1000\n")


@pytest.mark.parametrize("implementation", sorted(rdbscope.rdb.implementations()))
def test_batches_read_past_yield_their_rows_and_leave_the_others_whole(implementation):
    """Every other batch only read past: the rows of each are counted, and the batches built between
    them (some written after a read-past batch's buffers were written again) are the plain scan's."""
    plain = list(rdbscope.rdb.scan(DEFAULT, batch_rows=97, implementation=implementation))
    mixed = list(rdbscope.rdb.scan(DEFAULT, batch_rows=97, implementation=implementation,
                                   read_past=lambda i, _offset: i % 3 != 0))
    assert len(plain) == len(mixed) > 6
    for i, (whole, got) in enumerate(zip(plain, mixed, strict=True)):
        if i % 3 == 0:
            assert got.equals(whole)
        else:
            assert isinstance(got, rdbscope.rdb.ReadPast) and got.num_rows == whole.num_rows
            assert whole.column("est_memory_bytes").null_count == 0
