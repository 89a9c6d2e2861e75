"""Every YAML case of tests/values/cases/<CODE>.yml as a test: the serialization checks on values written to a
real Redis 7.0, saved and analysed like any dump.

A case has ``keys`` (``key`` with ``$i`` numbered from 0, ``count``, and ``value``: ``json_records: [low, high]``
documents of that many order records, optionally ``compressed: zstd`` or ``encoded: msgpack``; ``text: n`` bytes
of text; ``hash: {field: value, ...}``), optional ``options`` (the patterns pass's), and ``expect``: the findings
of the case's code in pattern order, each a mapping of fields to compare (``pattern``, ``n_keys``, ``severity``,
``message_contains``, ``details``: a subset). No ``expect`` is a case that must pass clean.
"""

import pathlib
import random

import msgpack
import pytest
import zstandard
from expected_findings import assert_findings_match, yaml_cases
from servers import server
from value_fixtures import document, json_bytes

import rdbscope
from rdbscope.config import Config
from rdbscope.passes.patterns import PatternOptions

pytestmark = pytest.mark.server

CASES_DIR = pathlib.Path(__file__).parent / "cases"


def load_cases():
    return yaml_cases(CASES_DIR, "check")


def value_of(spec, rng, i):
    if "hash" in spec:
        return {field: value_of(inner, rng, i) for field, inner in spec["hash"].items()}
    if "text" in spec:
        return ("note " * spec["text"])[:spec["text"]].encode()
    low, high = spec["json_records"]
    doc = document(rng.randrange(low, high + 1), seed=i)
    if spec.get("encoded") == "msgpack":
        return msgpack.packb(doc)
    data = json_bytes(doc)
    return zstandard.ZstdCompressor(level=3).compress(data) if spec.get("compressed") == "zstd" else data


@pytest.fixture(scope="module")
def redis_70():
    from make_sample_dumps import RunningServer

    with RunningServer(server("redis-7.0"), {"save": "", "appendonly": "no"}) as running:
        yield running


@pytest.mark.parametrize("code, case", load_cases())
def test_case(redis_70, tmp_path, code, case):
    client = redis_70.client(0)
    client.flushall()
    rng = random.Random(7)
    pipe = client.pipeline(transaction=False)
    for spec in case["keys"]:
        for i in range(spec.get("count", 1)):
            key, value = spec["key"].replace("$i", str(i)), value_of(spec["value"], rng, i)
            if isinstance(value, dict):
                pipe.hset(key, mapping=value)
            else:
                pipe.set(key, value)
    pipe.execute()
    client.execute_command("SAVE")
    dump = tmp_path / "case.rdb"
    dump.write_bytes(redis_70.dump_path.read_bytes())
    options = {"serialization_min_saving_bytes": 10_000, **(case.get("options") or {})}
    res = rdbscope.analyze(dump, Config(patterns=PatternOptions(**options)))
    findings = sorted((f for f in res.finding_list if f.code == code), key=lambda f: (f.db, f.pattern))
    assert_findings_match(findings, case.get("expect") or [])
