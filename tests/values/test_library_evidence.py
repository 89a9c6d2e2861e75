"""What the libraries' own values say, on the keyspace the libraries wrote (sample_dumps/libraries.rdb):
the retention a job queue's jobs stored, and the library a key's value tells where the application chose its
name. The truth (libraries.json) says which configuration each family was written with."""

import json

import pytest
from conftest import SAMPLE_DUMPS
from typer.testing import CliRunner

import rdbscope
from rdbscope.cli import app

DUMP = SAMPLE_DUMPS / "libraries.rdb"
TRUTH = json.loads((SAMPLE_DUMPS / "libraries.json").read_text())
RETENTION = {f["pattern"]: f for f in TRUTH["families"] if "retention" in f}


@pytest.fixture(scope="module")
def with_values():
    return rdbscope.analyze(DUMP)


@pytest.fixture(scope="module")
def without_values():
    return rdbscope.analyze(DUMP, values=False)


def library_findings(res, pattern):
    return [f for f in res.finding_list if f.code.startswith("LIB") and f.pattern == pattern]


@pytest.mark.parametrize("pattern", sorted(p for p, f in RETENTION.items() if f["retention"]["kind"] == "forever"))
def test_every_keep_forever_configuration_is_reported_with_its_library(with_values, pattern):
    (finding,) = library_findings(with_values, pattern)
    assert finding.details_dict["library"] == RETENTION[pattern]["library"]
    assert finding.details_dict["setting"]


@pytest.mark.parametrize("pattern", sorted(p for p, f in RETENTION.items() if f["retention"]["kind"] == "bounded"))
def test_a_queue_whose_jobs_bound_their_retention_is_no_leak(with_values, without_values, pattern):
    queue = pattern.rpartition(":")[0]
    assert library_findings(with_values, pattern) == []
    assert library_findings(with_values, queue + ":completed") == []
    # the names and TTLs alone cannot tell: without the values the same jobs are reported
    assert [f.code for f in library_findings(without_values, pattern)] == ["LIB001"]


def test_the_message_says_what_the_jobs_stored(with_values):
    (finding,) = library_findings(with_values, "bull:emails:{id}")
    stored = ("removeOnComplete: not set on 32 of 32 sampled jobs; "
              "removeOnFail: not set on 32 of 32 sampled jobs")
    assert finding.details_dict["stored_options"] == stored
    assert finding.message.endswith("their own data: " + stored)


def test_bee_queue_shows_its_settings_by_the_jobs_it_holds(with_values, without_values):
    (finding,) = library_findings(with_values, "bq:thumbnails:jobs")
    assert finding.details_dict["stored_options"].startswith("removeOnSuccess: off (succeeded jobs held) on 32 of 32")
    (plain,) = library_findings(without_values, "bq:thumbnails:jobs")
    assert "stored_options" not in plain.details_dict


def test_rails_cache_entries_say_they_were_written_without_expires_in(with_values):
    findings = [f for f in with_values.finding_list
                if f.code == "LIB003" and f.details_dict["library"] == "Rails cache"]
    assert len(findings) == 3
    for finding in findings:
        read = min(32, finding.n_keys)
        assert finding.details_dict["stored_options"] == f"expires_in: not set on {read} of {read} sampled entries"


def test_a_flow_queue_below_the_count_is_reported_when_its_jobs_keep_themselves(with_values, without_values):
    parents = "bull:reports:report-{id}"
    (finding,) = library_findings(with_values, parents)
    assert finding.n_keys < 100  # under library_min_keys: only the stored options report it
    assert library_findings(without_values, parents) == []


def test_redis_py_locks_are_told_by_their_tokens(with_values, without_values):
    told = {f["pattern"]: f["library"] for f in TRUTH["families"] if f.get("told_by") == "values"}
    assert told
    for values_read, expected in ((with_values, told), (without_values, dict.fromkeys(told))):
        rows = {r["pattern"]: r["library"] for r in values_read.tables["patterns"].to_pylist()}
        assert {p: rows[p] for p in told} == expected


def test_value_formats_of_library_written_keys(with_values):
    rows = {r["pattern"]: r for r in with_values.tables["patterns"].to_pylist()}
    assert rows["celery-task-meta-{uuid}"]["value_format"] == "json"  # Celery's result documents
    assert rows["storefront:products/{id}/price"]["value_format"] == "ruby-marshal"  # Rails.cache
    assert rows["sess:{*}"]["value_format"] == "json"  # connect-redis
    assert rows["celery"]["element_format"] == "json"  # kombu's messages in the queue list
    assert all(r["values_sampled"] <= 32 for r in rows.values())


# What `rdbscope report --format json` says of the families only values tell (make_library_dump.py's
# TOLD_BY_VALUES), and of the settings BullMQ and Celery stored.

runner = CliRunner()


def _report(*options):
    done = runner.invoke(app, ["report", str(DUMP), "--format", "json", "--top", "500", *options],
                         catch_exceptions=False)
    assert done.exit_code in (0, 1), done.output
    document = json.loads(done.stdout)
    findings = {(f["code"], f["pattern"]): json.loads(f["details"]) for f in document["findings"]}
    return {row["pattern"]: row for row in document["patterns"]}, findings


@pytest.fixture(scope="module")
def report():
    return _report()


@pytest.fixture(scope="module")
def report_without_values():
    return _report("--no-values")


def _owner(patterns, pattern):
    return patterns[pattern]["library"], patterns[pattern]["key_kind"]


#: (pattern, library, key kind) of the families libraries.rdb holds that only values tell.
TOLD_BY_VALUES = [
    ("jobs:invoices:{id}", "BullMQ", "job"),  # a queue under a prefix of the application's: its meta hash
    ("jobs:invoices:completed", "BullMQ", "job state set"),
    ("jobs:invoices:events", "BullMQ", "event stream"),
    ("jobs:invoices:meta", "BullMQ", "bookkeeping"),
    ("rq:job:export-{id}", "RQ", "job"),  # job ids of the application's: the data field's zlib-compressed pickle
    ("catalog:3:category:{id}", "Django cache", "cache entry"),  # pickles under KEY_PREFIX:VERSION:
    ("support:ticket:{uuid}", "Redis OM", "model"),  # uuid primary keys: the pk field
]


@pytest.mark.parametrize(("pattern", "library", "kind"), TOLD_BY_VALUES, ids=[t[0] for t in TOLD_BY_VALUES])
def test_families_named_by_the_application_are_told_by_their_values(report, report_without_values, pattern,
                                                                    library, kind):
    assert _owner(report[0], pattern) == (library, kind)
    assert _owner(report_without_values[0], pattern) == (None, None)


#: What a finding on keys told by their values says of how they were told.
TOLD_BY = {
    ("LIB001", "jobs:invoices:{id}"): "values: the queue's meta hash (bullmq:6.7.0) under the prefix 'jobs'",
    ("LIB001", "rq:job:export-{id}"): "values: job hashes whose data field is a zlib-compressed pickle (protocol 5), "
                                      "as RQ writes them",
    ("LIB003", "catalog:3:category:{id}"): "values: pickles (protocol 5) under '<KEY_PREFIX>:<VERSION>:' "
                                           "(catalog:3:), as Django's RedisCache writes them",
}


def test_a_finding_on_keys_told_by_their_values_says_how_and_what_they_stored(report):
    findings = report[1]
    assert {key: findings[key]["told_by"] for key in TOLD_BY} == TOLD_BY
    assert findings[("LIB001", "jobs:invoices:{id}")]["stored_options"] == (
        "removeOnComplete: not set on 32 of 32 sampled jobs; removeOnFail: not set on 32 of 32 sampled jobs")
    assert findings[("LIB001", "rq:job:export-{id}")]["stored_options"] == "result_ttl: -1 on 32 of 32 sampled jobs"
    assert "TIMEOUT (None keeps entries forever)" in findings[("LIB003", "catalog:3:category:{id}")]["setting"]


def test_a_bullmq_findings_details_say_what_the_queues_meta_hash_holds(report):
    _patterns, findings = report
    version = TRUTH["versions"]["BullMQ"]
    assert findings[("LIB001", "jobs:invoices:{id}")]["queue_meta"] == (
        f"version: bullmq:{version}; opts.maxLenEvents: 500 (the events stream is trimmed to about 500 entries)")
    assert findings[("LIB001", "bull:emails:{id}")]["queue_meta"] == (
        f"version: bullmq:{version}; opts.maxLenEvents: 10000 (the events stream is trimmed to about 10000 "
        "entries)")
    # a flow's parents: the meta hash of their queue (bull:reports:meta), which only a FlowProducer opened
    assert findings[("LIB001", "bull:reports:report-{id}")]["queue_meta"] == (
        "opts.maxLenEvents: 10000 (the events stream is trimmed to about 10000 entries)")
    assert "queue_meta" not in findings[("LIB001", "bull:video:{id}")]  # Bull keeps no meta hash


def test_celery_results_kept_forever_say_their_status(report, report_without_values):
    _patterns, findings = report
    assert findings[("LIB001", "celery-task-meta-{uuid}")]["stored_options"] == (
        "status: SUCCESS on 32 of 32 sampled results")
    # task ids of the application's: 60 results, fewer than library_min_keys, reported for what they hold
    custom = findings[("LIB001", "celery-task-meta-invoice-{id}")]
    assert (custom["library"], custom["stored_options"]) == ("Celery", "status: SUCCESS on 32 of 32 sampled results")
    assert "None keeps results forever" in custom["setting"]
    assert ("LIB001", "celery-task-meta-invoice-{id}") not in report_without_values[1]


def test_no_pickle_is_loaded(monkeypatch):
    """Pickles are told by their opcodes: nothing in the analysis unpickles a value."""
    import pickle

    def refuse(*args, **kwargs):
        raise AssertionError("a value was unpickled")

    for name in ("loads", "load", "Unpickler"):
        monkeypatch.setattr(pickle, name, refuse)
    rows = {r["pattern"]: r["library"] for r in rdbscope.analyze(DUMP).tables["patterns"].to_pylist()}
    assert rows["rq:job:export-{id}"] == "RQ" and rows["catalog:3:category:{id}"] == "Django cache"
