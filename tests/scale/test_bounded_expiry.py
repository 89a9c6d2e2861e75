"""The expiry pass in bounded memory: windows and incidents from per-second counts, same-millisecond
batches (EXP003) from the per-millisecond counts spilled to disk, equal to the in-memory pass."""

import gzip
import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest
from conftest import ROOT
from test_bounded import assert_same

import rdbscope
from rdbscope.config import Config
from rdbscope.errors import InputError
from rdbscope.passes import expiry_counts
from rdbscope.passes.expiry import ExpiryOptions

PASSES = ["patterns", "expiry"]
TABLES = ["patterns", "expiry_bursts", "expiry_timeline"]
#: Windows never count as bursts: every batch is an EXP003 finding of its own.
BATCHES_ONLY = Config(expiry=ExpiryOptions(min_ratio=1e9))


@pytest.fixture(autouse=True)
def in_files(monkeypatch):
    """Every spill of these tests goes to files (a dump of 50,000 keys spills less than a process keeps in
    memory before it writes files): what a large dump does."""
    monkeypatch.setattr(expiry_counts, "IN_MEMORY_BYTES", 0)


@pytest.fixture(scope="module")
def batched_dump(tmp_path_factory):
    """50,000 keys of two patterns on two dbs, 60% with a TTL, a fifth of those in same-millisecond batches."""
    path = tmp_path_factory.mktemp("expiry") / "batched.rdb"
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "make_rdb.py"), "--keys", "50000", "--dbs", "2",
                           "--ttl-share", "0.6", "--batch-share", "0.2", "--seed", "3", "--out", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return path


@pytest.mark.parametrize("config", [None, BATCHES_ONLY], ids=["incidents", "batches"])
@pytest.mark.parametrize("chunk_keys", [pytest.param(97, marks=pytest.mark.slow), 4000])
def test_bounded_expiry_equals_the_in_memory_pass(batched_dump, config, chunk_keys):
    in_memory = rdbscope.analyze(rdbscope.load(batched_dump), config, passes=PASSES)
    bounded = rdbscope.analyze(batched_dump, config, passes=PASSES, chunk_keys=chunk_keys)
    assert_same(in_memory, bounded, tables=TABLES)
    codes = {f.code for f in bounded.finding_list}
    assert codes == ({"EXP003"} if config else {"EXP001", "EXP002"})


def test_every_pattern_s_batches_have_their_memory_and_examples(batched_dump):
    """Each pattern's EXP003 names the memory of its batched keys and keys of its largest batch."""
    result = rdbscope.analyze(rdbscope.load(batched_dump), BATCHES_ONLY, passes=PASSES)
    findings = [f for f in result.finding_list if f.code == "EXP003"]
    assert len(findings) == 4  # two patterns in each of two dbs
    keys = result.keys.to_pandas().set_index(["db", "key"])
    for finding in findings:
        assert len(finding.examples) == 3
        prefix = finding.pattern.split("{")[0]
        assert all(example.startswith(prefix) for example in finding.examples)
        expiries = {keys.loc[(finding.db, example), "expire_at"] for example in finding.examples}
        assert len(expiries) == 1  # the examples share their batch's millisecond
        assert finding.est_memory_bytes >= finding.n_keys * 40


@pytest.mark.slow
def test_batches_of_one_dump_measured_on_two_processes(batched_dump, monkeypatch):
    monkeypatch.setattr("rdbscope.scale.planning.LARGE_DUMP_BYTES", 0)
    in_memory = rdbscope.analyze(rdbscope.load(batched_dump), BATCHES_ONLY, passes=PASSES)
    shared = rdbscope.analyze(batched_dump, BATCHES_ONLY, passes=PASSES, chunk_keys=3000, jobs=2)
    assert_same(in_memory, shared, tables=TABLES)


def test_batches_across_several_dumps(batched_dump, tmp_path):
    """Two nodes' keys of one millisecond are one batch, as in the table of both (the same dump twice: read
    with combine=True, as it is not one cluster's nodes)."""
    other = tmp_path / "other.rdb"
    other.write_bytes(batched_dump.read_bytes())
    paths = [batched_dump, other]
    in_memory = rdbscope.analyze(rdbscope.load(paths, combine=True), BATCHES_ONLY, passes=PASSES)
    bounded = rdbscope.analyze(paths, BATCHES_ONLY, passes=PASSES, chunk_keys=5000, combine=True)
    assert_same(in_memory, bounded, tables=TABLES)
    alone = rdbscope.analyze(rdbscope.load(batched_dump), BATCHES_ONLY, passes=PASSES)
    assert [f.n_keys for f in bounded.finding_list] == [2 * f.n_keys for f in alone.finding_list]


def test_the_spilled_counts_are_removed(batched_dump, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = rdbscope.analyze(batched_dump, BATCHES_ONLY, passes=PASSES, chunk_keys=4000)
    assert any(f.code == "EXP003" for f in result.finding_list)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(rdbscope.RdbError):
        rdbscope.analyze(ROOT / "pyproject.toml", passes=PASSES, chunk_keys=4000)
    assert list(tmp_path.iterdir()) == []


def test_a_segment_that_travelled_inline_lands_on_disk_unchanged(batched_dump, tmp_path):
    """What a Dask worker sends back inline is written to the client's spill directory as it arrives."""
    from rdbscope.scale.bounded import partial_of_source, plan_for

    plan = plan_for(BATCHES_ONLY, spill_dir=str(tmp_path / "spill"))
    partial, _info, _summary = partial_of_source(batched_dump, plan, chunk_keys=4000, log_keys=True)
    (segment,) = partial.spilled
    assert segment.dump is None  # what a Dask worker sends: the keys travel with it
    expected = [segment.records(i).copy() for i in range(len(segment.paths))]
    places = expected[0]["place"][:5]
    keys = segment.key_texts(places)
    travelled = segment.inline()
    assert travelled.buffers and not travelled.paths
    landed = travelled.landed(str(tmp_path / "client"))
    assert not landed.buffers and all(path.startswith(str(tmp_path / "client")) for path in landed.paths)
    assert all((landed.records(i) == records).all() for i, records in enumerate(expected))
    assert sum(len(records) for records in expected) > 10_000
    assert landed.key_texts(places) == keys and len(keys) == 5


def _spilled(dump, tmp_path, log_keys):
    from rdbscope.scale.bounded import partial_of_source, plan_for

    plan = plan_for(BATCHES_ONLY, spill_dir=str(tmp_path / ("logged" if log_keys else "read-again")))
    (segment,) = partial_of_source(dump, plan, chunk_keys=4000, log_keys=log_keys)[0].spilled
    return segment


def test_the_keys_of_a_plain_dump_are_read_again_from_it_not_logged(batched_dump, tmp_path):
    """The keys a report shows come from the dump itself: the same texts as the log, the log empty."""
    read_again, logged = _spilled(batched_dump, tmp_path, False), _spilled(batched_dump, tmp_path, True)
    assert read_again.dump == str(batched_dump) and os.path.getsize(read_again.keys) == 0
    places = np.concatenate([read_again.records(i)["place"][:40] for i in range(len(read_again.paths))])
    texts = read_again.key_texts(places)
    assert texts == logged.key_texts(places) and len(texts) == len(set(places.tolist())) > 1000
    table = rdbscope.load(batched_dump).table.to_pandas().set_index("offset")
    assert texts == {int(p): table.loc[int(p), "key"].decode() for p in places}


def test_a_dump_rewritten_before_its_keys_are_read_again_is_named(batched_dump, tmp_path):
    copy = tmp_path / "copy.rdb"
    copy.write_bytes(batched_dump.read_bytes())
    segment = _spilled(copy, tmp_path, False)
    places = segment.records(0)["place"][:3]
    assert len(segment.key_texts(places)) == 3
    copy.write_bytes(batched_dump.read_bytes())  # the same bytes, written again
    os.utime(copy, ns=(0, 0))
    with pytest.raises(InputError, match="copy.rdb: the dump changed while rdbscope was reading it"):
        segment.key_texts(places)


def test_bounded_expiry_of_a_compressed_dump_logs_its_keys(batched_dump, tmp_path):
    """A gzip backup cannot be read again at an offset: its expiring keys are logged, with the same report."""
    packed = tmp_path / "batched.rdb.gz"
    packed.write_bytes(gzip.compress(batched_dump.read_bytes(), compresslevel=1))
    segment = _spilled(packed, tmp_path, False)
    assert segment.dump is None and os.path.getsize(segment.keys) > 100_000
    in_memory = rdbscope.analyze(rdbscope.load(batched_dump), BATCHES_ONLY, passes=PASSES)
    bounded = rdbscope.analyze(packed, BATCHES_ONLY, passes=PASSES, chunk_keys=4000)
    assert_same(in_memory, bounded, tables=TABLES)
    assert [f.examples for f in bounded.finding_list] == [f.examples for f in in_memory.finding_list]


@pytest.mark.slow
def test_batches_across_several_dumps_on_a_real_dask_cluster(batched_dump, tmp_path, dask_address):
    from rdbscope.scale.executors import connect

    other = tmp_path / "other.rdb"
    other.write_bytes(batched_dump.read_bytes())
    paths = [batched_dump, other]
    in_memory = rdbscope.analyze(rdbscope.load(paths, combine=True), BATCHES_ONLY, passes=PASSES)
    with connect(dask_address) as client:
        bounded = rdbscope.analyze(paths, BATCHES_ONLY, passes=PASSES, chunk_keys=5000, combine=True, client=client)
    assert_same(in_memory, bounded, tables=TABLES)
    assert any(f.code == "EXP003" for f in bounded.finding_list)


@pytest.mark.parametrize("table_limit", [1 << 24, 1])  # a table of seconds; the spans' bounds alone
def test_seconds_of_spans_keep_exactly_the_milliseconds_inside(table_limit, monkeypatch):
    monkeypatch.setattr(expiry_counts, "DENSE_LOOKUP_SLOTS", table_limit)
    spans = [(0, 1000, 1010), (3, 1005, 1020), (1, 2000, 2001)]
    ms = np.array([-5, 999_999, 1_000_000, 1_009_999, 1_019_999, 1_020_000, 1_500_000, 2_000_000, 2_000_999,
                   2_001_000, 9_000_000], np.int64)
    inside = {i for i, t in enumerate(ms.tolist()) if any(s * 1000 <= t < e * 1000 for _g, s, e in spans)}
    found = set(expiry_counts._seconds_of(spans)(ms).tolist())
    assert inside <= found  # never one inside left out
    if table_limit > 1:  # the table tells exactly
        assert found == inside == {2, 3, 4, 7, 8}


def test_a_spill_that_fits_in_memory_writes_no_file_and_counts_alike(batched_dump, tmp_path, monkeypatch):
    """The same batches, incidents and examples from records kept in memory as from records in files; and
    nothing under the spill directory (a report on a full disk fails only where it writes its report)."""
    in_files = rdbscope.analyze(batched_dump, BATCHES_ONLY, passes=PASSES, chunk_keys=4000)
    monkeypatch.setattr(expiry_counts, "IN_MEMORY_BYTES", 64 << 20)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    in_memory = rdbscope.analyze(batched_dump, BATCHES_ONLY, passes=PASSES, chunk_keys=4000)
    assert in_memory.tables["expiry_bursts"].equals(in_files.tables["expiry_bursts"])
    assert [f.examples for f in in_memory.finding_list] == [f.examples for f in in_files.finding_list]
    assert any(f.code == "EXP003" for f in in_memory.finding_list)
    spilled = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert spilled == []


def test_a_spill_that_cannot_be_written_is_one_line_naming_where(batched_dump, tmp_path, monkeypatch):
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    spill = expiry_counts.Spill(str(blocked))
    with pytest.raises(InputError, match=f"^{blocked}: cannot write the expiry counts spilled there"):
        spill.write(np.zeros(3, np.int64), np.arange(3, dtype=np.int64), np.ones(3, np.uint64),
                    np.arange(3, dtype=np.uint64), [(0, "p")])


@pytest.mark.parametrize("most_slots", [0, 20_000, 1 << 22])  # all apart, some apart, grown
def test_a_spills_seconds_are_the_tally_of_all_its_keys(monkeypatch, most_slots):
    """The per-second counts a spill keeps as chunks come (in slots grown to their seconds, or tallied apart past
    ``SECOND_SLOTS``) are the tally of every key at once."""
    monkeypatch.setattr(expiry_counts, "SECOND_SLOTS", most_slots)
    rng = np.random.default_rng(most_slots)
    counts = expiry_counts.SecondCounts()
    numbers = np.array([3, 0, 1, 8, 2, 4, 5, 6, 7], np.int32)  # numbered as groups came: 0..n-1, in any order
    chunks, numbered = [], 0
    for start, n_groups in [(10_000, 2), (9_000, 3), (12_000, 9), (-5_000, 4), (10_500, 9)] * 3:
        group = rng.integers(0, n_groups, 500).astype(np.int64)
        value = (start * 1000 + rng.integers(-1500, 800_000, 500)).astype(np.int64)
        memory = rng.integers(1, 1 << 40, 500, dtype=np.uint64)
        numbered = max(numbered, int(numbers[:n_groups].max()) + 1)  # the numbers given so far
        counts.add(numbers[:n_groups], group, value, memory, numbered)
        chunks.append((numbers[group].astype(np.int64), value // 1000, memory))
    got = counts.tally()
    want = expiry_counts.Tally._sorted(*(np.concatenate(column) for column in zip(*chunks, strict=True)))
    for name in ("group", "value", "count", "memory"):
        assert getattr(got, name).tolist() == getattr(want, name).tolist()
    assert got.count.dtype == np.int64 and got.memory.dtype == np.uint64
