"""The seeds' recommended keys lint clean; the keys they warn against get the expected findings."""

import pytest
from conftest import SEEDS, SEEDS_MISSING
from rule_keyspace import key_table, lint_codes
from seed_examples import BAD, GOOD

from rdbscope.config import config_from_mapping
from rdbscope.rules import PRESETS


def seed_text(seed):
    paths = sorted(SEEDS.glob(f"{seed}_*.txt"))
    if not paths:
        pytest.skip(f"seed {seed}: {SEEDS_MISSING}")
    return paths[0].read_text(encoding="utf-8")


def selection(names):
    codes = []
    for name in names:
        codes.extend(PRESETS.get(name, (name,)))
    return config_from_mapping({"extend_select": codes}) if codes else None


@pytest.mark.parametrize("keyspace", [pytest.param(k, id=f"{k.seed}-{k.title}") for k in GOOD])
def test_examples_are_quoted_from_their_seed(keyspace):
    text = seed_text(keyspace.seed)
    assert len(keyspace.keys) == len(keyspace.quotes)
    missing = [quote for quote in keyspace.quotes if quote not in text]
    assert not missing


@pytest.mark.parametrize("example", [pytest.param(b, id=f"{b.seed}-{b.key}") for b in BAD])
def test_bad_examples_are_quoted_from_their_seed(example):
    assert example.quote in seed_text(example.seed)


@pytest.mark.parametrize("keyspace", [pytest.param(k, id=f"{k.seed}-{k.title}") for k in GOOD])
def test_recommended_keys_have_no_findings(keyspace):
    keys = key_table(list(keyspace.keys))
    base = {"rules": keyspace.options} if keyspace.options else {}
    assert lint_codes(keys, config_from_mapping(base) if base else None) == set()
    for preset in keyspace.presets:
        config = config_from_mapping({**base, "extend_select": list(PRESETS[preset])})
        assert lint_codes(keys, config) == set(), preset


@pytest.mark.parametrize("example", [pytest.param(b, id=f"{b.seed}-{b.key}-{'+'.join(b.select)}") for b in BAD])
def test_keys_warned_against_get_their_findings(example):
    keys = key_table([example.key])
    found = lint_codes(keys, selection(example.select))
    assert {code for code, _pattern in found} == example.codes
