"""The serialization estimates, from a 32-key sample, against what a real server reports: write the values
as they are, read MEMORY USAGE, write them again compressed or re-encoded, read it again."""

import json
import random

import msgpack
import pytest
import zstandard
from servers import server
from value_fixtures import collection_sample, document, json_bytes, string_sample, write_values

from rdbscope.values.profile import describe
from rdbscope.values.sample import HEAD_BYTES
from rdbscope.values.serialization import (
    LARGE_FIELD_BYTES,
    LARGE_VALUE_BYTES,
    MSGPACK_WORTH_RATIO,
    compression_saving,
    hash_json_saving,
    msgpack_saving,
)

pytestmark = pytest.mark.server

N_KEYS = 300
SAMPLE = 32


@pytest.fixture(scope="module")
def redis_70():
    from make_sample_dumps import RunningServer

    with RunningServer(server("redis-7.0"), {"save": "", "appendonly": "no"}) as running:
        yield running.client(0)


def write(client, values):
    """SET (or HSET, for dicts) ``values`` under keys of one pattern; the total MEMORY USAGE of the keys."""
    return write_values(client, values)


def sampled(n, seed=11):
    return sorted(random.Random(seed).sample(range(n), SAMPLE))


def assert_within_10_percent(estimate, before, after):
    real = before - after
    assert real > 0
    assert abs(estimate.bytes_saved - real) <= 0.10 * real, f"estimated {estimate.bytes_saved}, real {real}"


def test_compressing_large_values_saves_what_the_server_reports(redis_70):
    rng = random.Random(1)
    values = [json_bytes(document(rng.randrange(45, 120), seed=i)) for i in range(N_KEYS)]
    assert min(map(len, values)) > LARGE_VALUE_BYTES
    before = write(redis_70, values)
    profile = describe([string_sample(values[i]) for i in sampled(N_KEYS)])
    estimate = compression_saving(profile, N_KEYS, before)
    assert estimate is not None

    compressor = zstandard.ZstdCompressor(level=3)
    after = write(redis_70, [compressor.compress(v) for v in values])
    assert_within_10_percent(estimate, before, after)


def test_messagepack_instead_of_json_saves_what_the_server_reports(redis_70):
    rng = random.Random(2)
    values = [json_bytes(document(rng.randrange(1, 8), seed=i)) for i in range(N_KEYS)]
    assert max(map(len, values)) < HEAD_BYTES  # read whole: MessagePack is measured on whole documents
    before = write(redis_70, values)
    profile = describe([string_sample(values[i]) for i in sampled(N_KEYS)])
    assert profile.msgpack_ratio <= MSGPACK_WORTH_RATIO
    estimate = msgpack_saving(profile, N_KEYS, before)
    assert estimate is not None

    after = write(redis_70, [msgpack.packb(json.loads(v)) for v in values])
    assert_within_10_percent(estimate, before, after)


def test_large_json_in_hash_fields_compressed_saves_what_the_server_reports(redis_70):
    rng = random.Random(3)
    hashes = [{"profile": json_bytes(document(rng.randrange(16, 40), seed=i)),
               "history": json_bytes(document(rng.randrange(16, 40), seed=N_KEYS + i)),
               "name": f"user {i}".encode(), "state": rng.choice([b"active", b"idle"])} for i in range(N_KEYS)]
    assert min(len(h["profile"]) for h in hashes) > LARGE_FIELD_BYTES
    before = write(redis_70, hashes)
    samples = [collection_sample("hash", list(hashes[i].values()), fields=[f.encode() for f in hashes[i]])
               for i in sampled(N_KEYS)]
    profile = describe(samples)
    assert (profile.value_format, profile.element_format) == ("json", "json")
    estimate = hash_json_saving(profile, N_KEYS, before)
    assert estimate is not None

    compressor = zstandard.ZstdCompressor(level=3)
    after = write(redis_70, [{field: compressor.compress(value) if field in ("profile", "history") else value
                              for field, value in h.items()} for h in hashes])
    assert_within_10_percent(estimate, before, after)


def test_no_estimate_where_the_change_does_not_apply():
    small_json = describe([string_sample(json_bytes(document(2, seed=i))) for i in range(SAMPLE)])
    assert compression_saving(small_json, N_KEYS, 10**6) is None  # nothing over 10 KB
    assert hash_json_saving(small_json, N_KEYS, 10**6) is None  # no hashes
    packed = describe([string_sample(msgpack.packb(document(2, seed=i))) for i in range(SAMPLE)])
    assert msgpack_saving(packed, N_KEYS, 10**6) is None  # not JSON
    rng = random.Random(4)
    noise = describe([string_sample(zstandard.ZstdCompressor().compress(rng.randbytes(20_000)))
                      for _ in range(SAMPLE)])
    assert compression_saving(noise, N_KEYS, 10**6) is None  # large, but compresses badly


def test_a_saving_is_at_most_the_values_bytes_when_the_memory_is_in_the_names():
    """One key of a 1 MB name and a 20 KB value: compressing the value cannot free the name's megabyte."""
    value = json_bytes(document(60, seed=5))
    profile = describe([string_sample(value)])
    estimate = compression_saving(profile, 1, 1_331_240)
    assert estimate is not None and estimate.bytes_affected == round(1.25 * len(value))
