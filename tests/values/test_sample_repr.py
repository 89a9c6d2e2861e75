"""A value sample never shows what it holds: its repr (in a log line, a traceback, a notebook cell) gives sizes."""

import shutil

from servers import make_sample_dumps, server

import rdbscope
from rdbscope.values.read import Wanted, read_samples

SECRET = b"s3cr3t-token-Zq8"


def test_a_sample_repr_shows_sizes_and_never_the_value(tmp_path):
    with make_sample_dumps.RunningServer(server("redis-7.0"), {"save": ""}) as running:
        client = running.client(0)
        client.execute_command("SET", "session:1", SECRET * 3)
        client.execute_command("HSET", "user:1", "password", SECRET, SECRET, "x")
        client.execute_command("RPUSH", "queue:1", SECRET)
        client.execute_command("SAVE")
        dump = tmp_path / "dump.rdb"
        shutil.copyfile(running.dump_path, dump)
    rows = rdbscope.load(dump).to_arrow().to_pylist()
    samples = read_samples(dump, [Wanted(r["offset"], r["type"], r["encoding"], r["n_elements"]) for r in rows])
    assert len(samples) == 3
    for sample in samples.values():
        shown = repr(sample) + str(sample)
        assert SECRET.decode() not in shown and "password" not in shown
        assert f"length={sample.length}" in shown
    string = next(s for s in samples.values() if s.type == "string")
    assert string.head == SECRET * 3  # the sample holds the value: only its repr leaves it out
    assert f"head_bytes={len(SECRET) * 3}" in repr(string)
