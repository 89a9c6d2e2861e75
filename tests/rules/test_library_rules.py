"""The keyspace written by real libraries (sample_dumps/make_library_dump.py): who owns each pattern,
the leaks with the setting that causes them, and naming rules kept off the libraries' names."""

import json
import random
import string

import pytest
from conftest import SAMPLE_DUMPS
from rule_keyspace import key_table

import rdbscope
from rdbscope.config import config_from_mapping
from rdbscope.report.dataset import patterns_table

DUMP = SAMPLE_DUMPS / "libraries.rdb"
TRUTH = json.loads((SAMPLE_DUMPS / "libraries.json").read_text())


@pytest.fixture(scope="module")
def result():
    return rdbscope.analyze(rdbscope.load(DUMP))


@pytest.fixture(scope="module")
def owners(result):
    rows = result.tables["patterns"].select(["pattern", "library", "key_kind"]).to_pylist()
    return {r["pattern"]: (r["library"], r["key_kind"]) for r in rows}


def by_code(result, code):
    return {f.pattern: f for f in result.finding_list if f.code == code}


@pytest.mark.parametrize("family", TRUTH["families"], ids=[f["pattern"] for f in TRUTH["families"]])
def test_every_library_pattern_carries_its_library(owners, family):
    library, _kind = owners[family["pattern"]]
    assert library == family["library"]


def test_the_applications_own_patterns_have_no_library(owners):
    for family in TRUTH["user_families"]:
        assert owners[family["pattern"]] == (None, None)


def test_key_kinds_say_what_the_keys_hold(owners):
    assert owners["bull:emails:{id}"] == ("BullMQ", "job")
    assert owners["bull:video:{id}"] == ("Bull", "job")
    assert owners["celery-task-meta-{uuid}"] == ("Celery", "task result")
    assert owners["shop:1:django.contrib.sessions.cache{*}"] == ("Django sessions", "session")
    assert owners["shop:1:product:{id}:price"] == ("Django cache", "cache entry")


@pytest.mark.parametrize(("pattern", "setting"), [
    ("bull:emails:{id}", "removeOnComplete / removeOnFail"),
    ("bull:video:{id}", "removeOnComplete / removeOnFail"),
    ("rq:job:{uuid}", "result_ttl / failure_ttl"),
    ("rq:results:{uuid}", "result_ttl"),
    ("celery-task-meta-{uuid}", "result_expires"),
    ("dead", "dead_max_jobs"),
    ("bq:thumbnails:jobs", "removeOnSuccess / removeOnFailure"),
])
def test_jobs_kept_forever_name_the_queue_setting(result, pattern_of, pattern, setting):
    finding = by_code(result, "LIB001")[pattern]
    assert setting in finding.message
    assert finding.n_keys == sum(1 for k, r in TRUTH["keys"].items() if r["pttl_ms"] == -1 and pattern_of[k] == pattern)


@pytest.fixture(scope="module")
def pattern_of(result):
    table = result.keys.to_arrow()
    return dict(zip((k.decode() for k in table["key"].to_pylist()), table["pattern"].to_pylist(), strict=True))


def test_caches_without_ttl_name_the_timeout_setting(result):
    found = by_code(result, "LIB003")
    fragments = found["storefront:views/products/_product:{hex}/products/{id}"]  # Action View's cache helper
    assert "expires_in" in fragments.message and fragments.n_keys == 120
    assert found["storefront:views/products/index:{hex}/product-list"].message.startswith(
        "1 key of storefront:views/products/index:{hex}/product-list (Rails cache: view fragment) has no TTL and "
        "never expires")
    laravel = found["laravel_database_laravel_cache:report:{id}"]  # Cache::forever
    assert "Cache::forever keeps entries" in laravel.message and laravel.n_keys == 90
    assert "laravel_database_laravel_cache:weather:{id}" not in found  # Cache::put with seconds
    assert "CACHE_DEFAULT_TIMEOUT or timeout=" in found["flask_cache_user_{id}_feed"].message
    assert "TIMEOUT (None keeps entries forever)" in found["shop:1:product:{id}:price"].message
    assert found["flask_cache_user_{id}_feed"].n_keys == 200
    assert "flask_cache_page_{id}" not in found  # written with a timeout


def test_library_patterns_get_their_library_finding_not_the_generic_ttl_ones(result, owners):
    """flask_cache_... and laravel_..._cache:... say 'cache' and have no TTL: LIB003 names the setting; TTL002,
    which would say the same without it, and TTL001 leave library patterns alone."""
    generic = [f.pattern for f in result.finding_list if f.code in ("TTL001", "TTL002")]
    assert not [p for p in generic if owners[p][0] is not None]
    caches = {"flask_cache_user_{id}_feed", "laravel_database_laravel_cache:report:{id}"}
    assert caches <= set(by_code(result, "LIB003"))
    on_user_keys = rdbscope.analyze(key_table(["app:cache:" + str(i) for i in range(20)])).finding_list
    assert [f.code for f in on_user_keys if f.code in ("TTL001", "TTL002") or f.code.startswith("LIB")] == ["TTL002"]


def test_sessions_and_rate_limits_with_their_ttl_are_not_reported(result):
    assert not by_code(result, "LIB002") and not by_code(result, "LIB004")


def test_sessions_and_rate_limit_windows_without_ttl_are():
    rng = random.Random(7)
    alphabet = string.ascii_letters + string.digits + "-_"
    sessions = ["sess:" + "".join(rng.choice(alphabet) for _ in range(32)) for _ in range(30)]
    keys = key_table(sessions + [{"key": "LIMITS:LIMITER/login/10.0.0.$i/1000/1/hour", "count": 30}])
    found = {f.code: f for f in rdbscope.analyze(keys).finding_list if f.code.startswith("LIB")}
    assert set(found) == {"LIB002", "LIB004"}
    assert "cookie.maxAge" in found["LIB002"].message and found["LIB002"].n_keys == 30
    assert found["LIB004"].pattern == "LIMITS:LIMITER/login/{ip}/1000/1/hour"


def test_no_naming_rule_fires_on_names_a_library_owns(result, owners):
    named = [f for f in result.finding_list if f.code.startswith("NAM") and f.code != "NAM015"]
    assert not [f.pattern for f in named if owners.get(f.pattern, (None,))[0]]
    without_libraries = rdbscope.lint(rdbscope.load(DUMP), config_from_mapping({"ignore": ["NAM015"]}))
    assert {f.pattern for f in without_libraries.finding_list if f.code.startswith("NAM")} <= {
        p for p, (library, _) in owners.items() if library is None}


def test_each_library_is_named_once_with_its_prefix_setting(result):
    infos = [f for f in result.finding_list if f.code == "NAM015"]
    libraries = [f.details_dict["library"] for f in infos]
    assert len(libraries) == len(set(libraries))
    assert set(libraries) == {f["library"] for f in TRUTH["families"]}
    celery = next(f for f in infos if f.details_dict["library"] == "Celery")
    assert "global_keyprefix" in celery.message and celery.n_keys == TRUTH["keys_written"]["Celery"]
    evidence = {f.details_dict["library"]: f.details_dict["evidence"] for f in infos}
    assert evidence["Resque"] == "compatible library (node-resque)"
    assert evidence["Laravel Horizon"] == evidence["Spring Session"] == "documented shape"
    assert evidence["Laravel cache"] == evidence["Socket.IO streams adapter"] == "library"
    assert {family["library"]: family["evidence"] for family in TRUTH["families"]}.items() >= {
        library: evidence[library] for library in ("Resque", "Laravel cache", "Laravel queue",
                                                   "Socket.IO streams adapter", "Laravel Horizon")}.items()


def test_a_growing_counter_without_ttl_is_a_likely_leak(result):
    assert not by_code(result, "GRO001")  # opt-in
    found = by_code(rdbscope.lint(rdbscope.load(DUMP), config_from_mapping({"select": ["GRO001"]})), "GRO001")
    assert list(found) == ["audit:event:{id}"]
    assert found["audit:event:{id}"].details_dict["last"] == 1500


def test_the_parquet_dataset_has_the_library_columns(result):
    table = patterns_table(result)
    rows = {r["pattern"]: r for r in table.select(["pattern", "library", "key_kind"]).to_pylist()}
    assert rows["rq:job:{uuid}"]["library"] == "RQ" and rows["rq:job:{uuid}"]["key_kind"] == "job"
    assert rows["user:{id}:profile"]["library"] is None


def test_resques_failed_list_that_only_grows_names_the_failure_backend():
    def lib001(spec):
        keys = key_table([spec, "resque:queues", {"key": "resque:queue:mailers", "type": "list"}])
        return [f for f in rdbscope.analyze(keys).finding_list if f.code == "LIB001"]

    failed = {"key": "resque:failed", "type": "list", "n_elements": 90, "est_memory_bytes": 40_000}
    [finding] = lib001(failed)
    assert finding.pattern == "resque:failed" and finding.est_memory_bytes == 40_000
    assert "only grows" in finding.message and "Resque::Failure.clear" in finding.message
    assert finding.details_dict["setting"].startswith("Resque::Failure.backend")
    assert not lib001(dict(failed, est_memory_bytes=2_000))  # below library_min_set_bytes
    assert not lib001(dict(failed, ttl_s=3600))


def test_resques_failed_list_in_the_dump_is_reported(result):
    """node-resque's worker pushed every failed job onto resque:failed, with Resque's failure payload."""
    finding = by_code(result, "LIB001")["resque:failed"]
    assert TRUTH["keys"]["resque:failed"] == {"length": 45, "pttl_ms": -1, "type": "list", "written_by": "Resque"}
    assert finding.n_keys == 1 and finding.est_memory_bytes >= 8192
    assert "Resque::Failure.backend" in finding.message
    assert "resque:queue:mailers" not in by_code(result, "LIB001")  # jobs waiting for a worker: not a leak


def test_socket_io_sessions_expire_with_the_recovery_window(owners):
    sessions = [k for k in TRUTH["keys"] if k.startswith("sio:session:")]
    assert len(sessions) == 30
    assert all(0 < TRUTH["keys"][k]["pttl_ms"] <= 120_000 for k in sessions)
    assert owners["sio:session:{*}"] == ("Socket.IO streams adapter", "session")
    assert owners["socket.io"] == ("Socket.IO streams adapter", "event stream")


SPRING_PRINCIPAL_INDEX = ("spring:session:index:org.springframework.session.FindByIndexNameSessionRepository"
                          ".PRINCIPAL_NAME_INDEX_NAME:{*}")


def test_spring_sessions_principal_index_is_the_librarys_state_not_a_leak(result, owners):
    """RedisIndexedSessionRepository keeps a set of session ids per user without a TTL (the repository takes an
    id out when its session expires), and a set per minute of expiry that the first session of its minute leaves
    without a TTL: Spring Session's, and no finding names them."""
    assert owners[SPRING_PRINCIPAL_INDEX] == ("Spring Session", "principal index")
    assert owners["spring:session:expirations:{ts}"] == ("Spring Session", "expiry index")
    index = [r for k, r in TRUTH["keys"].items() if k.startswith("spring:session:index:")]
    assert len(index) == 10 and all(r["type"] == "set" and r["pttl_ms"] == -1 for r in index)
    assert sum(r["length"] for r in index) == 50  # every login's session, under its user
    minutes = [r for k, r in TRUTH["keys"].items() if k.startswith("spring:session:expirations:")]
    assert 0 < sum(1 for r in minutes if r["pttl_ms"] == -1) < len(minutes)
    assert not [f.code for f in result.finding_list
                if f.pattern in (SPRING_PRINCIPAL_INDEX, "spring:session:expirations:{ts}")]


def test_rails_cache_entries_are_the_keys_whose_values_rails_wrote(owners, tmp_path):
    """Rails.cache.write keys carry nothing of Rails in their names: they are told by the namespace of
    Action View's fragments in the same store. The values, read back from a server that loads the dump,
    agree: the keys of the patterns attributed to Rails' cache are exactly those whose value starts with
    Marshal's dump of an ActiveSupport::Cache::Entry (Rails 6.1's format)."""
    import re
    import shutil

    import servers

    assert owners["storefront:products/{id}/price"] == ("Rails cache", "cache entry")
    header = b"\x04\x08o:\x20ActiveSupport::Cache::Entry"
    shutil.copy(DUMP, tmp_path / "libraries.rdb")
    config = {"save": "", "dir": str(tmp_path), "dbfilename": "libraries.rdb"}
    with servers.make_sample_dumps.RunningServer(servers.server("redis-7.0"), config) as running:
        client = running.client(0)
        strings = [k for k, r in TRUTH["keys"].items() if r["type"] == "string"]
        pipe = client.pipeline(transaction=False)
        for key in strings:
            pipe.getrange(key, 0, len(header) - 1)
        heads = dict(zip(strings, pipe.execute(), strict=True))
    marked = {k for k, head in heads.items() if head == header}
    rails_patterns = [re.compile(f["regex"]) for f in TRUTH["families"] if owners[f["pattern"]][0] == "Rails cache"]
    # keys written with expires_in (10 minutes) are gone by the time the dump is loaded again
    claimed = {k for k in strings
               if TRUTH["keys"][k]["pttl_ms"] == -1 and any(p.fullmatch(k) for p in rails_patterns)}
    assert len(claimed) == 271 and marked == claimed


def _owner_of(keys):
    result = rdbscope.analyze(key_table(keys))
    rows = result.tables["patterns"].select(["pattern", "library", "key_kind"]).to_pylist()
    return {r["pattern"]: (r["library"], r["key_kind"]) for r in rows}


def test_a_cache_stores_prefix_claims_the_string_patterns_under_it_and_nothing_else():
    fragments = [{"key": f"shop:views/products/_product:{'%032x' % (i * 7919)}/products/{i}"} for i in range(20)]
    entries = [{"key": "shop:price/$i", "count": 20}]
    others = [{"key": "shop:queue/$i", "count": 20, "type": "list"}, {"key": "cart:$i", "count": 20}]
    owners = _owner_of(fragments + entries + others)
    assert owners["shop:views/products/_product:{hex}/products/{id}"] == ("Rails cache", "view fragment")
    assert owners["shop:price/{id}"] == ("Rails cache", "cache entry")
    assert owners["shop:queue/{id}"] == (None, None)
    assert owners["cart:{id}"] == (None, None)


def test_a_cache_store_without_a_prefix_claims_nothing_else():
    fragments = [{"key": f"views/products/_product:{'%032x' % (i * 7919)}/products/{i}"} for i in range(20)]
    owners = _owner_of(fragments + [{"key": "price/$i", "count": 20}])
    assert owners["views/products/_product:{hex}/products/{id}"] == ("Rails cache", "view fragment")
    assert owners["price/{id}"] == (None, None)
