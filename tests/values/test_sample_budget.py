"""The value sample holds a share of the memory budget: fewer bytes per key, then fewer keys (those of the largest
patterns first), when its keys would not fit; budgets of a gigabyte or less all read the same sample."""

import shutil

from servers import make_sample_dumps, server

import rdbscope
from rdbscope.config import Config
from rdbscope.passes.values import ValuesOptions
from rdbscope.sizes import parse_size
from rdbscope.values.read import (
    ENTRY_READ_BYTES,
    OBJECT_BYTES,
    SAMPLE_MIN_BYTES,
    Wanted,
    keys_read,
    read_samples,
    sample_bytes,
    samples_bytes,
)


def _dump(tmp_path, write):
    with make_sample_dumps.RunningServer(server("redis-7.0"), {"save": ""}) as running:
        client = running.client(0)
        write(client)
        client.execute_command("SAVE")
        dump = tmp_path / "dump.rdb"
        shutil.copyfile(running.dump_path, dump)
    return dump


def _held(sample):
    return len(sample.head) + sum(len(b) + OBJECT_BYTES for b in (*sample.fields, *sample.elements))


def test_each_sample_keeps_the_first_elements_that_fit_its_share(tmp_path):
    def write(client):
        for i in range(4):
            client.execute_command("HSET", f"doc:{i}", *[x for f in range(32) for x in (f"field-{f}", "v" * 1500)])
            client.execute_command("RPUSH", f"list:{i}", *["i" * 900 for _ in range(40)])
            client.execute_command("SET", f"blob:{i}", "b" * 6000)

    dump = _dump(tmp_path, write)
    wanted = [Wanted(r["offset"], r["type"], r["encoding"], r["n_elements"])
              for r in rdbscope.load(dump).to_arrow().to_pylist()]
    whole = read_samples(dump, wanted)
    kept = read_samples(dump, wanted, keep_bytes=SAMPLE_MIN_BYTES)
    assert kept.keys() == whole.keys() and len(kept) == 12
    for offset, sample in kept.items():
        full = whole[offset]
        assert _held(sample) <= SAMPLE_MIN_BYTES
        assert sample.head == full.head  # a string's head is never cut by the budget
        n = len(sample.elements)
        assert sample.elements == full.elements[:n] and sample.element_lengths == full.element_lengths[:n]
        assert sample.fields == full.fields[:len(sample.fields)]
        if sample.type != "string":
            assert 0 < n < len(full.elements)  # the first field and element fit, not all of them
    assert any(_held(s) > SAMPLE_MIN_BYTES for s in whole.values())


def test_the_share_of_the_budget_bounds_bytes_per_key_then_keys():
    assert samples_bytes(None) == samples_bytes(parse_size("100KB")) == samples_bytes(parse_size("1GB"))
    assert samples_bytes(parse_size("8GB")) == parse_size("2GB")
    assert sample_bytes(parse_size("1GB"), 1_000) == ENTRY_READ_BYTES
    assert sample_bytes(parse_size("1GB"), 32_000) * 32_000 <= samples_bytes(parse_size("1GB"))
    assert sample_bytes(parse_size("1GB"), 10**6) == SAMPLE_MIN_BYTES
    assert keys_read(parse_size("1GB")) * SAMPLE_MIN_BYTES <= samples_bytes(parse_size("1GB"))
    # the default sample (1,000 patterns of 32 keys) fits whole in a budget of a gigabyte or less
    assert keys_read(parse_size("100KB")) >= ValuesOptions().max_patterns * ValuesOptions().keys_per_pattern


def test_samples_past_the_budgets_share_are_those_of_the_largest_patterns(tmp_path):
    n_keys = keys_read(parse_size("1GB")) + 5_000

    def write(client):
        pipe = client.pipeline(transaction=False)
        for i in range(n_keys):
            pipe.execute_command("HSET", f"big:{i}", "name", f"n{i}", "payload", "x" * 40)
            if i % 1000 == 999:
                pipe.execute()
        pipe.execute_command("HSET", "small:1", "a", "1")
        pipe.execute()

    dump = _dump(tmp_path, write)
    config = Config(values=ValuesOptions(keys_per_pattern=n_keys))

    def sampled(budget):
        rows = rdbscope.analyze(dump, config, memory_budget=budget).tables["patterns"].to_pylist()
        return {r["pattern"]: r["values_sampled"] for r in rows}

    assert sampled("1GB") == {"big:{id}": keys_read(parse_size("1GB")), "small:{id}": 0}
    assert sampled("16GB") == {"big:{id}": n_keys, "small:{id}": 1}
