"""est_memory_bytes against MEMORY USAGE … SAMPLES 0 of the server that wrote each sample dump.

The oracle is ``memory_usage_loaded``: what the server reported after loading its
own dump (sample_dumps/make_sample_dumps.py). The bar (issue 14): per dump, the
median error is 0, 95% of keys are within 2%, every type's total and the whole
dump's total are within 1%, but for the type totals in ``OPEN_GAPS``.
"""

import json
import statistics
import sys

import pytest
from conftest import CORPUS, SAMPLE_DUMPS, needs_corpus, sample_dumps

import rdbscope
from rdbscope.rdb import _memory
from rdbscope.rdb.memory import ALLOCATORS, LAYOUT_CODES, LAYOUTS, choose_layout

# The allocator is a property of the build, not of the dump: the sample script says which.
sys.path.insert(0, str(SAMPLE_DUMPS))
from make_sample_dumps import BUILD_ALLOCATOR, BUILD_RELEASE  # noqa: E402


def load_with_oracle(path):
    oracle = json.loads(path.with_suffix(".json").read_text())
    assert oracle["info_memory"]["mem_allocator"].split("-")[0] == BUILD_ALLOCATOR[oracle["server"]].split("-")[0]
    keys = rdbscope.load(path, allocator=BUILD_ALLOCATOR[oracle["server"]],
                         list_compress_depth=int(oracle["config"].get("list-compress-depth", 0)),
                         server_version=BUILD_RELEASE.get(oracle["server"]))
    by_key = {(r["db"], bytes.fromhex(r["key"])): r for r in oracle["keys"]}
    return keys, by_key


#: Type totals that still miss 1%, with the bound they meet (issue 14 leaves them open).
#: The first three are chance, not model: the server itself reports other figures for the
#: same dump on every load, so no estimate from the dump can come closer on one draw.
OPEN_GAPS = {
    # Skiplist levels are drawn at random on every load (src/t_zset.c zslRandomLevel). The
    # same zset of 300 members reloaded reports a MEMORY USAGE whose standard deviation is
    # 0.7% on Redis 8.2 and 1.0% on Valkey 9.1 (1.4% at 140 members); averaged over 150
    # such zsets the estimate is within 0.3% of the mean. A dump with one or two skiplist
    # zsets is one draw: up to 2.8% off here (valkey-9.0-nocompress).
    "zset": 0.03,
    # Valkey 8.0's set dicts keep a member alone in its bucket as the bucket's pointer and give
    # each further one an entry of 16 bytes: how many collide follows the process's hash seed (the
    # same 200-member set in the three small variants: 6,440 to 6,600 bytes, 2.5% apart).
    # Valkey 8.1+ hashtables chain a child bucket where more than 7 entries land in a bucket,
    # and where they land follows a hash seed drawn by every server process: a 200-member
    # set reloaded has a standard deviation of 1.4% (150 sets on Valkey 9.1, whose mean the
    # estimate meets within 0.2%); the same 520-field hash reloaded four times on 9.1
    # reported 21,032 to 21,288 bytes. The small variants' sets are one such set (2.1%).
    "set": 0.025,
    "hash": 0.011,
    # Streams on Redis 8.4+: the radix trees' allocations are fitted per key (1.1% on the
    # smallest RDB 12 dump). Valkey's, counted node by node, are exact; the same count does
    # not fit the unstable builds, and the 8.4-8.8 sources that would tell how they count
    # were not at hand.
    "stream": 0.012,
}


#: Types without a model, whose estimate is their serialized size (est_memory_fallback): module
#: values, whose layout only their module knows.
NO_MODEL = ("module",)


@pytest.mark.parametrize("path", sample_dumps(), ids=lambda p: p.stem)
def test_estimates_meet_the_bar(path):
    keys, oracle = load_with_oracle(path)
    errors, by_type, total = [], {}, [0, 0]
    for row in keys.table.select(["db", "key", "type", "est_memory_bytes", "est_memory_fallback"]).to_pylist():
        truth = oracle[(row["db"], row["key"])]
        if row["est_memory_fallback"]:
            assert row["type"] in NO_MODEL
            continue
        actual, estimate = truth["memory_usage_loaded"], row["est_memory_bytes"]
        errors.append(abs(estimate - actual) / actual)
        sums = by_type.setdefault(row["type"], [0, 0])
        sums[0] += actual
        sums[1] += estimate
        total[0] += actual
        total[1] += estimate
    assert len(errors) > 200
    assert statistics.median(errors) == 0
    assert sum(e <= 0.02 for e in errors) / len(errors) >= 0.95
    for name, (actual, estimate) in by_type.items():
        assert abs(estimate - actual) / actual <= OPEN_GAPS.get(name, 0.01), name
    assert abs(total[1] - total[0]) / total[0] <= 0.01


@pytest.mark.parametrize("path", sample_dumps(), ids=lambda p: p.stem)
def test_module_values_fall_back_to_their_serialized_size(path):
    keys, oracle = load_with_oracle(path)
    rows = keys.table.to_pylist()
    modules = [r for r in rows if r["type"] in NO_MODEL]
    assert all(r["est_memory_fallback"] and r["est_memory_bytes"] == r["rdb_bytes"] for r in modules)
    assert not any(r["est_memory_fallback"] for r in rows if r["type"] not in NO_MODEL)


def test_the_model_follows_the_writer():
    path = SAMPLE_DUMPS / "valkey-8.1-default.rdb"
    info = rdbscope.load(path, allocator="libc").info.memory_model
    assert (info.layout, info.allocator, info.exact_match, info.verified) == ("valkey-8", "libc", True, True)
    assert rdbscope.load(SAMPLE_DUMPS / "redis-7.0-lru.rdb").info.memory_model.layout == "redis-7.0"


def test_estimates_are_the_same_in_both_scanners(implementation):
    path = SAMPLE_DUMPS / "redis-8.2-default.rdb"
    reference = rdbscope.load(path, implementation="python").table["est_memory_bytes"]
    assert rdbscope.load(path, implementation=implementation).table["est_memory_bytes"].equals(reference)


def test_the_model_says_what_it_assumed():
    assumed = rdbscope.load(SAMPLE_DUMPS / "redis-7.0-lru.rdb").info.memory_model
    assert (assumed.allocator, assumed.allocator_given, assumed.layout_reason) == \
        ("jemalloc", False, "from redis-ver 7.0.15")
    assert "jemalloc allocator assumed" in assumed.describe() and "--allocator=jemalloc-16" in assumed.describe()
    given = rdbscope.load(SAMPLE_DUMPS / "redis-7.0-lru.rdb", allocator="jemalloc-16").info.memory_model
    assert given.allocator_given and "jemalloc-16 allocator (given)" in given.describe()


def test_layout_is_checked():
    with pytest.raises(ValueError, match="layout"):
        rdbscope.load(SAMPLE_DUMPS / "redis-7.0-lru.rdb", layout="redis-9")


def test_allocator_is_checked():
    with pytest.raises(ValueError, match="allocator"):
        rdbscope.load(SAMPLE_DUMPS / "redis-7.0-lru.rdb", allocator="tcmalloc")


@pytest.mark.parametrize("stem", ["valkey-9.0-default", "valkey-9.0-lfu", "valkey-9.1-default", "valkey-9.1-lfu"])
def test_valkey_hashes_with_field_ttls_are_exact(stem):
    """Small hashtable hashes whose fields carry TTLs: entries with their expiry, the table's
    pointer to its volatile-field set, and the set (one field inline, a vector from two)."""
    keys, oracle = load_with_oracle(SAMPLE_DUMPS / f"{stem}.rdb")
    columns = ["db", "key", "type", "encoding", "n_elements", "est_memory_bytes"]
    rows = [r for r in keys.table.select(columns).to_pylist()
            if r["type"] == "hash" and r["encoding"] == "hashtable" and r["n_elements"] <= 7]
    with_ttls = [r for r in rows if oracle[(r["db"], r["key"])].get("n_fields_with_ttl")]
    assert len(with_ttls) >= 3
    assert {oracle[(r["db"], r["key"])]["n_fields_with_ttl"] for r in with_ttls} >= {1, 2}
    assert all(r["est_memory_bytes"] == oracle[(r["db"], r["key"])]["memory_usage_loaded"] for r in rows)


@pytest.mark.parametrize("stem", ["valkey-9.0-default", "valkey-9.0-lfu", "valkey-9.1-default",
                                  "valkey-9.1-nocompress"])
def test_valkey_9_streams_are_exact(stem):
    """Valkey counts what its radix trees allocate, node by node (src/rax.c raxAllocSize), and
    a consumer's name by its length: the listpack index and every PEL are rebuilt from the dump."""
    keys, oracle = load_with_oracle(SAMPLE_DUMPS / f"{stem}.rdb")
    rows = [r for r in keys.table.select(["db", "key", "type", "est_memory_bytes"]).to_pylist()
            if r["type"] == "stream"]
    assert len(rows) >= 1 and any(oracle[(r["db"], r["key"])]["stream"]["groups"] for r in rows)
    assert all(r["est_memory_bytes"] == oracle[(r["db"], r["key"])]["memory_usage_loaded"] for r in rows)


@pytest.mark.parametrize("ids, allocated", [
    ([], 8),  # an empty head: its header, padded
    ([(7, 0)], 32 + 16),  # the head runs over all 16 bytes (4 + 16 + 4 padding + a child), a leaf
    ([(7, 0), (7, 1)], 32 + 24 + 2 * 16),  # a 15-byte run, a node of two children, two leaves
    ([(7, 0), (7, 1), (7, 2)], 32 + 32 + 3 * 16),  # three children: 4 + 3 + 1 + 24 bytes
    ([(7, 0), (1 << 56, 0)], 24 + 2 * 32 + 2 * 16),  # a branching head, two 15-byte runs
])
def test_radix_tree_allocations_follow_its_nodes(ids, allocated):
    from rdbscope.compiled import python_module

    keys = b"".join(ms.to_bytes(8, "big") + seq.to_bytes(8, "big") for ms, seq in ids)
    for scan, memory in {(python_module("rdb._scan"), python_module("rdb._memory")), (rdbscope.rdb._scan, _memory)}:
        tree = scan.RaxNodes(memory.MemoryModel(LAYOUT_CODES["valkey-9"], 0, 0))
        for i in range(len(ids)):
            tree.add(keys, 16 * i)
        assert tree.alloc_bytes() == allocated


def test_a_valkey_table_of_few_entries_never_chains():
    """Child buckets only where a bucket gets more than 7 entries, one per 6 more."""
    assert _memory.expected_overflow_buckets(7, 1) == 0
    assert _memory.expected_overflow_buckets(4, 1) == 0
    assert _memory.expected_overflow_buckets(8, 1) == 1
    assert _memory.expected_overflow_buckets(14, 1) == 2
    assert _memory.expected_overflow_buckets(7, 2) == 0
    assert 0 < _memory.expected_overflow_buckets(200, 32) < 32


@pytest.mark.parametrize("request_bytes, usable", [
    (1, 8), (9, 16), (17, 24), (64, 64), (65, 80), (129, 160), (536, 640), (4097, 5120), (16385, 20480)])
def test_jemalloc_size_classes(request_bytes, usable):
    assert _memory.jemalloc_usable(request_bytes, 8) == usable


@pytest.mark.parametrize("request_bytes, usable", [(9, 16), (17, 32), (49, 64), (65, 80)])
def test_jemalloc_16_byte_classes(request_bytes, usable):
    assert _memory.jemalloc_usable(request_bytes, 16) == usable


@pytest.mark.parametrize("request_bytes, usable", [(1, 24), (24, 24), (25, 40), (41, 56), (4102, 4104)])
def test_glibc_chunk_sizes(request_bytes, usable):
    assert _memory.glibc_usable(request_bytes) == usable


def test_layout_choice():
    assert choose_layout(0, 602) == (0, True)
    assert choose_layout(0, 700) == (1, True)
    assert choose_layout(0, 704) == (2, True)
    assert choose_layout(702, 702) == (2, True)
    assert choose_layout(0, 802) == (3, True)
    assert choose_layout(800, 702) == (10, True)  # Valkey 8.0: Redis 7.2's dicts, the key in the main dict's entry
    assert choose_layout(801, 801) == (4, True)
    assert choose_layout(900, 900) == (9, True)  # Valkey 9.0 embeds strings as 8.x does; hashes have a field-TTL set
    assert choose_layout(901, 901) == (5, True)
    assert choose_layout(0, 804) == (6, True)
    assert choose_layout(0, 806) == (7, True)
    assert choose_layout(0, 808) == (7, True)
    assert choose_layout(0, 302) == (0, False)


@pytest.mark.parametrize("stem, layout", [
    ("redis-unstable-rdb12-lru", "redis-8.4"), ("redis-unstable-rdb13-lru", "redis-8.6"),
    ("redis-unstable-rdb14-lru", "redis-unstable"), ("valkey-8.0-lru", "valkey-8.0"), ("valkey-9.0-lru", "valkey-9.0"),
    ("valkey-9.1-lru", "valkey-9")])
def test_each_sample_server_gets_its_layout(stem, layout):
    """A release by its version; redis-ver 255.255.255 by the newest release writing the dump's RDB version."""
    model = rdbscope.load(SAMPLE_DUMPS / f"{stem}.rdb").info.memory_model
    assert model.layout == layout
    assert model.exact_match and model.verified


def test_python_constants_match_the_compiled_model():
    import ast
    import pathlib

    source = pathlib.Path(_memory.__file__).with_suffix(".py")
    if not source.exists():
        source = pathlib.Path(rdbscope.__file__).parent / "rdb" / "_memory.py"
    declared = {}
    for node in ast.parse(source.read_text()).body:
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id[:2] in ("A_", "L_") and isinstance(node.value, ast.Call)):
            declared[node.targets[0].id] = node.value.args[1].value
    assert sorted(v for k, v in declared.items() if k.startswith("A_")) == sorted(ALLOCATORS.values())
    assert sorted(v for k, v in declared.items() if k.startswith("L_")) == sorted(LAYOUTS)


@needs_corpus()
def test_corpus_dumps_written_and_loaded_by_redis_7_0():
    """Public dumps written by some Redis 7.0.x and loaded by Debian's 7.0.15 (system jemalloc)."""
    errors, actual_total, estimate_total, files = [], 0, 0, 0
    for oracle_path in sorted((CORPUS / "oracle").rglob("*.json")):
        oracle = json.loads(oracle_path.read_text())
        if not oracle.get("loaded") or "debian-redis-7.0" not in oracle["server_version"]:
            continue
        path = CORPUS / "public" / oracle["file"]
        try:
            keys = rdbscope.load(path, allocator="jemalloc-16")
        except rdbscope.RdbError:
            continue
        if not (keys.info.aux.get("redis-ver") or "").startswith("7.0."):
            continue
        files += 1
        truth = {(r["db"], bytes.fromhex(r["key"])): r["memory_usage"] for r in oracle["keys"]}
        for row in keys.table.select(["db", "key", "est_memory_bytes"]).to_pylist():
            actual = truth.get((row["db"], row["key"]))
            if actual:
                errors.append(abs(row["est_memory_bytes"] - actual) / actual)
                actual_total += actual
                estimate_total += row["est_memory_bytes"]
    assert files >= 8 and len(errors) >= 240
    assert statistics.median(errors) <= 0.02
    assert sum(e <= 0.10 for e in errors) / len(errors) >= 0.95
    assert abs(estimate_total - actual_total) / actual_total <= 0.03


@needs_corpus()
@pytest.mark.parametrize("name", ["HDT3213__rdb/valkey_hash2_with_hfe.rdb",
                                  "HDT3213__rdb/valkey_cluster_slot_info.rdb"])
def test_valkey_9_corpus_dumps(name):
    """Written by Valkey 9.0 and loaded by Valkey 9.1 (bundled jemalloc): with the 9.1 layout
    named, exact, field TTLs included; left to the writer's version, the 9.0 layout."""
    oracle = json.loads((CORPUS / "oracle" / f"{name}.json").read_text())
    assert rdbscope.load(CORPUS / "public" / name).info.memory_model.layout == "valkey-9.0"
    keys = rdbscope.load(CORPUS / "public" / name, layout="valkey-9")
    assert keys.info.memory_model.layout_reason == "given"
    truth = {(r["db"], bytes.fromhex(r["key"])): r["memory_usage"] for r in oracle["keys"]}
    rows = keys.table.select(["db", "key", "est_memory_bytes"]).to_pylist()
    assert rows and all(truth[(r["db"], r["key"])] == r["est_memory_bytes"] for r in rows)


def test_estimates_can_be_left_out(implementation):
    keys = rdbscope.load(SAMPLE_DUMPS / "redis-8.2-default.rdb", estimate_memory=False, implementation=implementation)
    assert keys.table["est_memory_bytes"].null_count == keys.num_rows
    assert not any(keys.table["est_memory_fallback"].to_pylist())
    assert keys.info.memory_model is None
    full = rdbscope.load(SAMPLE_DUMPS / "redis-8.2-default.rdb", implementation=implementation).table
    model_columns = ["est_memory_bytes", "est_memory_fallback"]
    assert keys.table.drop_columns(model_columns).equals(full.drop_columns(model_columns))


@pytest.mark.parametrize("ids, nodes", [
    ([(7, 0)], 2),  # the head runs over the whole key to its leaf
    ([(7, 0), (7, 1)], 4),  # the head's run, a branching node, two leaves
    ([(7, 0), (1 << 56, 0)], 5),  # a branching head, two runs, two leaves
    ([(7, 0), (7, 1), (7, 2)], 5),  # one more leaf on the same branching node
    ([(7, 0), (7, 1), (7, 256)], 7),  # the run is split again higher up
])
def test_radix_tree_nodes_follow_the_splits_redis_makes(ids, nodes):
    """Streams on Redis up to 8.2 cost 244 bytes per radix-tree node (src/object.c)."""
    from rdbscope.compiled import python_module

    keys = b"".join(ms.to_bytes(8, "big") + seq.to_bytes(8, "big") for ms, seq in ids)
    for module in {python_module("rdb._scan"), rdbscope.rdb._scan}:
        tree = module.RaxNodes()
        for i in range(len(ids)):
            tree.add(keys, 16 * i)
        assert (tree.keys, tree.nodes) == (len(ids), nodes)


def test_info_says_which_model_it_assumed():
    from typer.testing import CliRunner

    from rdbscope.cli import app

    dump = str(SAMPLE_DUMPS / "redis-unstable-rdb14-lfu.rdb")
    result = CliRunner().invoke(app, ["info", dump, "--format", "json"], catch_exceptions=False)
    model = json.loads(result.stdout)["memory_model"]
    assert (model["layout"], model["allocator"], model["allocator_given"]) == ("redis-unstable", "jemalloc", False)
    assert "unstable build writing RDB 14" in model["layout_reason"]
    text = CliRunner().invoke(app, ["info", dump, "--allocator", "libc"], catch_exceptions=False).stdout
    text = " ".join(text.split())  # prose wraps between words at the output's width
    assert "memory model: redis-unstable layout" in text and "libc allocator (given)" in text


@needs_corpus()
def test_an_unstable_valkey_build_gets_a_valkey_layout():
    """valkey-ver 255.255.255 with the REDIS magic: newer than Valkey 8.1, the last to write it."""
    model = rdbscope.load(CORPUS / "public" / "hanxizh9910__valkey" / "encodings-rdb12.rdb").info.memory_model
    assert model.layout == "valkey-8"
    assert "unstable build writing RDB 12" in model.layout_reason


@pytest.mark.parametrize("stem", ["valkey-8.0-default", "valkey-8.0-lru"])
def test_valkey_8_0_has_its_own_layout(stem):
    """Valkey 8.0 keeps Redis 7's dicts with the key inside the main dict's entry (src/dict.c
    dictEntryEmbedded), embeds strings of up to 44 bytes whatever the key, and counts a
    consumer's name by its length: strings and streams are exact, sets by the expected collisions."""
    keys, oracle = load_with_oracle(SAMPLE_DUMPS / f"{stem}.rdb")
    assert keys.info.memory_model.layout == "valkey-8.0"
    rows = keys.table.select(["db", "key", "type", "encoding", "n_elements", "est_memory_bytes"]).to_pylist()
    # embstr where Valkey 8.1's rule (key and value within 41 bytes) would say raw
    assert any(r["encoding"] == "embstr" and len(r["key"]) + r["n_elements"] > 41 for r in rows)
    for r in rows:
        if r["type"] in ("string", "stream", "list", "hash"):
            assert r["est_memory_bytes"] == oracle[(r["db"], r["key"])]["memory_usage_loaded"], r["key"]


def test_info_says_when_an_unstable_build_is_placed_by_a_guess():
    from typer.testing import CliRunner

    from rdbscope.cli import app

    dump = str(SAMPLE_DUMPS / "redis-unstable-rdb13-lru.rdb")
    result = CliRunner().invoke(app, ["info", dump, "--format", "json"], catch_exceptions=False)
    model = json.loads(result.stdout)["memory_model"]
    assert (model["layout"], model["layout_guessed"]) == ("redis-8.6", True)
    text = CliRunner().invoke(app, ["info", dump], catch_exceptions=False).stdout
    assert "a guess" in text and "--server-version X.Y" in text
    released = rdbscope.load(SAMPLE_DUMPS / "redis-8.2-lru.rdb").info.memory_model
    assert not released.layout_guessed and "a guess" not in released.describe()


@pytest.mark.parametrize("stem, release, layout", [
    ("redis-unstable-rdb12-lru", "8.4", "redis-8.4"), ("redis-unstable-rdb13-default", "8.6", "redis-8.6")])
def test_server_version_names_the_release_of_an_unstable_build(stem, release, layout):
    """Builds of 2026 named by the release they lead to: its layout, no guess, and the bar met."""
    from typer.testing import CliRunner

    from rdbscope.cli import app

    dump = str(SAMPLE_DUMPS / f"{stem}.rdb")
    result = CliRunner().invoke(app, ["info", dump, "--format", "json", "--server-version", release],
                                catch_exceptions=False)
    model = json.loads(result.stdout)["memory_model"]
    assert (model["layout"], model["layout_guessed"]) == (layout, False)
    assert model["layout_reason"] == (f"redis-ver 255.255.255: an unstable build, named Redis {release} "
                                      "by server_version")
    oracle = json.loads((SAMPLE_DUMPS / f"{stem}.json").read_text())
    keys = rdbscope.load(dump, server_version=release, list_compress_depth=int(oracle["config"].get(
        "list-compress-depth", 0)))
    truth = {(r["db"], bytes.fromhex(r["key"])): r["memory_usage_loaded"] for r in oracle["keys"]}
    rows = [r for r in keys.table.select(["db", "key", "est_memory_bytes", "est_memory_fallback"]).to_pylist()
            if not r["est_memory_fallback"]]
    errors = [abs(r["est_memory_bytes"] - truth[(r["db"], r["key"])]) / truth[(r["db"], r["key"])] for r in rows]
    assert statistics.median(errors) == 0 and sum(e <= 0.02 for e in errors) / len(errors) >= 0.95


def test_server_version_from_the_config_and_its_checks(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from rdbscope.cli import app

    dump = str(SAMPLE_DUMPS / "redis-unstable-rdb13-lru.rdb")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rdbscope.toml").write_text('server_version = "8.4"\n')
    model = json.loads(CliRunner().invoke(app, ["info", dump, "--format", "json"]).stdout)["memory_model"]
    assert (model["layout"], model["layout_guessed"]) == ("redis-8.4", False)
    given = CliRunner().invoke(app, ["info", dump, "--format", "json", "--server-version", "8.6"])
    assert json.loads(given.stdout)["memory_model"]["layout"] == "redis-8.6"  # the option wins
    bad = CliRunner().invoke(app, ["info", dump, "--server-version", "eight"])
    assert bad.exit_code == 2 and "expected the release as X.Y" in bad.output
    (tmp_path / "rdbscope.toml").write_text('server_version = "8"\n')
    broken = CliRunner().invoke(app, ["info", dump])
    assert broken.exit_code == 2 and "server_version" in broken.output and "X.Y" in broken.output


def test_a_released_server_keeps_its_version():
    """server_version applies to unstable builds only: a dump naming its release keeps it."""
    model = rdbscope.load(SAMPLE_DUMPS / "valkey-8.0-lru.rdb", server_version="9.1").info.memory_model
    assert (model.layout, model.layout_reason) == ("valkey-8.0", "from valkey-ver 8.0.1")


def test_an_unstable_build_of_2024_needs_its_release_named():
    """An unstable build of September 2024 writes RDB 12 with Redis 7.4's objects; placed by its
    RDB version it gets the 8.4 layout (strings embedded by the wrong rule, most estimates
    off); named 7.4 with --server-version it meets the bar (test_estimates_meet_the_bar)."""
    from typer.testing import CliRunner

    from rdbscope.cli import app

    path = SAMPLE_DUMPS / "redis-unstable-2024-rdb12-default.rdb"
    oracle = json.loads(path.with_suffix(".json").read_text())
    truth = {(r["db"], bytes.fromhex(r["key"])): r for r in oracle["keys"]}
    guessed = rdbscope.load(path)
    assert (guessed.info.memory_model.layout, guessed.info.memory_model.layout_guessed) == ("redis-8.4", True)
    rows = guessed.table.select(["db", "key", "encoding", "est_memory_bytes"]).to_pylist()
    assert sum(r["encoding"] != truth[(r["db"], r["key"])]["encoding"] for r in rows) > 100
    errors = [abs(r["est_memory_bytes"] - truth[(r["db"], r["key"])]["memory_usage_loaded"])
              / truth[(r["db"], r["key"])]["memory_usage_loaded"] for r in rows]
    assert statistics.median(errors) > 0.1
    result = CliRunner().invoke(app, ["info", str(path), "--format", "json", "--server-version", "7.4"],
                                catch_exceptions=False)
    model = json.loads(result.stdout)["memory_model"]
    assert (model["layout"], model["layout_guessed"]) == ("redis-7.2", False)


def test_the_report_says_when_the_layout_is_a_guess(tmp_path):
    from typer.testing import CliRunner

    from rdbscope.cli import app

    dump = str(SAMPLE_DUMPS / "redis-unstable-2024-rdb12-lru.rdb")

    def words(result):  # prose wraps between words at the output's width
        return " ".join(result.stdout.split())

    guessed = words(CliRunner().invoke(app, ["report", dump], catch_exceptions=False))
    assert "Memory model: redis-8.4 layout" in guessed and "a guess" in guessed and "--server-version X.Y" in guessed
    config = tmp_path / "settings.toml"
    config.write_text('server_version = "7.4"\n')
    named = words(CliRunner().invoke(app, ["report", dump, "--config", str(config)], catch_exceptions=False))
    assert "Memory model: redis-7.2 layout" in named and "named Redis 7.4 by server_version" in named
    assert "a guess" not in named
