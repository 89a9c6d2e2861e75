"""The patterns pass: pattern table, namespace tree, per-key pattern column."""

import pyarrow as pa
from keytables import CTIME_MS, key, make_keys

import rdbscope


def profile_and_cart_keys(est=None):
    rows = [key(f"user:{i}:profile", rdb_bytes=10 * i, est_memory_bytes=est and est * i,
                encoding="embstr" if i == 4 else "raw", ttl_s={1: 100, 2: 300}.get(i))
            for i in (1, 2, 3, 4)]
    rows += [key(f"user:{i}:cart", "hash", rdb_bytes=1000, est_memory_bytes=est and 5000) for i in (1, 2)]
    return rows


def patterns_by_name(result):
    return {(r["db"], r["pattern"]): r for r in result.tables["patterns"].to_pylist()}


def test_pattern_table_measures():
    result = rdbscope.analyze(make_keys(profile_and_cart_keys()))
    rows = patterns_by_name(result)
    assert set(rows) == {(0, "user:{id}:profile"), (0, "user:{id}:cart")}
    profile = rows[(0, "user:{id}:profile")]
    assert profile["n_keys"] == 4 and abs(profile["share"] - 4 / 6) < 1e-12
    assert profile["memory_basis"] == "rdb_bytes"
    assert profile["memory_bytes_sum"] == profile["rdb_bytes_sum"] == 100
    assert (profile["rdb_bytes_p50"], profile["rdb_bytes_p90"], profile["rdb_bytes_p99"],
            profile["rdb_bytes_max"]) == (20, 40, 40, 40)
    assert abs(profile["memory_share"] - 100 / 2100) < 1e-12
    assert profile["types"] == ["string"]
    assert profile["encodings"] == ["raw", "embstr"]
    assert profile["n_with_ttl"] == 2 and profile["n_expired"] == 0
    assert (profile["ttl_s_p50"], profile["ttl_s_max"]) == (100, 300)
    assert profile["examples"][0] == "user:1:profile" and len(profile["examples"]) == 3
    cart = rows[(0, "user:{id}:cart")]
    assert cart["n_with_ttl"] == 0 and cart["ttl_s_p50"] is None
    # largest memory first
    assert result.tables["patterns"]["pattern"][0].as_py() == "user:{id}:cart"
    assert all(f.metadata[b"doc"] for f in result.tables["patterns"].schema)


def test_memory_estimates_are_used_when_present():
    rows = profile_and_cart_keys(est=1000)
    rows.append(key("user:9:profile", rdb_bytes=7))  # no estimate: falls back to rdb_bytes
    result = rdbscope.analyze(make_keys(rows))
    profile = patterns_by_name(result)[(0, "user:{id}:profile")]
    assert result.memory_basis == "est_memory_bytes" and profile["memory_basis"] == "est_memory_bytes"
    assert profile["memory_bytes_sum"] == 1000 * (1 + 2 + 3 + 4) + 7
    assert profile["rdb_bytes_sum"] == 107
    assert profile["memory_bytes_max"] == 4000


def test_ttl_measures_use_the_dump_ctime_never_the_clock():
    rows = [key(f"job:{i}", expire_at_ms=CTIME_MS + 1000 * s) for i, s in enumerate((-50, 10, 20, 30))]
    profile = patterns_by_name(rdbscope.analyze(make_keys(rows)))[(0, "job:{id}")]
    assert profile["n_with_ttl"] == 4 and profile["n_expired"] == 1
    assert (profile["ttl_s_p50"], profile["ttl_s_max"]) == (10, 30)  # the expired one counts 0
    no_ctime = patterns_by_name(rdbscope.analyze(make_keys(rows, ctime_s=None)))[(0, "job:{id}")]
    assert no_ctime["n_with_ttl"] == 4
    assert no_ctime["ttl_s_p50"] is None and no_ctime["n_expired"] is None


def test_same_pattern_in_two_dbs_is_two_rows():
    rows = [key(f"lock:order:{i}", db=db, ttl_s=30) for db in (0, 5) for i in range(3)]
    rows_by_pattern = patterns_by_name(rdbscope.analyze(make_keys(rows)))
    assert rows_by_pattern[(0, "lock:order:{id}")]["n_keys"] == 3
    assert rows_by_pattern[(5, "lock:order:{id}")]["n_keys"] == 3


def test_keys_get_a_pattern_column_in_order():
    rows = profile_and_cart_keys() + [key(b"caf\xe9:menu")]
    result = rdbscope.analyze(make_keys(rows))
    table = result.keys.to_arrow()
    assert table.column_names[:2] == ["db", "key"] and "pattern" in table.column_names
    assert table["pattern"].to_pylist()[:5] == ["user:{id}:profile"] * 4 + ["user:{id}:cart"]
    frame = result.keys.to_pandas()
    assert frame["key"].iloc[-1] == "caf\\xe9:menu"
    examples = patterns_by_name(result)[(0, frame["pattern"].iloc[-1])]["examples"]
    assert examples == ["caf\\xe9:menu"]


def test_namespace_tree():
    rows = profile_and_cart_keys() + [key("session:1", ttl_s=5)]
    tree = rdbscope.analyze(make_keys(rows)).tables["namespaces"].to_pylist()
    nodes = {(r["db"], r["node"]): r for r in tree}
    user = nodes[(0, "user")]
    assert (user["depth"], user["parent"], user["n_patterns"], user["n_keys"]) == (1, None, 2, 6)
    assert user["memory_bytes_sum"] == 2100 and user["rdb_bytes_p50"] == 30 and user["rdb_bytes_max"] == 1000
    assert user["types"] == ["string", "hash"] and user["n_with_ttl"] == 2
    assert nodes[(0, "user:{id}")]["n_keys"] == 6 and nodes[(0, "user:{id}")]["parent"] == "user"
    leaf = nodes[(0, "user:{id}:profile")]
    assert (leaf["depth"], leaf["n_patterns"], leaf["n_keys"], leaf["memory_bytes_sum"]) == (3, 1, 4, 100)
    assert nodes[(0, "session")]["n_keys"] == 1
    order = [r["node"] for r in tree]
    assert order.index("user") < order.index("user:{id}") < order.index("user:{id}:cart")
    # siblings by memory: the cart pattern holds more than the profiles
    assert order.index("user:{id}:cart") < order.index("user:{id}:profile")
    assert order[0] == "user"  # the user namespace holds the most memory


def test_empty_dump():
    result = rdbscope.analyze(make_keys([]))
    assert result.tables["patterns"].num_rows == 0
    assert result.tables["namespaces"].num_rows == 0
    assert result.finding_list == ()
    assert isinstance(result.tables["expiry_timeline"], pa.Table)
