"""What the libraries' own values say, on the keyspace the libraries wrote (sample_dumps/libraries.rdb):
the retention a job queue's jobs stored, and the library a key's value tells where the application chose its
name. The truth (libraries.json) says which configuration each family was written with."""

import json

import pytest
from conftest import SAMPLE_DUMPS

import rdbscope

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
