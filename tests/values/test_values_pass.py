"""The values pass: which keys it samples, alike in every chunking; what happens when it cannot or may not read."""

import json
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest
from conftest import module_builds, without_value_columns

import rdbscope
from rdbscope.passes.values import key_hashes
from tests.conftest import ROOT, SAMPLE_DUMPS

DUMP = SAMPLE_DUMPS / "redis-7.0-default.rdb"
SAMPLED_TYPES = {"string", "list", "set", "zset", "hash"}


@pytest.fixture(scope="module")
def whole():
    return rdbscope.analyze(DUMP)


def test_every_chunking_samples_the_same_keys(whole):
    """Chunks of 97 and 500 keys, one chunk, and the table in memory choose the same keys and read the same
    samples."""
    assert whole.values_not_read is None
    assert sum(len(samples) for samples in whole.value_samples.values()) > 500
    for chunk_keys in (97, 500):
        assert rdbscope.analyze(DUMP, chunk_keys=chunk_keys).value_samples == whole.value_samples
    assert rdbscope.analyze(rdbscope.load(DUMP), chunk_keys=300).value_samples == whole.value_samples


def test_each_pattern_samples_its_keys_with_the_lowest_hashes(whole):
    """Up to 32 keys a pattern, those whose bytes hash lowest, in that order: the samples are their values."""
    keys = whole.keys.to_arrow()
    table = rdbscope.load(DUMP).to_arrow()
    hashes = key_hashes(table["key"])
    patterns = {}
    for db, key, hashed in zip(table["db"].to_pylist(), table["key"].to_pylist(), hashes.tolist(), strict=True):
        patterns.setdefault(db, {})[key] = hashed
    by_key = {(row["db"], row["key"]): row for row in table.to_pylist()}
    pattern_of = {}
    full = rdbscope.analyze(rdbscope.load(DUMP))  # every key with its pattern
    for row in full.keys.to_arrow().select(["db", "key", "pattern"]).to_pylist():
        pattern_of.setdefault((row["db"], row["pattern"]), []).append(row["key"])
    assert keys.num_rows <= table.num_rows
    big = 0
    for (db, pattern), samples in whole.value_samples.items():
        members = [k for k in pattern_of[(db, pattern)] if by_key[(db, k)]["type"] in SAMPLED_TYPES]
        lowest = sorted(members, key=lambda k: patterns[db][k])[:32]
        assert len(samples) == len(lowest)
        for key, sample in zip(lowest, samples, strict=True):
            row = by_key[(db, key)]
            assert (sample.type, sample.encoding, sample.length) == (row["type"], row["encoding"], row["n_elements"])
        big += len(members) > 32
    assert big >= 3


@pytest.mark.parametrize("build", sorted(module_builds("kernels._key_hashes")))
def test_key_hashes_are_the_same_in_both_builds(build):
    keys = pa.array([b"", b"a", b"user:1", "caf\u00e9".encode(), bytes(range(256))], pa.binary())
    out = np.empty(len(keys), np.uint64)
    _v, offsets, data = keys.buffers()
    module_builds("kernels._key_hashes")[build].fill_key_hashes(np.frombuffer(offsets, np.int32),
                                                                np.frombuffer(data, np.uint8), out)
    assert out.tolist() == key_hashes(keys).tolist()
    assert len(set(out.tolist())) == len(keys)


def test_pure_python_build_reads_the_same_samples(whole):
    script = ("import pickle, sys, rdbscope; r = rdbscope.analyze(sys.argv[1], chunk_keys=400); "
              "sys.stdout.buffer.write(pickle.dumps(dict(r.value_samples)))")
    done = subprocess.run([sys.executable, "-c", script, str(DUMP)], capture_output=True, cwd=ROOT, timeout=300,
                          env={**__import__("os").environ, "RDBSCOPE_PUREPYTHON": "1"})
    assert done.returncode == 0, done.stderr.decode()
    assert __import__("pickle").loads(done.stdout) == dict(whole.value_samples)


def test_values_false_reads_no_value(tmp_path):
    """values=False: the pass does not run and the dump is not opened again: a dump gone after its scan is
    not missed, where a run that reads values says it could not."""
    copy = tmp_path / "dump.rdb"
    copy.write_bytes(DUMP.read_bytes())
    keys = rdbscope.load(copy)
    copy.unlink()
    reading = rdbscope.analyze(keys)
    assert "values" in reading.ran
    assert reading.value_samples == {}
    assert reading.values_not_read == f"{copy} is not a file that can be read again"
    result = rdbscope.analyze(keys, values=False)
    assert "values" not in result.ran and "patterns" in result.ran
    assert result.value_samples == {} and result.values_not_read is None
    assert "values" not in rdbscope.analyze(DUMP, values=False, passes=["values", "bigkeys"]).ran


def test_a_dump_changed_since_its_scan_gives_a_note_and_no_sample(tmp_path):
    """The file replaced by another dump between the scan and the reading of its values: the keys the scan chose
    are not at their offsets any more, and no value is taken from the other dump."""
    copy = tmp_path / "dump.rdb"
    copy.write_bytes(DUMP.read_bytes())
    keys = rdbscope.load(copy)
    copy.write_bytes((SAMPLE_DUMPS / "redis-6.2-default.rdb").read_bytes())
    result = rdbscope.analyze(keys)
    assert result.value_samples == {}
    assert result.values_not_read.startswith(f"{copy} could not be read again (another key at offset ")


def test_a_compressed_dump_is_read_again_in_one_pass(whole, tmp_path):
    import gzip

    packed = tmp_path / "dump.rdb.gz"
    packed.write_bytes(gzip.compress(DUMP.read_bytes()))
    result = rdbscope.analyze(packed)
    assert result.values_not_read is None
    assert result.value_samples == whole.value_samples


def _cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "rdbscope", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, timeout=180, stdin=stdin)


def test_standard_input_says_values_were_not_read_and_no_values_says_nothing():
    with open(DUMP, "rb") as dump:
        piped = _cli("patterns", "-", "--format", "json", stdin=dump)
    assert piped.returncode == 0, piped.stderr
    assert "note: no value sample: standard input cannot be read again" in piped.stderr
    with open(DUMP, "rb") as dump:
        off = _cli("patterns", "-", "--format", "json", "--no-values", stdin=dump)
    assert off.returncode == 0, off.stderr
    assert "value sample" not in off.stderr
    assert off.stdout == piped.stdout


def test_no_values_report_gives_the_same_report_but_the_value_columns():
    """--no-values changes nothing the report prints but the patterns' value columns (values themselves are never
    printed), on report and patterns."""
    for command in ("report", "patterns"):
        with_values = _cli(command, DUMP, "--format", "json", "--quiet")
        without = _cli(command, DUMP, "--format", "json", "--quiet", "--no-values")
        assert with_values.returncode == without.returncode == 0, without.stderr
        read, not_read = json.loads(with_values.stdout), json.loads(without.stdout)
        patterns_read = read["patterns"] if command == "report" else read
        patterns_not_read = not_read["patterns"] if command == "report" else not_read
        assert {row["value_format"] for row in patterns_read} >= {"text", "number"}
        assert {row["value_format"] for row in patterns_not_read} == {None}
        assert without_value_columns(patterns_read) == without_value_columns(patterns_not_read)
        if command == "report":
            read.pop("patterns"), not_read.pop("patterns")
            assert read == not_read


def test_several_dumps_are_sampled_alike_however_they_are_read():
    """Two dumps as one keyspace: read in turn, on two processes, and as one table in memory, the same keys of
    both are sampled; a pattern of both dumps takes keys of each."""
    dumps = [SAMPLE_DUMPS / "redis-7.0-default.rdb", SAMPLE_DUMPS / "valkey-8.1-lru.rdb"]
    in_turn = rdbscope.analyze(dumps, combine=True, chunk_keys=300)
    assert in_turn.values_not_read is None
    assert rdbscope.analyze(dumps, combine=True, chunk_keys=700, jobs=2).value_samples == in_turn.value_samples
    table = rdbscope.load(dumps, combine=True)
    assert rdbscope.analyze(table, chunk_keys=500).value_samples == in_turn.value_samples
    alone = [rdbscope.analyze(dump).value_samples for dump in dumps]
    both = [pattern for pattern in in_turn.value_samples if all(pattern in one for one in alone)]
    assert both
    for pattern in both:
        mixed = set(in_turn.value_samples[pattern])
        assert len(in_turn.value_samples[pattern]) == min(32, sum(len(one[pattern]) for one in alone))
        assert all(mixed & set(one[pattern]) for one in alone) or len(mixed) == 32


@pytest.mark.slow
def test_a_running_server_says_its_values_were_not_read():
    from servers import make_sample_dumps, server

    with make_sample_dumps.RunningServer(server("redis-7.0"), {"save": ""}) as running:
        running.client(0).execute_command("SET", "user:1", "secret")
        result = rdbscope.analyze(f"redis://127.0.0.1:{running.port}")
    assert result.n_keys == 1
    assert result.value_samples == {}
    assert result.values_not_read == "a running server's snapshot cannot be read again"
