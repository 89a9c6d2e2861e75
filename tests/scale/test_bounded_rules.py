"""The lint rules in a bounded run give the in-memory run's findings: on every sample dump, and on a
keyspace written by a real server with what each rule looks for, at scale."""

import dataclasses
import random
import shutil

import pytest
from conftest import SAMPLE_DUMPS, needs_corpus, one_quick
from servers import make_sample_dumps, server
from test_bounded import assert_same, corpus_dumps

import rdbscope
from rdbscope.config import Config
from rdbscope.rules import RULES
from rdbscope.scale import bounded

pytestmark = pytest.mark.server

TABLES = ["patterns", "big_keys", "top_keys", "ttl_coverage", "cluster_slots"]

#: Every rule, the opt-in ones too, and CLU001 for a simulated cluster of three masters.
EVERY_RULE = Config(select=tuple(rule.code for rule in RULES)).with_rule_options("CLU001", masters=3)

#: The rules a bounded run cannot check: GRO001 reads every key of a family.
NEEDS_EVERY_KEY = ("GRO001",)


def assert_same_but_skipped(in_memory, in_chunks):
    """The bounded run ``in_chunks`` has ``in_memory``'s tables and findings, but those of the rules it names
    as not run, and only those."""
    assert in_chunks.skipped == NEEDS_EVERY_KEY
    assert set(in_memory.checked) - set(in_chunks.checked) == set(NEEDS_EVERY_KEY)
    checked = [f for f in in_memory.finding_list if f.code not in NEEDS_EVERY_KEY]
    assert_same(dataclasses.replace(in_memory, finding_list=tuple(checked)), in_chunks, tables=TABLES)


@pytest.mark.parametrize("path", one_quick(sorted(SAMPLE_DUMPS.glob("*.rdb"))), ids=lambda p: p.name)
def test_the_rules_of_a_bounded_run_are_the_in_memory_rules(path):
    in_memory = rdbscope.analyze(rdbscope.load(path), EVERY_RULE)
    in_chunks = rdbscope.analyze(path, EVERY_RULE, chunk_keys=97)
    assert_same_but_skipped(in_memory, in_chunks)


@pytest.mark.slow
def test_the_rules_of_one_dump_measured_on_two_processes(monkeypatch):
    monkeypatch.setattr("rdbscope.scale.planning.LARGE_DUMP_BYTES", 0)  # the sample dumps are small: split them anyway
    path = SAMPLE_DUMPS / "redis-8.2-default.rdb"
    in_memory = rdbscope.analyze(rdbscope.load(path), EVERY_RULE)
    assert_same_but_skipped(in_memory, rdbscope.analyze(path, EVERY_RULE, chunk_keys=97, jobs=2))


@pytest.mark.slow  # every corpus dump twice with every rule; the patterns' corpus test stays in the quick tier
@needs_corpus()
def test_the_rules_of_a_bounded_run_are_the_in_memory_rules_on_the_corpus():
    compared = 0
    for path in corpus_dumps():
        try:
            keys = rdbscope.load(path)
        except rdbscope.RdbError:
            continue  # the corpus's deliberately broken or unsupported files
        assert_same_but_skipped(rdbscope.analyze(keys, EVERY_RULE), rdbscope.analyze(path, EVERY_RULE, chunk_keys=97))
        compared += 1
    assert compared > 150


def legacy_keyspace(client, seed=5):
    """Write a legacy application's keys: each family has what one rule looks for, many times over."""
    rng = random.Random(seed)
    pipe = client.pipeline(transaction=False)
    for i in range(3000):
        pipe.set(f"user:{1000 + i}:profile", "p" * 180)
    for i in range(500):
        pipe.set(f"user.{1000 + i}.settings", "s" * 40)
    for i in range(50):
        pipe.set(f"hotSearch:rank:{i}", "r" * 30)
    for _ in range(400):
        pipe.set(f"userSession:{rng.getrandbits(128):032x}", "t" * 60, ex=3600)
    for name in ("data", "temp", "test1", "test2"):
        pipe.set(name, "x" * 12)
    for i in range(300):
        pipe.set(f"app:prod:eu:shop:cart:item:{i}:price", 1000 + i)
    query = ("q=running+shoes+for+trail&category=shoes&size=42&color=black&brand=acme&material=leather&"
             "sort=price&in_stock=true&page=")
    for i in range(200):
        pipe.set(f"cache:search:{query}{i}", "c" * 900, ex=600)
    for i in range(2000):
        pipe.set(f"{{tenant:acme}}:order:{i}", "o" * 150)
    for i in range(100):
        pipe.set(f"{{tenant:globex}}:order:{i}", "o" * 150)
    for i in range(300):
        pipe.set(f"feed:{{u{i}}}:timeline", "f")  # tags no other key shares
    for i in range(5000):
        pipe.set(f"counter:page:{i}:views", i)
    for i in range(40):  # characters: spaces, control bytes, text that is not ASCII, bytes that are not UTF-8
        pipe.set(f"report name:{i} final", "n")
        pipe.set(f"bin:\x01{i}".encode(), "b")
        pipe.set(f"menu:café:{i}", "m")
        pipe.set(b"latin:caf\xe9:" + str(i).encode(), "l")
        pipe.set(f"page:https://example.com/shop/item-{i}", "u")
        pipe.set(f"cart:{rng.getrandbits(30):x}@example.com", "e")
    pipe.execute()
    for user in (7, 8, 9):  # time series in single sorted sets
        members = {f"{user}:{t}": t for t in range(2000 + 100 * user)}
        client.zadd(f"events:user:{user}", members)
    for i in range(100):  # just over hash-max-listpack-entries (512)
        client.hset(f"profile:{i}:fields", mapping={f"f{j}": "v" for j in range(513 + i % 20)})
    for i in range(40):  # far over it: these, not those just over, are the biggest hashes
        client.hset(f"archive:{i}:fields", mapping={f"f{j}": "v" * 20 for j in range(1500)})
    for i in range(3):  # lists big enough for compression to matter
        client.rpush(f"log:{i}:lines", *(f"{j:05d}" + "l" * 95 for j in range(3000)))


@pytest.fixture(scope="module")
def legacy_dump(tmp_path_factory):
    with make_sample_dumps.RunningServer(server("redis-7.0"), {"save": "", "appendonly": "no"}) as running:
        legacy_keyspace(running.client(0))
        running.client(0).save()
        path = tmp_path_factory.mktemp("legacy") / "legacy.rdb"
        shutil.copyfile(running.dump_path, path)
    return path


#: What each rule that reads keys finds in the legacy keyspace (a pattern and its keys).
FOUND_BY_KEY_RULES = {
    "NAM003": ("report name:{id} final", 40),
    "NAM004": ("bin:\x01{id}", 40),
    "NAM005": ("menu:café:{id}", 40),
    "NAM006": ("cache:search:q=running+shoes+for+trail&category=shoes&size=42&color=black&brand=acme&"
               "material=leather&sort=price&in_stock=true&page={id}", 200),
    "NAM012": ("page:https://example.com/shop/item-{id}", 40),
    "CLU002": ("{tenant:acme}:order:{id}", 2000),
    "CLU003": ("feed:{{*}}:timeline", 300),
    "ENC001": ("profile:{id}:fields", 100),
    "ENC002": ("counter:page:{id}:views", 5000),
    "ENC003": ("log:{id}:lines", 3),
    "ENC004": ("events:user:{id}", 3),
}


@pytest.mark.slow
@pytest.mark.parametrize("chunk_keys", [997, 4000])
def test_every_rule_that_reads_keys_finds_the_same_in_chunks(legacy_dump, chunk_keys):
    in_memory = rdbscope.analyze(legacy_dump, EVERY_RULE)
    found = {(f.code, f.pattern): f.n_keys for f in in_memory.finding_list}
    for code, (pattern, n_keys) in FOUND_BY_KEY_RULES.items():
        assert found.get((code, pattern)) == n_keys, code
    assert any(f.code == "CLU001" for f in in_memory.finding_list)
    in_chunks = rdbscope.analyze(legacy_dump, EVERY_RULE, chunk_keys=chunk_keys)
    assert_same_but_skipped(in_memory, in_chunks)
    assert in_chunks.keys.num_rows < in_chunks.n_keys


@pytest.mark.slow
def test_a_rule_whose_keys_outgrow_the_budget_is_named_not_run(legacy_dump, monkeypatch):
    """The hash-tag rules would keep all 2,400 tagged keys, over the 2,000 allowed: both dropped and named,
    the others unchanged."""
    monkeypatch.setattr(bounded, "MIN_RULE_ROWS", 2000)
    in_memory = rdbscope.analyze(legacy_dump, EVERY_RULE)
    in_chunks = rdbscope.analyze(legacy_dump, EVERY_RULE, chunk_keys=997)
    assert in_chunks.skipped == ("CLU002", "CLU003", "GRO001")
    assert {"CLU002", "CLU003"} <= set(in_memory.checked) and {"CLU002", "CLU003"}.isdisjoint(in_chunks.checked)
    kept = [f for f in in_memory.finding_list if f.code not in in_chunks.skipped]
    assert len(kept) < len(in_memory.finding_list) - 2
    assert [(f.code, f.pattern, f.n_keys, f.message, f.examples) for f in in_chunks.finding_list] == \
        [(f.code, f.pattern, f.n_keys, f.message, f.examples) for f in kept]


@pytest.mark.slow
def test_the_keys_kept_for_rules_stay_within_their_share(legacy_dump, monkeypatch):
    """Once a rule is dropped, the chunks after keep nothing for it, and what was kept for it goes."""
    from rdbscope.scale.partial import ROW, RULES_ONLY

    monkeypatch.setattr(bounded, "MIN_RULE_ROWS", 2000)
    plan = bounded.plan_for(EVERY_RULE, rule_rows=997)
    partial, _info, _summary = bounded.partial_of_source(legacy_dump, plan, chunk_keys=997)
    assert partial.rules.dropped == {"CLU002", "CLU003"}
    assert sum(len(rows) for rows in partial.rules.rows.values()) <= 2000
    rules_only = partial.rows.filter(partial.rows[RULES_ONLY])[ROW].to_numpy()
    assert len(rules_only) and set(rules_only) <= set(partial.rules.all_rows())
