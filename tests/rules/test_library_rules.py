"""The keyspace written by real libraries (sample_dumps/make_library_dump.py): who owns each pattern,
the leaks with the setting that causes them, and naming rules kept off the libraries' names."""

import json
import random
import re
import string

import pytest
from conftest import SAMPLE_DUMPS
from rule_keyspace import key_table
from typer.testing import CliRunner

import rdbscope
from rdbscope.cli import app
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


#: The families whose names tell their library (the others' names are the application's: only values tell).
NAMED = [f for f in TRUTH["families"] if f["told_by"] == "name"]


@pytest.mark.parametrize("family", NAMED, ids=[f["pattern"] for f in NAMED])
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
    assert set(libraries) == {f["library"] for f in NAMED}
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


#: (pattern, library, key kind) of each library recognized since issue 31, as libraries.rdb holds them.
RECOGNIZED_BY_NAME = [
    ("arq:job:{hex}", "arq", "job"),
    ("arq:result:{hex}", "arq", "job result"),
    ("arq:queue", "arq", "queue"),
    ("asgi:group:room_{id}", "channels_redis", "group"),
    ("asgispecific.{hex}!", "channels_redis", "channel"),
    ("shop:order:{*}", "Redis OM", "model"),
    ("lock:report-{id}", "python-redis-lock", "lock"),
    ("lock:export-{id}", "python-redis-lock", "lock"),
    ("lock-signal:sync-{id}", "python-redis-lock", "lock signal"),
    ("{hex}", "Dramatiq", "message result"),
    ("rq:job::{uuid}:dependencies", "RQ", "job dependencies"),
    ("rq:job:{uuid}:dependents", "RQ", "job dependents"),
    ("rq:deferred:default", "RQ", "job registry"),
    ("bull:reports:report-{id}", "BullMQ", "job"),
    ("bull:reports:report-{id}:dependencies", "BullMQ", "children to run"),
    ("bull:reports:report-{id}:processed", "BullMQ", "children's results"),
    ("bull:reports:waiting-children", "BullMQ", "job state set"),
    ("bull:report-parts:{uuid}", "BullMQ", "job"),
    ("resque:delayed:{ts}", "Resque", "delayed jobs"),
    ('resque:timestamps:{"class":"WelcomeMailer","queue":"mailers","args":[{id}]}', "Resque", "delayed job times"),
    ("resque:delayed_queue_schedule", "Resque", "delayed schedule"),
    ("LIMITS:{LIMITER/api/token-{id}/100/1/minute}", "limits", "rate-limit window"),  # sliding window counter
    ("LIMITS:LIMITER/search/token-{id}/100/1/minute", "limits", "rate-limit window"),  # moving window
    ("LIMITS:{LIMITER/{ip}/search/10/1/minute}", "limits", "rate-limit window"),  # Flask-Limiter
    ("celery\x06\x16{id}", "Celery", "priority queue"),
]


@pytest.mark.parametrize(("pattern", "library", "kind"), RECOGNIZED_BY_NAME, ids=[r[0] for r in RECOGNIZED_BY_NAME])
def test_each_library_of_issue_31_is_recognized_by_its_names(owners, pattern, library, kind):
    assert owners[pattern] == (library, kind)


def test_redis_py_locks_are_named_by_the_application_and_told_by_their_values(owners):
    family = next(f for f in TRUTH["families"] if f["library"] == "redis-py Lock")
    assert family["told_by"] == "values" and owners[family["pattern"]] == ("redis-py Lock", "lock")


#: The NAM/CLU warnings libraries.rdb drew on names its libraries dictate before they were recognized.
WARNED_BEFORE = {
    ("NAM004", "celery\x06\x16{id}"), ("NAM008", "celery\x06\x16{id}"), ("NAM008", "{hex}"),
    ("NAM001", "LIMITS:{LIMITER/api/token-{id}/100/1/minute}"),
    ("CLU003", "LIMITS:{LIMITER/api/token-{id}/100/1/minute}"),
    ("NAM001", "LIMITS:{LIMITER/{ip}/search/10/1/minute}"), ("CLU003", "LIMITS:{LIMITER/{ip}/search/10/1/minute}"),
    ("NAM002", 'resque:timestamps:{"class":"WelcomeMailer","queue":"mailers","args":[{id}]}'),
    ("NAM003", 'resque:timestamps:{"class":"WelcomeMailer","queue":"mailers","args":[{id}]}'),
    ("CLU003", 'resque:timestamps:{"class":"WelcomeMailer","queue":"mailers","args":[{id}]}'),
}


def test_no_naming_or_cluster_warning_on_a_library_owned_name_but_the_applications_keep_theirs(owners):
    """`rdbscope lint` on libraries.rdb: the names a library dictates draw no NAM/CLU finding but NAM015's
    information; the application's own names in the same dump still draw theirs."""
    done = CliRunner().invoke(app, ["lint", str(DUMP), "--format", "json"], catch_exceptions=False)
    findings = json.loads(done.stdout)["findings"]
    named = {(f["code"], f["pattern"]) for f in findings if f["code"][:3] in ("NAM", "CLU") and f["code"] != "NAM015"}
    assert not [pair for pair in named if owners[pair[1]][0]]
    assert not named & WARNED_BEFORE
    assert {("NAM002", "UserPrefs:{id}"), ("CLU003", "orders:{tenant{id}}:open")} <= named
    assert all(f["severity"] == "info" for f in findings if f["code"] == "NAM015")


def test_library_names_says_which_setting_shapes_a_name_beyond_the_prefix(result):
    celery = next(f for f in result.finding_list if f.code == "NAM015" and f.details_dict["library"] == "Celery")
    assert "priority_steps" in celery.message and "'\\x06\\x16'" in celery.message
    assert any("sep" in setting for setting in celery.details_dict["name_settings"])
    bullmq = next(f for f in result.finding_list if f.code == "NAM015" and f.details_dict["library"] == "BullMQ")
    assert "the prefix queue option" in bullmq.message and bullmq.details_dict["name_settings"] == []


def test_a_lock_taken_without_expiry_is_reported_with_the_locks_setting(result):
    """python-redis-lock's Lock(expire=None): LIB005 names the library and the setting (it was a TTL002
    that said neither); the locks taken with expire=600 are not reported."""
    [finding] = by_code(result, "LIB005").values()
    assert finding.pattern == "lock:export-{id}" and finding.n_keys == 20
    assert finding.details_dict["library"] == "python-redis-lock" and "expire=" in finding.details_dict["setting"]
    assert "lock:export-{id}" not in by_code(result, "TTL002")


def test_the_truth_records_the_retention_of_each_configured_queue():
    retention = {f["pattern"]: f["retention"] for f in TRUTH["families"] if "retention" in f}
    assert retention["bull:thumbs:{id}"] == {"kind": "bounded", "setting": "removeOnComplete: 1000"}
    assert retention["bull:digests:{id}"]["kind"] == "bounded"
    assert retention["bull:report-parts:{uuid}"]["kind"] == retention["lock:export-{id}"]["kind"] == "forever"
    kept = [k for k in TRUTH["keys"] if re.fullmatch(r"bull:thumbs:\d+", k)]
    assert len(kept) == 150  # under removeOnComplete's 1000: every completed job is still there


def test_a_flow_queue_with_default_options_is_reported_as_keeping_every_job(result):
    finding = by_code(result, "LIB001")["bull:report-parts:{uuid}"]
    assert finding.n_keys == 120 and "removeOnComplete" in finding.message


def test_limits_sliding_windows_are_recognized_whatever_the_hash_tag_holds():
    """The sliding window counter's keys, 'LIMITS:{LIMITER/...}' and the previous window's '.../-1': a
    tag holding a token is inferred as one placeholder in braces, 'LIMITS:{{b64}}' (as on the keyspace of
    issue 31)."""
    tokens = ["".join(random.Random(n).choice(string.ascii_letters + string.digits) for _ in range(24))
              for n in range(30)]
    current = _owner_of([f"LIMITS:{{LIMITER/{t}/10/1/minute}}" for t in tokens])
    previous = _owner_of([f"LIMITS:{{LIMITER/{t}/10/1/minute}}/-1" for t in tokens])
    assert current == {"LIMITS:{{b64}}": ("limits", "rate-limit window")}
    assert previous == {"LIMITS:{{b64}}/-1": ("limits", "rate-limit window")}
    addresses = _owner_of([{"key": "LIMITS:{LIMITER/10.0.$i.2/login/10/1/minute}/-1", "count": 30}])
    assert addresses == {"LIMITS:{LIMITER/{ip}/login/10/1/minute}/-1": ("limits", "rate-limit window")}


def test_redis_om_models_under_a_custom_prefix_are_told_by_their_ulid_keys():
    crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    rng = random.Random(5)
    ulids = ["01J" + "".join(rng.choice(crockford) for _ in range(23)) for _ in range(30)]
    words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(12)) for _ in range(30)]
    owners = _owner_of([{"key": f"myapp:v2:order:{u}", "type": "hash"} for u in ulids] +
                       [{"key": f"myapp:v2:shop.models.Customer:{u}", "type": "hash"} for u in ulids] +
                       [{"key": f"profile:{w}", "type": "hash"} for w in words] +
                       [f"tokens:{u}" for u in ulids])
    assert owners["myapp:v2:order:{*}"] == ("Redis OM", "model")
    assert owners["myapp:v2:shop.models.Customer:{*}"] == ("Redis OM", "model")
    assert owners["profile:{*}"] == (None, None)  # not ULIDs
    assert owners["tokens:{*}"] == (None, None)  # strings: not a model's hash or JSON document


def test_a_bare_md5_list_is_dramatiqs_result_only_beside_dramatiqs_queue():
    results = [{"key": "%032x" % (n * 104729 + 7), "type": "list"} for n in range(30)]
    assert _owner_of(results)["{hex}"] == (None, None)
    beside = _owner_of(results + [{"key": "dramatiq:default", "type": "list"}])
    assert beside["{hex}"] == ("Dramatiq", "message result")


def test_an_applications_own_lock_keys_are_python_redis_locks_only_beside_its_signals():
    """'lock:<resource>' is what the key-design guides recommend for an application's own locks: the
    prefix alone claims nothing; a 'lock-signal:' key, which python-redis-lock's release leaves, does."""
    locks = [{"key": "lock:order:$i", "count": 20, "ttl_s": 30}]
    assert _owner_of(locks)["lock:order:{id}"] == (None, None)
    signals = [{"key": "lock-signal:order:$i", "count": 3, "type": "list", "ttl_s": 1}]
    assert _owner_of(locks + signals)["lock:order:{id}"] == ("python-redis-lock", "lock")


def test_rqs_bookkeeping_keys_are_rqs():
    """rq/worker.py, scheduler.py, registry.py, executions.py: keys beside the jobs that RQ 2-3 writes."""
    owners = _owner_of([
        {"key": "rq:queue:default", "type": "list"},
        {"key": "rq:clean_registries:default"}, {"key": "rq:scheduler-lock:default"},
        {"key": "rq:workers:default", "type": "set"}, {"key": "rq:scheduler_instance:host-1", "type": "hash"},
        {"key": "rq:execution:0b4c6f0e-3f7c-4d51-9a56-0c1d3c1f4b8a:$i", "count": 5, "type": "hash"},
    ])
    assert {p: o for p, o in owners.items() if o[0] != "RQ"} == {}
    assert owners["rq:clean_registries:default"] == ("RQ", "bookkeeping")
