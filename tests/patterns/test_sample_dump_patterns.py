"""Patterns of the real sample dumps (keys written by sample_dumps/make_sample_dumps.py)."""

import re

import pytest
from conftest import sample_dumps

import rdbscope
from rdbscope.patterns import infer_patterns, pattern_segments

# Families the generator script writes: every key matching the regex, and no
# other key, must get the pattern.
FAMILIES = [
    (r"user:\d+:profile", "user:{id}:profile"),
    (r"user:\d+:settings", "user:{id}:settings"),
    (r"session:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "session:{uuid}"),
    (r"session:meta:[0-9a-f-]{36}", "session:meta:{uuid}"),
    (r"rate:ip:\d+\.\d+\.\d+\.\d+", "rate:ip:{ip}"),
    (r"cache:product:SKU-[A-H]\d{5}", "cache:product:SKU-{*}"),
    (r"notifications:user:\d+", "notifications:user:{id}"),
    (r"tags:post:\d+", "tags:post:{id}"),
    (r"leaderboard:weekly:2030-w\d\d", "leaderboard:weekly:{date}"),
]
DEFAULT_ONLY = [
    (r"counter:page:[a-z]+-[a-z]+:views", "counter:page:{*}:views"),
    (r"stats:bytes:disk\d\d", "stats:bytes:disk{id}"),
    (r"lock:order:\d+", "lock:order:{id}"),
    (r"job:\d+", "job:{id}"),
    (r"product:SKU-[A-H]\d{5}:viewers", "product:SKU-{*}:viewers"),
]

DUMPS = sample_dumps()


def patterns_of(path):
    keys = rdbscope.load(path).table.column("key")
    return keys.to_pylist(), infer_patterns(keys).to_pylist()


@pytest.mark.parametrize("path", DUMPS, ids=[p.name for p in DUMPS])
def test_families_get_their_pattern(path):
    keys, patterns = patterns_of(path)
    families = FAMILIES + (DEFAULT_ONLY if "default" in path.name else [])
    for regex, pattern in families:
        matching = {k for k in keys if re.fullmatch(regex.encode(), k)}
        named = {k for k, p in zip(keys, patterns, strict=True) if p == pattern}
        assert matching == named, pattern
    assert len(set(patterns)) < len(keys) / 4


@pytest.mark.parametrize("path", [p for p in DUMPS if "default" in p.name], ids=lambda p: p.name)
def test_odd_keys_of_the_default_dumps(path):
    keys, patterns = patterns_of(path)
    by_key = dict(zip(keys, patterns, strict=True))
    assert by_key[b"bin:\xff\xfe\x00token"] == "bin:\\xff\\xfe\x00token"
    assert by_key[b"caf\xe9:menu"] == "caf\\xe9:menu"
    assert by_key[b"report:csv:2030-01"] == "report:csv:{date}"
    assert by_key[b"stats:int64:max"] == "stats:int64:max"
    for pattern in set(patterns):
        assert pattern_segments(pattern)[-1] == pattern
