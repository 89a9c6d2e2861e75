"""describe: a pattern's sampled values, profiled (format by majority, element format, sizes, zstd and
MessagePack ratios measured with the libraries themselves)."""

import json
import random
import statistics

import msgpack
import zstandard
from value_fixtures import collection_sample, document, json_bytes, msgpack_bytes, string_sample

from rdbscope.values.profile import ZSTD_MIN_BYTES, ValueProfile, describe
from rdbscope.values.sample import HEAD_BYTES


def zstd_of(heads):
    compressor = zstandard.ZstdCompressor(level=3)
    kept = [h for h in heads if len(h) >= ZSTD_MIN_BYTES]
    return sum(len(compressor.compress(h)) for h in kept) / sum(len(h) for h in kept)


def test_no_samples_no_format():
    assert describe([]) == ValueProfile(None, None, None, None, None, 0)
    assert describe([]).value_format is None


def test_strings_the_majority_format_its_share_and_typical_size():
    values = ([json_bytes(document(n, seed=n)) for n in range(1, 7)] + [b"plain words here", b"more words"]
              + [msgpack_bytes(document(2))])
    samples = [string_sample(v) for v in values]
    random.Random(3).shuffle(samples)
    profile = describe(samples)
    assert profile.value_format == "json"
    assert profile.element_format is None
    assert profile.format_share == 6 / 9
    assert profile.n_samples == 9
    assert profile.typical_bytes == int(statistics.median(len(v) for v in values))


def test_typical_size_and_ratios_count_a_cut_value_at_its_full_length():
    values = [json_bytes(document(n, seed=n)) for n in (1, 2, 60, 80, 100)]
    assert sum(len(v) > HEAD_BYTES for v in values) == 3
    profile = describe([string_sample(v) for v in values])
    assert profile.value_format == "json"
    assert profile.typical_bytes == len(values[2])
    assert profile.zstd_ratio == zstd_of([v[:HEAD_BYTES] for v in values])
    # MessagePack is measured on the documents read whole only.
    whole = values[:2]
    assert profile.msgpack_ratio == sum(len(msgpack.packb(json.loads(v))) for v in whole) / sum(map(len, whole))


def test_a_hash_whose_field_values_are_json():
    rng = random.Random(4)
    samples = []
    for n in range(5):
        values = [json_bytes(document(rng.randrange(1, 4), seed=n * 10 + i)) for i in range(3)] + [b"active"]
        samples.append(collection_sample("hash", values, fields=[b"profile", b"prefs", b"cart", b"state"]))
    profile = describe(samples)
    assert (profile.value_format, profile.element_format, profile.format_share) == ("json", "json", 1.0)
    elements = [e for s in samples for e in s.elements]
    assert profile.typical_bytes == int(statistics.median(len(e) for e in elements))
    assert profile.zstd_ratio == zstd_of(elements)


def test_a_list_of_msgpack_documents():
    values = [msgpack_bytes(document(1, seed=i)) for i in range(20)]
    profile = describe([collection_sample("list", values[i:i + 5]) for i in range(0, 20, 5)])
    assert (profile.value_format, profile.element_format) == ("msgpack", "msgpack")
    assert profile.msgpack_ratio is None


def test_small_values_have_no_zstd_ratio():
    profile = describe([string_sample(str(n).encode()) for n in range(10)])
    assert (profile.value_format, profile.zstd_ratio, profile.typical_bytes) == ("number", None, 1)


def test_the_order_of_the_samples_does_not_matter():
    samples = [string_sample(b"12"), string_sample(b"word"), string_sample(b"34"), string_sample(b"text")]
    assert describe(samples) == describe(samples[::-1])
    assert describe(samples).value_format == "number"  # a tie goes to the first name in order
    assert describe(samples).format_share == 0.5


def test_large_values_and_large_json_fields_are_measured_apart():
    large = [json_bytes(document(60, seed=i)) for i in range(3)]
    small = [json_bytes(document(1, seed=i)) for i in range(3)]
    assert all(len(v) > 10 * 1024 for v in large) and all(len(v) < 1024 for v in small)
    profile = describe([string_sample(v) for v in large + small])
    assert profile.large_bytes_share == sum(map(len, large)) / sum(map(len, large + small))
    # Extrapolated from the heads: the share it saves is near what zstd saves on the whole values (the
    # heads' own ratio is far off).
    saved = 1 - zstd_of(large)
    assert abs((1 - profile.large_zstd_ratio) - saved) < 0.03 * saved
    assert abs((1 - zstd_of([v[:HEAD_BYTES] for v in large])) - saved) > 0.06 * saved
    assert profile.json_bytes_share == 1.0
    assert profile.hash_large_json_share == 0.0

    big_field = json_bytes(document(25, seed=9))
    assert 4 * 1024 < len(big_field)
    fields, values = [b"doc", b"name"], [big_field, b"short name"]
    hashes = describe([collection_sample("hash", values, fields=fields)])
    assert hashes.hash_large_json_share == len(big_field) / (len(big_field) + 10 + 3 + 4)
    saved = 1 - zstd_of([big_field])
    assert abs((1 - hashes.hash_large_json_zstd_ratio) - saved) < 0.03 * saved
