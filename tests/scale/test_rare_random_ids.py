"""Random ids of a family the pattern sample is too small to learn are shown alike in every chunking."""

import random
import string

import pytest
from servers import dump_written_by

from rdbscope.api import _as_config, _run_bounded

URL_SAFE = string.ascii_letters + string.digits + "-_"


def _session_dump(tmp_path, seed):
    """Redis 7.0 holding express-session-like and Socket.IO-like random ids beside common families."""
    rng = random.Random(seed)

    def write(pipe):
        for _ in range(400):
            pipe.set("sess:" + "".join(rng.choices(URL_SAFE, k=32)), "x" * 50, ex=3600)
        for _ in range(150):
            pipe.set("sio:session:" + "".join(rng.choices(URL_SAFE, k=20)), "y" * 30, ex=600)
        for i in range(3000):
            pipe.set(f"user:{i}:profile", "z")
        for i in range(800):
            pipe.hset(f"cart:{i}", mapping={"a": 1})

    return dump_written_by("redis-7.0", write, tmp_path / f"sessions-{seed}.rdb")


@pytest.mark.parametrize("seed", range(1, 7))
def test_rare_random_ids_are_one_pattern_in_every_chunking(tmp_path, seed):
    dump = _session_dump(tmp_path, seed)
    seen = {}
    for chunk_keys in (97, 500, 1_000_000):
        res = _run_bounded(dump, _as_config(None), None, chunk_keys=chunk_keys, sample_keys=50)
        patterns = res.tables["patterns"]
        seen[chunk_keys] = sorted(zip(patterns["pattern"].to_pylist(), patterns["n_keys"].to_pylist(), strict=True))
    assert seen[97] == seen[500] == seen[1_000_000]
    by_family = {pattern.split(":{")[0]: n for pattern, n in seen[97]}
    assert by_family["sess"] == 400 and by_family["sio:session"] == 150, seen[97]
