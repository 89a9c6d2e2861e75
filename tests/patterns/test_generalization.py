"""Separators and {*}: decided from the data, with tunable thresholds."""

import random
from collections import Counter

import pytest

from rdbscope.patterns import Thresholds, infer_patterns

WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike".split()


def counts(keys, thresholds=None):
    out = infer_patterns([k.encode() for k in keys], thresholds).to_pylist()
    return Counter(out)


def names(rng, n, length=7):
    made = set()
    while len(made) < n:
        made.add("".join(rng.choice("abcdefghijklmnop") for _ in range(length)))
    return sorted(made)


def test_dash_inside_a_value_is_not_a_separator():
    rng = random.Random(1)
    keys = [f"cache:product:SKU-{n}" for n in rng.sample(range(1000, 99999), 200)]
    keys += [f"lock:payment:order-{n}" for n in rng.sample(range(10**6), 200)]
    assert counts(keys) == {"cache:product:SKU-{id}": 200, "lock:payment:order-{id}": 200}


def test_letter_coded_skus_become_one_variable_with_their_constant_prefix():
    rng = random.Random(2)
    keys = sorted({f"cache:item:SKU-{rng.choice('ABCDEFGH')}{rng.randrange(10**5):05d}" for _ in range(500)})
    assert counts(keys) == {"cache:item:SKU-{*}": len(keys)}


def test_underscore_inside_a_word_stays():
    keys = [f"user_profile:{i}" for i in range(50)] + [f"user_settings:{i}" for i in range(50)]
    assert counts(keys) == {"user_profile:{id}": 50, "user_settings:{id}": 50}


def test_slugs_of_varying_length_are_one_variable():
    rng = random.Random(3)
    slugs = {"-".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 6))) for _ in range(400)}
    assert counts(f"blog:post:{s}" for s in slugs) == {"blog:post:{*}": len(slugs)}


@pytest.mark.parametrize("template", ["user:{}:profile", "user.{}.profile", "user/{}/profile",
                                      "user|{}|profile", "user#{}#profile", "user_{}_profile"])
def test_user_names_are_a_variable_whatever_the_separator(template):
    users = names(random.Random(4), 300)
    expected = template.format("{*}")
    assert counts(template.format(u) for u in users) == {expected: 300}


def test_a_few_literal_values_stay_literal():
    assert counts(["user:ann:profile", "user:bob:profile", "user:cyd:profile"]) == {
        "user:ann:profile": 1, "user:bob:profile": 1, "user:cyd:profile": 1}


def test_many_siblings_with_many_keys_each_stay_literal():
    attributes = ["title", "price", "stock", "rating", "reviews", "images", "tags", "brand", "color", "size",
                  "weight", "seller"]
    keys = [f"item:{i}:{a}" for i in range(100) for a in attributes]
    assert counts(keys) == {f"item:{{id}}:{a}": 100 for a in attributes}


def test_a_big_sibling_keeps_its_branch_beside_many_one_offs():
    rng = random.Random(5)
    keys = [f"cache:product:{i}" for i in range(2000)]
    keys += [f"cache:{n}:meta" for n in names(rng, 300)]
    assert counts(keys) == {"cache:product:{id}": 2000, "cache:{*}:meta": 300}


def test_a_heavy_user_is_still_a_user():
    rng = random.Random(6)
    users = names(rng, 200)
    keys = [f"chat:{u}:msgs:{m}" for u in users for m in range(3)]
    keys += [f"chat:{users[0]}:msgs:{m}" for m in range(3, 5000)]
    assert counts(keys) == {"chat:{*}:msgs:{id}": len(keys)}


def test_hash_tag_values_keep_their_braces():
    users = names(random.Random(7), 100)
    assert counts(f"feed:{{{u}}}:timeline" for u in users) == {"feed:{{*}}:timeline": 100}


def test_flat_keys_stay_literal_unless_many_share_a_shape():
    assert counts(["config", "leader", "health", "temp"]) == {"config": 1, "leader": 1, "health": 1, "temp": 1}
    rng = random.Random(8)
    tokens = {"".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJ") for _ in range(10)) for _ in range(100)}
    assert counts(tokens) == {"{*}": len(tokens)}


def test_the_namespace_segment_is_never_a_variable():
    keys = [f"{n}:profile" for n in names(random.Random(9), 200)]
    assert len(counts(keys)) == 200


def test_version_siblings_stay_apart():
    keys = [f"rate:api:user:{i}:v{v}" for i in range(100) for v in (1, 2)]
    keys += [f"cache:v{v}:user:{i}" for i in range(100) for v in (2, 3)]
    assert counts(keys) == {"rate:api:user:{id}:v1": 100, "rate:api:user:{id}:v2": 100,
                            "cache:v2:user:{id}": 100, "cache:v3:user:{id}": 100}


def test_numbered_words_become_word_and_id():
    keys = [f"cache:fragment:len{n}" for n in range(16, 48)] + [f"sensor:temps:room{n}" for n in range(5)]
    assert counts(keys) == {"cache:fragment:len{id}": 32, "sensor:temps:room{id}": 5}


def test_date_and_id_in_the_same_place_stay_apart_when_followed_differently():
    keys = [f"order:2024050{d}:{i}" for d in range(1, 10) for i in range(20)]
    keys += [f"order:{i}:items" for i in range(100)]
    assert counts(keys) == {"order:{date}:{id}": 180, "order:{id}:items": 100}


def test_hex_ids_that_happen_to_be_all_digits_join_the_hex():
    keys = [f"session:{h}" for h in ("abc123def456", "0a1b2c3d4e5f", "123456789012", "9f8e7d6c5b4a")]
    assert counts(keys) == {"session:{hex}": 4}


def test_thresholds_are_parameters():
    users = names(random.Random(10), 300)
    keys = [f"user:{u}:profile" for u in users]
    assert counts(keys) == {"user:{*}:profile": 300}
    strict = Thresholds(min_distinct=1000, many_distinct=1000)
    assert len(counts(keys, strict)) == 300
