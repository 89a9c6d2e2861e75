"""Patterns of the keyspace written by real libraries (sample_dumps/make_library_dump.py)."""

import json
import re

import pytest
from conftest import SAMPLE_DUMPS

import rdbscope
from rdbscope.patterns import infer_patterns

TRUTH = json.loads((SAMPLE_DUMPS / "libraries.json").read_text())
FAMILIES = [(f["written_by"], f["regex"], f["pattern"]) for f in TRUTH["families"]] + [
    ("application", f["regex"], f["pattern"]) for f in TRUTH["user_families"]]


@pytest.fixture(scope="module")
def patterns_by_key():
    keys = rdbscope.load(SAMPLE_DUMPS / "libraries.rdb").table.column("key")
    return dict(zip((k.decode() for k in keys.to_pylist()), infer_patterns(keys).to_pylist(), strict=True))


def test_the_dump_holds_what_the_oracle_says(patterns_by_key):
    assert set(patterns_by_key) == set(TRUTH["keys"])


@pytest.mark.parametrize(("written_by", "regex", "pattern"), FAMILIES, ids=[f[2] for f in FAMILIES])
def test_every_library_family_is_one_pattern_with_its_literal_parts(patterns_by_key, written_by, regex, pattern):
    members = [k for k in patterns_by_key if re.fullmatch(regex, k)]
    assert members, regex
    assert {patterns_by_key[k] for k in members} == {pattern}
    assert sum(1 for p in patterns_by_key.values() if p == pattern) == len(members)
    assert {TRUTH["keys"][k]["written_by"] for k in members} == {written_by}


def test_a_number_the_same_in_every_key_stays_literal():
    keys = [f"shop:1:product:{n}:price".encode() for n in range(40)] + [
        f"LIMITS:LIMITER/login/10.0.{n}.1/1000/1/hour".encode() for n in range(40)]
    assert set(infer_patterns(keys).to_pylist()) == {"shop:1:product:{id}:price",
                                                      "LIMITS:LIMITER/login/{ip}/1000/1/hour"}


def test_a_number_that_varies_or_has_few_keys_stays_a_placeholder():
    varying = [f"shop:{n % 3}:product:{n}:price".encode() for n in range(40)]
    assert set(infer_patterns(varying).to_pylist()) == {"shop:{id}:product:{id}:price"}
    # First and last keys agree, keys between them do not: read in the middle of the key and at its start.
    windows = [f"LIMITS:LIMITER/login/10.0.{n}.1/{1000 if n in (0, 39) else n}/1/hour".encode() for n in range(40)]
    assert set(infer_patterns(windows).to_pylist()) == {"LIMITS:LIMITER/login/{ip}/{id}/1/hour"}
    few = [f"shop:1:product:{n}:price".encode() for n in range(4)]
    assert set(infer_patterns(few).to_pylist()) == {"shop:{id}:product:{id}:price"}


def test_an_id_glued_to_a_word_keeps_the_word():
    rng = __import__("random").Random(3)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
    keys = [("sessions.cache" + "".join(rng.choice(alphabet) for _ in range(32))).encode() for _ in range(50)]
    assert set(infer_patterns(keys).to_pylist()) == {"sessions.cache{*}"}


def test_names_sharing_first_letters_are_not_a_glued_word():
    names = ["alice", "alan", "albert", "alfred", "alma", "alonzo", "alvin", "alexandra", "alberto", "alicia",
             "alistair", "allison"]
    keys = [f"profile:{name}".encode() for name in names]
    assert set(infer_patterns(keys).to_pylist()) == {"profile:{*}"}
