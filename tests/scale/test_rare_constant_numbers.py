"""A number constant in every key of a family the pattern sample is too small to learn (a rate limit's
``1000/1/hour``) is shown alike in every chunking: as ``{id}``, since only a chunk holding ten of the
family's keys could tell it is constant. When the sample holds the whole keyspace, it is written out."""

import pytest
from servers import dump_written_by

from rdbscope.api import _as_config, _run_bounded


def _limits_and_others(pipe):
    for i in range(60):
        pipe.set(f"LIMITS:LIMITER/login/10.0.{i // 200}.{i % 200}/1000/1/hour", i, ex=3600)
    for i in range(3000):
        pipe.set(f"user:{i}:profile", "z")
    for i in range(800):
        pipe.hset(f"cart:{i}", mapping={"a": 1})


@pytest.fixture(scope="module")
def limits_dump(tmp_path_factory):
    """Redis 7.0 holding 60 rate-limit counters with a constant window among 3,800 other keys."""
    return dump_written_by("redis-7.0", _limits_and_others, tmp_path_factory.mktemp("limits") / "limits.rdb")


def _patterns(dump, chunk_keys, sample_keys):
    res = _run_bounded(dump, _as_config(None), None, chunk_keys=chunk_keys, sample_keys=sample_keys)
    patterns = res.tables["patterns"]
    return sorted(zip(patterns["pattern"].to_pylist(), patterns["n_keys"].to_pylist(), strict=True))


def test_a_constant_number_of_a_family_the_sample_missed_is_an_id_in_every_chunking(limits_dump):
    seen = {chunk_keys: _patterns(limits_dump, chunk_keys, 50) for chunk_keys in (97, 500, 1_000_000)}
    assert seen[97] == seen[500] == seen[1_000_000]
    limits = [(pattern, n) for pattern, n in seen[97] if pattern.startswith("LIMITS:")]
    assert limits == [("LIMITS:LIMITER/login/{ip}/{id}/{id}/hour", 60)]


def test_a_constant_number_is_written_out_when_the_sample_holds_every_key(limits_dump):
    for chunk_keys in (97, 1_000_000):
        limits = [(pattern, n) for pattern, n in _patterns(limits_dump, chunk_keys, 10_000)
                  if pattern.startswith("LIMITS:")]
        assert limits == [("LIMITS:LIMITER/login/{ip}/1000/1/hour", 60)]
