"""The bigkeys pass: each BIG finding fires just over its threshold and not at it."""

import pytest
from keytables import key, make_keys

import rdbscope
from rdbscope.config import Config
from rdbscope.passes.bigkeys import BigKeyOptions

MB = 1024 * 1024


def findings(rows, **options):
    result = rdbscope.analyze(make_keys(rows), Config(bigkeys=BigKeyOptions(**options)))
    return result, [f for f in result.finding_list if f.code.startswith("BIG")]


def test_big_string_fires_over_10_kb_only():
    rows = [key("page:1", n_elements=10_240), key("page:2", n_elements=10_241),
            key("page:3", n_elements=50_000), key("note:1", n_elements=20_000)]
    _, found = findings(rows)
    big = {f.pattern: f for f in found if f.code == "BIG001"}
    assert set(big) == {"page:{id}", "note:{id}"}
    page = big["page:{id}"]
    assert page.n_keys == 2 and page.name == "big-string"
    assert page.examples == ("page:3", "page:2")  # largest first
    assert page.details_dict["largest"] == 50_000 and page.details_dict["threshold"] == 10_240
    assert page.est_memory_bytes == 200 and page.details_dict["memory_basis"] == "rdb_bytes"
    assert "longer than 10.0 KB" in page.message


@pytest.mark.parametrize("type_name", ["hash", "list", "set", "zset"])
def test_big_collection_per_type(type_name):
    rows = [key(f"{type_name}:{i}", type_name, n_elements=n) for i, n in enumerate((5000, 5001, 10))]
    _, found = findings(rows)
    assert [(f.code, f.n_keys, f.examples) for f in found] == [("BIG002", 1, (f"{type_name}:1",))]
    assert found[0].details_dict["type"] == type_name
    _, found = findings(rows, **{"hash": {"hash_fields": 9}, "list": {"list_elements": 9},
                                 "set": {"set_members": 9}, "zset": {"zset_members": 9}}[type_name])
    assert found[0].n_keys == 3


def test_big_stream():
    rows = [key("events:a", "stream", n_elements=10_000), key("events:b", "stream", n_elements=10_001)]
    _, found = findings(rows)
    assert [(f.code, f.examples) for f in found] == [("BIG003", ("events:b",))]
    assert not findings(rows, stream_entries=20_000)[1]


def test_big_memory_uses_estimates_when_there_are_some():
    rows = [key("blob:1", rdb_bytes=MB), key("blob:2", rdb_bytes=MB + 1)]
    _, found = findings(rows)
    assert [(f.code, f.n_keys, f.est_memory_bytes) for f in found] == [("BIG004", 1, MB + 1)]
    rows = [key("blob:1", rdb_bytes=10, est_memory_bytes=2 * MB), key("blob:2", rdb_bytes=MB + 1,
                                                                      est_memory_bytes=100)]
    _, found = findings(rows)
    assert [(f.code, f.examples) for f in found] == [("BIG004", ("blob:1",))]
    assert found[0].details_dict["memory_basis"] == "est_memory_bytes"
    assert "of memory" in found[0].message


def test_a_key_over_two_thresholds_is_one_finding():
    rows = [key("cart:1", "hash", n_elements=6000, rdb_bytes=2 * MB), key("cart:2", "hash", n_elements=7000),
            key("cart:3", "hash", n_elements=10, rdb_bytes=3 * MB)]
    found = sorted(findings(rows)[1], key=lambda f: f.code)
    assert [(f.code, f.examples) for f in found] == [("BIG002", ("cart:2", "cart:1")), ("BIG004", ("cart:3",))]
    collection = found[0]
    assert collection.n_keys == 2 and collection.est_memory_bytes == 2 * MB + 100
    assert "2 hash keys of cart:{id} with more than 5,000 elements, 1 of them over 1.0 MB of memory" \
        in collection.message
    assert collection.details_dict["thresholds_passed"] == [
        {"measure": "n_elements", "threshold": 5000, "n_keys": 2},
        {"measure": "memory_bytes", "threshold": MB, "n_keys": 1}]
    (alone,) = findings([rows[0]])[1]
    assert alone.code == "BIG002" and "with more than 5,000 elements and over 1.0 MB of memory" in alone.message
    assert found[1].details_dict["thresholds_passed"] == [{"measure": "memory_bytes", "threshold": MB, "n_keys": 1}]


def test_memory_concentrated_in_a_few_keys():
    rows = [key(f"tenant:{i}", rdb_bytes=1000) for i in range(30)]
    rows += [key(f"tenant:{100 + i}", rdb_bytes=MB) for i in range(3)]
    _, found = findings(rows)
    concentrated = [f for f in found if f.code == "BIG005"]
    assert len(concentrated) == 1
    f = concentrated[0]
    assert f.pattern == "tenant:{id}" and f.n_keys == 3 and f.est_memory_bytes == 3 * MB
    assert set(f.examples) == {"tenant:100", "tenant:101", "tenant:102"}
    assert f.details_dict["share"] > 0.99
    # evenly spread memory, or too little of it, or too few keys: nothing
    even = [key(f"tenant:{i}", rdb_bytes=MB) for i in range(30)]
    assert not [f for f in findings(even)[1] if f.code == "BIG005"]
    assert not [f for f in findings(rows, concentration_min_memory_bytes=10 * MB)[1] if f.code == "BIG005"]
    assert not [f for f in findings(rows, concentration_min_keys=40)[1] if f.code == "BIG005"]


def test_big_keys_table_lists_every_code():
    rows = [key("page:1", n_elements=20_000, rdb_bytes=2 * MB), key("page:2", n_elements=1)]
    result, _ = findings(rows)
    table = result.tables["big_keys"].to_pylist()
    assert [(r["key"], r["codes"]) for r in table] == [("page:1", ["BIG001", "BIG004"])]


def test_top_keys_overall_and_per_type():
    rows = [key(f"s:{i}", rdb_bytes=100 + i, n_elements=i) for i in range(5)]
    rows += [key(f"h:{i}", "hash", rdb_bytes=50 * i, n_elements=100 * i) for i in range(5)]
    result, _ = findings(rows, top_n=2)
    top = result.tables["top_keys"].to_pylist()
    by = {}
    for row in top:
        by.setdefault((row["ranking"], row["scope"]), []).append((row["rank"], row["key"]))
    assert by[("memory", "all")] == [(1, "h:4"), (2, "h:3")]
    assert by[("memory", "string")] == [(1, "s:4"), (2, "s:3")]
    assert by[("length", "all")] == [(1, "h:4"), (2, "h:3")]
    assert by[("length", "hash")] == [(1, "h:4"), (2, "h:3")]
    assert ("memory", "list") not in by


def test_top_keys_ties_go_to_the_earlier_key():
    rows = [key(f"k:{i}", rdb_bytes=7) for i in range(100)]
    result, _ = findings(rows, top_n=3)
    top = [r["key"] for r in result.tables["top_keys"].to_pylist() if r["scope"] == "all"
           and r["ranking"] == "memory"]
    assert top == ["k:0", "k:1", "k:2"]


def test_nothing_big_nothing_found():
    result, found = findings([key(f"user:{i}", n_elements=10) for i in range(10)])
    assert found == [] and result.tables["big_keys"].num_rows == 0
