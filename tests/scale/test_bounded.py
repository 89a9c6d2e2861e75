"""A bounded-memory run gives the in-memory run's tables and findings: on every sample dump, on the
public corpus, and on a 10M-key dump written by a real server."""

import time

import pytest
import redis
from conftest import CORPUS, SAMPLE_DUMPS, corpus_available, needs_corpus, one_quick
from servers import make_sample_dumps, server

import rdbscope
from rdbscope.api import _as_config, _run_bounded
from rdbscope.config import Config
from rdbscope.errors import InputError
from rdbscope.scale.budget import chunk_keys_for
from rdbscope.sizes import parse_size

#: The passes a bounded run makes, and their tables.
PASSES = ["patterns", "bigkeys", "ttl", "expiry", "activity", "distributions"]
TABLES = ["patterns", "namespaces", "big_keys", "top_keys", "types", "ttl_coverage", "ttl_overview", "ttl_buckets",
          "expiry_bursts",
          "expiry_timeline", "activity", "key_sizes", "ttl_left"]


def finding_rows(result):
    return [(f.code, f.db, f.pattern, f.n_keys, f.est_memory_bytes, f.message, f.examples, f.details)
            for f in result.finding_list]


def assert_same(in_memory, bounded, tables=TABLES, examples=True):
    assert bounded.bounded and not in_memory.bounded
    assert bounded.n_keys == in_memory.n_keys
    assert bounded.memory_basis == in_memory.memory_basis
    for name in tables:
        if name == "ttl_buckets" and "ctime" not in (in_memory.info.aux or {}):
            assert name not in bounded.tables  # measured from the ctime, which such a dump does not say
            continue
        expected, got = in_memory.tables[name], bounded.tables[name]
        if not examples and "examples" in expected.column_names:
            expected, got = expected.drop_columns(["examples"]), got.drop_columns(["examples"])
        assert got.schema == expected.schema, name
        assert got.to_pylist() == expected.to_pylist(), name
    expected, got = finding_rows(in_memory), finding_rows(bounded)
    if not examples:
        expected, got = [f[:6] + f[7:] for f in expected], [f[:6] + f[7:] for f in got]
    assert got == expected


@pytest.mark.parametrize("path", one_quick(sorted(SAMPLE_DUMPS.glob("*.rdb"))), ids=lambda p: p.name)
@pytest.mark.parametrize("chunk_keys", [97, 1000])
def test_bounded_run_equals_the_in_memory_run(path, chunk_keys):
    in_memory = rdbscope.analyze(rdbscope.load(path), passes=PASSES)
    bounded = rdbscope.analyze(path, passes=PASSES, chunk_keys=chunk_keys)
    assert_same(in_memory, bounded)
    assert bounded.skipped == ()
    assert bounded.keys.num_rows < bounded.n_keys  # only the keys the tables and findings name were kept


@pytest.mark.parametrize("path", one_quick(sorted(SAMPLE_DUMPS.glob("*default.rdb"))), ids=lambda p: p.name)
def test_patterns_learned_from_a_small_sample_are_the_same(path):
    """50 sampled keys of ~2,000: the rare patterns come from the further round, and still agree."""
    in_memory = rdbscope.analyze(rdbscope.load(path), passes=["patterns"])
    bounded = _run_bounded(path, _as_config(None), ["patterns"], chunk_keys=97, sample_keys=50)
    assert_same(in_memory, bounded, tables=["patterns", "namespaces"])


def test_every_pass_runs_and_the_rules_that_need_every_key_are_named_as_skipped():
    path = SAMPLE_DUMPS / "redis-7.0-default.rdb"
    result = rdbscope.analyze(path, chunk_keys=500)
    assert result.ran == ("pattern_groups", "values", "patterns", "bigkeys", "ttl", "expiry", "activity",
                          "distributions", "rules")
    assert result.skipped == ()
    assert "expiry_bursts" in result.tables and "cluster_slots" in result.tables
    assert any(code.startswith("EXP") for code in result.checked)
    assert any(code.startswith("NAM") for code in result.checked)
    growth = rdbscope.analyze(path, Config(extend_select=("GRO001",)), chunk_keys=500)
    assert growth.skipped == ("GRO001",) and "GRO001" not in growth.checked


def test_every_dump_is_read_in_chunks_and_one_that_fits_is_read_whole_only_for_gro001():
    path = SAMPLE_DUMPS / "redis-7.0-default.rdb"
    result = rdbscope.analyze(path, memory_budget="1GB")
    assert result.bounded and "expiry" in result.ran and result.skipped == ()
    assert result.keys.num_rows < result.n_keys == rdbscope.load(path).num_rows
    growth = rdbscope.analyze(path, Config(extend_select=("GRO001",)), memory_budget="1GB")
    assert not growth.bounded and "GRO001" in growth.checked and growth.keys.num_rows == result.n_keys
    assert finding_rows(result) == [f for f in finding_rows(growth) if f[0] != "GRO001"]


def test_memory_sizes_parse_and_bad_ones_say_what_is_expected():
    assert parse_size("2GB") == parse_size("2GiB") == 2_147_483_648  # 1024-based, as every size printed
    assert parse_size("1.5GiB") == 1_610_612_736
    assert parse_size("512mb") == 536_870_912
    assert parse_size("100 KB") == parse_size("100k") == 102_400
    assert parse_size(4096) == 4096
    for bad in ("lots", "2 parsecs", "-1GB", "0", "1e9", "1iB"):
        with pytest.raises(InputError, match="size"):
            parse_size(bad)
    assert 50_000 <= chunk_keys_for(parse_size("1GB")) <= 2_000_000


def corpus_dumps():
    if not corpus_available():
        return []
    lines = (CORPUS / "public" / "MANIFEST.tsv").read_text().splitlines()[1:]
    return [CORPUS / "public" / line.split("\t")[0] for line in lines]


@needs_corpus()
def test_bounded_runs_equal_in_memory_runs_on_the_corpus():
    compared = 0
    for path in corpus_dumps():
        try:
            keys = rdbscope.load(path)
        except rdbscope.RdbError:
            continue  # the corpus's deliberately broken or unsupported files
        in_memory = rdbscope.analyze(keys, passes=PASSES)
        bounded = rdbscope.analyze(path, passes=PASSES, chunk_keys=97)
        assert_same(in_memory, bounded)
        compared += 1
    assert compared > 150


@pytest.mark.slow
def test_ten_million_keys_bounded_equal_in_memory(tmp_path):
    """A 10M-key dump written by a real Redis (DEBUG POPULATE) with keys of two patterns and TTLs."""
    binary = server("redis-7.0")
    with make_sample_dumps.RunningServer(binary, {"enable-debug-command": "local"}) as running:
        # DEBUG POPULATE of 9M keys outlasts redis-py's 5 s read timeout on a loaded machine: wait for it.
        client = redis.Redis(host="127.0.0.1", port=running.port, protocol=2, socket_timeout=None)
        client.response_callbacks.clear()  # replies as the server sends them, as running.client's
        client.execute_command("DEBUG", "POPULATE", 9_000_000, "user:session")
        client.execute_command("DEBUG", "POPULATE", 1_000_000, "cache:page", 40)
        pipe = client.pipeline(transaction=False)
        for n in range(0, 1_000_000, 97):
            pipe.pexpire(f"cache:page:{n}", 3_600_000 + n)
        pipe.execute()
        client.execute_command("BGSAVE")  # SAVE of 10M keys outlasts the client's read timeout
        while b"rdb_bgsave_in_progress:1" in client.execute_command("INFO", "persistence"):
            time.sleep(0.5)
        dump = tmp_path / "ten-million.rdb"
        dump.write_bytes(running.dump_path.read_bytes())
        client.close()
    in_memory = rdbscope.analyze(rdbscope.load(dump))
    bounded = rdbscope.analyze(dump, memory_budget="1GB")
    assert bounded.n_keys == 10_000_000 and bounded.skipped == ()
    assert "ENC002" in {f.code for f in in_memory.finding_list}  # the rules ran, and found what they find in memory
    # Examples: the first keys of a group in bounded runs; first and spread over the dump in memory.
    assert_same(in_memory, bounded, tables=[*TABLES, "cluster_slots"], examples=False)


#: Three servers' dumps, read as one keyspace with combine=True (they share slots: not one cluster).
CLUSTER_DUMPS = [SAMPLE_DUMPS / "redis-7.0-default.rdb", SAMPLE_DUMPS / "redis-8.2-lfu.rdb",
                 SAMPLE_DUMPS / "valkey-8.1-default.rdb"]


def assert_same_bounded(here, there):
    assert there.n_keys == here.n_keys and there.bounded and here.bounded
    for name in TABLES:
        assert there.tables[name].to_pylist() == here.tables[name].to_pylist(), name
    assert finding_rows(there) == finding_rows(here)
    assert there.checked == here.checked
    assert [s.path for s in there.keys.sources] == [s.path for s in here.keys.sources]
    assert [s.n_keys for s in there.keys.sources] == [s.n_keys for s in here.keys.sources]
    assert there.keys.to_arrow().equals(here.keys.to_arrow())


def test_several_dumps_in_bounded_memory_keep_each_dump_summary():
    result = rdbscope.analyze(CLUSTER_DUMPS, combine=True, passes=PASSES, chunk_keys=500)
    loaded = rdbscope.load(CLUSTER_DUMPS, combine=True)
    assert result.n_keys == loaded.num_rows
    assert [s.n_keys for s in result.keys.sources] == [s.n_keys for s in loaded.sources]
    assert [s.est_memory_bytes for s in result.keys.sources] == [s.est_memory_bytes for s in loaded.sources]
    assert all((a.slot_keys == b.slot_keys).all() for a, b in zip(result.keys.sources, loaded.sources, strict=True))
    assert set(result.keys.to_arrow()["source"].to_pylist()) <= {str(p) for p in CLUSTER_DUMPS}


@pytest.mark.slow
def test_several_dumps_on_local_processes_give_the_one_process_result():
    here = rdbscope.analyze(CLUSTER_DUMPS, combine=True, chunk_keys=500, jobs=1)  # every pass, and the rules
    there = rdbscope.analyze(CLUSTER_DUMPS, combine=True, chunk_keys=500, jobs=2)
    assert_same_bounded(here, there)


@pytest.mark.slow
def test_several_dumps_on_a_real_dask_cluster_give_the_one_process_result(dask_address):
    from rdbscope.scale.executors import connect

    here = rdbscope.analyze(CLUSTER_DUMPS, combine=True, chunk_keys=500)  # every pass, and the rules
    with connect(dask_address) as client:
        there = rdbscope.analyze(CLUSTER_DUMPS, combine=True, chunk_keys=500, client=client)
    assert_same_bounded(here, there)


@pytest.mark.slow
def test_one_dump_measured_on_two_processes_gives_the_one_process_result(monkeypatch):
    monkeypatch.setattr("rdbscope.scale.planning.LARGE_DUMP_BYTES", 0)  # the sample dumps are small: split them anyway
    path = SAMPLE_DUMPS / "redis-8.2-default.rdb"
    here = rdbscope.analyze(path, passes=PASSES, chunk_keys=97)
    there = rdbscope.analyze(path, passes=PASSES, chunk_keys=97, jobs=2)
    for name in TABLES:
        assert there.tables[name].to_pylist() == here.tables[name].to_pylist(), name
    assert finding_rows(there) == finding_rows(here)
    assert there.keys.to_arrow().equals(here.keys.to_arrow())


@pytest.mark.slow
def test_a_compressed_dump_with_jobs_is_measured_whole(tmp_path, monkeypatch):
    """The stretches of a dump are byte ranges of the file: a compressed dump's keys lie at offsets of
    the expanded stream, past its file size, so it is read by one process, every key measured."""
    import gzip

    monkeypatch.setattr("rdbscope.scale.planning.LARGE_DUMP_BYTES", 0)
    path = SAMPLE_DUMPS / "redis-8.2-default.rdb"
    packed = tmp_path / "default.rdb.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    here = rdbscope.analyze(path, passes=PASSES, chunk_keys=97)
    there = rdbscope.analyze(packed, passes=PASSES, chunk_keys=97, jobs=2)
    assert there.n_keys == here.n_keys == len(rdbscope.load(path))
    for name in TABLES:
        assert there.tables[name].to_pylist() == here.tables[name].to_pylist(), name


def test_stretches_of_a_dump_keep_every_process_about_as_busy():
    """Each share's process reads past the stretches before its own (at READ_PAST_COST of measuring)
    and measures its own: the first stretches are longer, and every process's work is the same."""
    from rdbscope.scale.bounded import READ_PAST_COST, share_bounds

    size = 6_492_013_967
    for shares in (1, 2, 3, 8):
        bounds = share_bounds(size, shares)
        assert bounds[0] == 0 and bounds[-1] == size and bounds == sorted(bounds)
        work = [READ_PAST_COST * low + high - low for low, high in zip(bounds[:-1], bounds[1:], strict=True)]
        assert max(work) - min(work) < 1e-6 * size
    # two processes: the first measures x, the second reads past x and measures 1 - x: x = 1 / (2 - r)
    assert abs(share_bounds(size, 2)[1] - size / (2 - READ_PAST_COST)) < 1e-6 * size
    assert share_bounds(size, 2)[1] > size / 2


def test_shares_measure_the_stretches_in_turn_and_the_last_checks_the_checksum():
    from rdbscope.scale import bounded

    path = SAMPLE_DUMPS / "redis-8.2-default.rdb"
    plan = bounded.plan_for(Config())
    first, first_info, _ = bounded.partial_of_source(path, plan, chunk_keys=97, share=(0, 2))
    last, last_info, _ = bounded.partial_of_source(path, plan, chunk_keys=97, share=(1, 2))
    whole = len(rdbscope.load(path))
    assert first.n_keys + last.n_keys == whole and 0 < first.n_keys < whole
    assert not first_info.checksum_verified and last_info.checksum_verified
    assert last.rows["row"].to_pylist()[0] == first.n_keys  # its rows are numbered on from the first share's


@pytest.mark.slow
def test_processes_report_what_they_have_read(monkeypatch):
    """The workers' scans write how far they have read where the parent reads it: its progress ends at
    every byte, of one dump in stretches and of several dumps, and never goes back."""
    monkeypatch.setattr("rdbscope.scale.planning.LARGE_DUMP_BYTES", 0)
    one = SAMPLE_DUMPS / "redis-8.2-default.rdb"
    for dumps in ([one], list(CLUSTER_DUMPS)):
        calls = []
        rdbscope.analyze(dumps if len(dumps) > 1 else dumps[0], passes=PASSES, chunk_keys=97, jobs=2, combine=True,
                         on_progress=lambda done, total, keys=None: calls.append((done, total)))  # noqa: B023
        size = sum(path.stat().st_size for path in dumps)
        assert calls[-1] == (size, size)
        read = [done for done, _total in calls]
        assert read == sorted(read)


@pytest.mark.slow
def test_one_dump_on_two_processes_still_checks_its_checksum(tmp_path, monkeypatch):
    """Only the first of the processes checks the CRC (the others read past its chunks): a wrong one
    still fails the run."""
    monkeypatch.setattr("rdbscope.scale.planning.LARGE_DUMP_BYTES", 0)
    data = bytearray((SAMPLE_DUMPS / "redis-8.2-default.rdb").read_bytes())
    data[-1] ^= 0xFF  # the last byte of the CRC64 trailer
    damaged = tmp_path / "bad-crc.rdb"
    damaged.write_bytes(bytes(data))
    with pytest.raises(rdbscope.RdbFormatError, match="CRC64 mismatch") as caught:
        rdbscope.analyze(damaged, passes=PASSES, chunk_keys=97, jobs=2)
    assert "bad-crc.rdb" in str(caught.value)


@pytest.mark.parametrize("jobs", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_a_damaged_dump_among_several_in_bounded_memory_is_named(tmp_path, jobs):
    data = (SAMPLE_DUMPS / "redis-8.2-lfu.rdb").read_bytes()
    damaged = tmp_path / "node-b.rdb"
    damaged.write_bytes(data[:len(data) // 2])
    with pytest.raises(rdbscope.RdbTruncatedError) as caught:
        rdbscope.analyze([CLUSTER_DUMPS[0], damaged, CLUSTER_DUMPS[2]], passes=PASSES, chunk_keys=100, jobs=jobs)
    assert "node-b.rdb" in str(caught.value) and caught.value.offset > 0


def test_a_missing_dump_among_several_in_bounded_memory_is_named(tmp_path):
    with pytest.raises(InputError, match="no-such.rdb"):
        rdbscope.analyze([CLUSTER_DUMPS[0], tmp_path / "no-such.rdb"], passes=PASSES, chunk_keys=100)


def chunking_invariants(result):
    """What must not depend on how the keys were cut into chunks: the tables and the findings."""
    tables = {name: result.tables[name].to_pylist() for name in ("patterns", "namespaces", "big_keys", "ttl_coverage",
                                                                  "activity")}
    return tables, finding_rows(result)


@pytest.mark.parametrize("path", [SAMPLE_DUMPS / "libraries.rdb",
                                  *one_quick(sorted(SAMPLE_DUMPS.glob("*default.rdb")))], ids=lambda p: p.name)
@pytest.mark.parametrize("sample_keys", [50, 300, 2000])
def test_the_chunking_does_not_change_the_answers_when_the_keyspace_outgrows_the_sample(path, sample_keys):
    """Patterns learned from a sample smaller than the keyspace: chunks of 97 keys, 500, and one chunk
    give the same tables and findings (a pattern only a chunk's inference found, for a group of keys
    the sample barely saw, is not replaced by the text of its first key)."""
    one_chunk = _run_bounded(path, _as_config(None), None, chunk_keys=1_000_000, sample_keys=sample_keys)
    assert one_chunk.n_keys > sample_keys or sample_keys == 2000
    for chunk_keys in (97, 500):
        chunked = _run_bounded(path, _as_config(None), None, chunk_keys=chunk_keys, sample_keys=sample_keys)
        assert chunking_invariants(chunked) == chunking_invariants(one_chunk), chunk_keys


@pytest.mark.parametrize("path", [SAMPLE_DUMPS / "libraries.rdb", SAMPLE_DUMPS / "redis-8.2-default.rdb"],
                         ids=lambda p: p.name)
def test_chunks_measured_in_threads_give_every_table_and_finding_of_one_thread(path):
    """Chunks measured at once finish in any order: merged in the order of the dump, with their expiring keys
    spilled in that order, every table (expiry timeline and bursts included) is the one thread's."""
    def run(threads):
        result = _run_bounded(path, _as_config(None), None, chunk_keys=97, sample_keys=300, threads=threads)
        return {name: table.to_pylist() for name, table in result.tables.items()}, finding_rows(result)

    one = run(1)
    assert one[0]["expiry_timeline"] or "libraries" in path.name
    assert run(3) == one
