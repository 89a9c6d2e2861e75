"""Per-key features the rules share, against plain-Python references on random keys."""

import random

import numpy as np
import pyarrow as pa
import pytest
from conftest import SAMPLE_DUMPS
from rule_keyspace import key_table, rule_context, run_rule

import rdbscope
from rdbscope.rdb._memory import MemoryModel
from rdbscope.rdb.cluster import key_slot, key_slots
from rdbscope.rdb.keytext import key_text
from rdbscope.rdb.memory import ALLOCATORS, L_REDIS72, LAYOUTS
from rdbscope.rules import keybytes
from rdbscope.rules.cluster import node_of_slot, slot_ranges
from rdbscope.rules.compact import compact_memory, memory_model
from rdbscope.rules.hashtags import HashTags
from rdbscope.rules.slotinfo import slot_ranges_text

ALPHABET = [b"a", b"Z", b"9", b":", b" ", b"\t", b"\n", b"\x00", b"\x7f", b'"', b"'", b"\\", b"{", b"}", b"/", b"@",
            "é".encode(), "用".encode(), "🍕".encode(), b"\xff", b"\xc3", b"\x80", b"\xed\xa0\x80", b"\xc2\x85"]


def random_keys(n=3000, seed=3):
    rng = random.Random(seed)
    return [b"".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 12))) for _ in range(n)]


def reference_flags(key):
    flags = 0
    for byte in key:
        if byte in b" \t\n\v\f\r":
            flags |= keybytes.WHITESPACE
        elif byte in b"\"'`":
            flags |= keybytes.QUOTE
        elif byte == ord("\\"):
            flags |= keybytes.BACKSLASH
        elif byte < 0x20 or byte == 0x7F:
            flags |= keybytes.CONTROL
        elif byte >= 0x80:
            flags |= keybytes.HIGH
        elif byte == ord("{"):
            flags |= keybytes.BRACE
        elif byte == ord("/"):
            flags |= keybytes.SLASH
        elif byte == ord("@"):
            flags |= keybytes.AT
    return flags


def reference_not_text(key):
    try:
        text = key.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return any(0x80 <= ord(c) <= 0x9F for c in text)


def reference_tag(key):
    start = key.find(b"{")
    if start < 0:
        return None
    end = key.find(b"}", start + 1)
    return key[start + 1:end] if end > start + 1 else None


def test_flags_and_utf8_against_python():
    keys = random_keys()
    array = pa.array(keys, pa.binary()).slice(1)  # an offset into the buffers, as chunks have
    offsets, data = keybytes.key_buffers(array)
    flags = keybytes.key_flags(offsets, data)
    assert flags.tolist() == [reference_flags(k) for k in keys[1:]]
    rows = np.arange(len(keys) - 1)
    assert keybytes.not_utf8_text(offsets, data, rows).tolist() == [reference_not_text(k) for k in keys[1:]]
    assert sum(reference_not_text(k) for k in keys) > 100  # the sample is not trivial


def test_hash_tags_against_the_redis_rule_and_the_slots():
    keys = random_keys(seed=4) + [b"{user:1000}:a", b"{user:1000}:b", b"foo{}{bar}", b"{{x}}"]
    offsets, data = keybytes.key_buffers(pa.array(keys, pa.binary()))
    flags = keybytes.key_flags(offsets, data)
    tags = HashTags.find(offsets, data, np.flatnonzero(flags & keybytes.BRACE))
    expected = {i: reference_tag(k) for i, k in enumerate(keys) if reference_tag(k) is not None}
    assert tags.rows.tolist() == sorted(expected)
    assert [tags.texts[t] for t in tags.tag] == \
        [key_text(expected[int(i)]) for i in tags.rows]  # tags as keys are shown (rdb.keytext)
    slots = key_slots(pa.array(keys, pa.binary())).to_numpy()
    for row in tags.rows[:200]:
        assert slots[row] == key_slot(expected[int(row)])
    assert tags.n_keys[tags.texts.index("user:1000")] == 2


def test_slot_ranges_as_redis_cli_creates_them():
    assert slot_ranges(3) == [(0, 5460), (5461, 10922), (10923, 16383)]
    assert slot_ranges(6)[-1] == (13653, 16383) and slot_ranges(1) == [(0, 16383)]
    nodes = node_of_slot(5)
    assert np.bincount(nodes).tolist() == [b - a + 1 for a, b in slot_ranges(5)]
    assert slot_ranges_text([7, 1, 2, 3, 9, 10]) == "1-3, 7, 9-10"


def test_compact_memory_is_the_models_per_key():
    model = MemoryModel(L_REDIS72, ALLOCATORS["jemalloc"], 0)
    klen, ttl, blob = np.array([10, 10, 30, 10]), np.array([0, 1, 0, 0]), np.array([100, 100, 5000, 100])
    assert compact_memory(model, klen, ttl, blob).tolist() == \
        [model.compact_size(int(k), int(t), int(b)) for k, t, b in zip(klen, ttl, blob, strict=True)]


@pytest.mark.parametrize("writer, layout", [("7.0.15", "redis-7.0"), ("7.2.4", "redis-7.2"), ("8.2.3", "redis-8"),
                                            ("6.2.14", "redis-6")])
def test_memory_model_from_the_writer(writer, layout):
    info = key_table(["a"], writer=writer).info
    assert LAYOUTS[memory_model(info).layout][0] == layout


def test_listpack_saving_by_hand():
    """ENC001: a 513-field hash of 6000 bytes in the dump becomes a listpack of
    value bytes + one back-length byte per entry + 7 header bytes."""
    keys = key_table([{"key": "inventory:warehouse:b", "type": "hash", "encoding": "hashtable", "n_elements": 513,
                       "max_element_bytes": 20, "est_memory_bytes": 32912, "rdb_bytes": 6000}])
    model = MemoryModel(L_REDIS72, ALLOCATORS["jemalloc"], 0)
    value = 6000 - (1 + 1 + len("inventory:warehouse:b"))
    compact = model.compact_size(21, 0, value + 2 * 513 + 7)
    [finding] = run_rule("ENC001", keys)
    assert finding.details_dict["est_saving_bytes"] == 32912 - compact
    assert 7000 < compact < 8000  # the server reports 7208 for the 512-field sibling


def test_tiny_strings_saving_by_hand():
    """ENC002: 2000 keys counter:page:N:views of 4-byte values into 20 hashes of 100 fields;
    a field is the key without its 13-byte prefix counter:page:."""
    keys = key_table([{"key": "counter:page:$i:views", "count": 2000, "n_elements": 4, "est_memory_bytes": 72}])
    mean_key = sum(len(f"counter:page:{i}:views") for i in range(2000)) / 2000
    blob = 7 + 100 * ((mean_key - 13) + 2 + 4 + 2)
    model = MemoryModel(L_REDIS72, ALLOCATORS["jemalloc"], 0)
    per_hash = model.compact_size(13 + 2, 0, int(np.ceil(blob)))
    [finding] = run_rule("ENC002", keys)
    assert finding.details_dict["est_saving_bytes"] == 2000 * 72 - 20 * per_hash


def _pattern_level_keyspaces():
    from legacy_keyspace import legacy_keys

    yield "random", key_table(random_keys(seed=9))
    yield "legacy", legacy_keys()
    yield "dates and times", key_table([{"key": "report:2024/05/0$i", "count": 9}, "log:2024-05-01 10:00:00:app",
                                        {"key": "log:2024-05-0$i 10:00:00:app", "count": 9},
                                        {"key": "mail:ada$i@example.com", "count": 30}])
    for name in ("redis-8.2-default", "valkey-8.1-default"):
        yield name, rdbscope.load(SAMPLE_DUMPS / f"{name}.rdb")


@pytest.mark.parametrize("name, keys", list(_pattern_level_keyspaces()), ids=lambda v: v if isinstance(v, str) else "")
def test_flags_from_patterns_are_the_flags_of_the_bytes(name, keys):
    """Where a pattern fixes its keys' characters the rules read the pattern, not the bytes:
    that must give what reading every byte gives."""
    ctx = rule_context(keys)
    full = keybytes.key_flags(*keybytes.key_buffers(keys.to_arrow()["key"]))
    assert ctx.key_flags.tolist() == full.tolist()
    assert not ctx.read_groups.all()
