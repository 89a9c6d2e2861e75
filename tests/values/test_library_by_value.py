"""Libraries told by their values where the application chose the names: Flask-Caching under a prefix of the
application's, written through Flask-Caching's own API to Redis 7.0 (redis-py's Lock, Django's cache, RQ,
Redis OM and BullMQ: see test_library_evidence.py, on libraries.rdb); and what is not told so."""

import pytest
from servers import server

import rdbscope

pytestmark = pytest.mark.server


def test_flask_caching_entries_under_the_applications_prefix_are_flask_cachings(tmp_path):
    flask = pytest.importorskip("flask", reason="pip install -e '.[test]' (Flask, Flask-Caching)")
    flask_caching = pytest.importorskip("flask_caching", reason="pip install -e '.[test]' (Flask-Caching)")
    from make_sample_dumps import RunningServer

    with RunningServer(server("redis-7.0"), {"save": ""}) as running:
        app = flask.Flask("shop")
        cache = flask_caching.Cache(app, config={"CACHE_TYPE": "RedisCache", "CACHE_REDIS_PORT": running.port,
                                                 "CACHE_KEY_PREFIX": "shop:"})
        with app.app_context():
            for i in range(60):
                cache.set(f"feed:{i}", {"items": list(range(i % 7)), "owner": i}, timeout=0)
                cache.set(f"visits:{i}", i * 3, timeout=0)  # an integer is stored as its digits
        running.client(0).execute_command("SAVE")
        dump = tmp_path / "flask-caching.rdb"
        dump.write_bytes(running.dump_path.read_bytes())
    rows = {r["pattern"]: r for r in rdbscope.analyze(dump).tables["patterns"].to_pylist()}
    assert (rows["shop:feed:{id}"]["library"], rows["shop:feed:{id}"]["key_kind"]) == ("Flask-Caching",
                                                                                        "cache entry")
    assert rows["shop:visits:{id}"]["library"] is None  # digits alone could be anyone's
    lib003 = [f for f in rdbscope.analyze(dump).finding_list if f.code == "LIB003"]
    assert [(f.pattern, f.n_keys) for f in lib003] == [("shop:feed:{id}", 60)]
    not_read = rdbscope.analyze(dump, values=False).tables["patterns"].to_pylist()
    assert {r["library"] for r in not_read} == {None}


def test_an_applications_own_pickles_and_pk_fields_are_not_claimed(tmp_path):
    """Pickles the application writes itself under names without Django's '<KEY_PREFIX>:<VERSION>:', and
    hashes with a pk field that holds no generated id, stay the application's (written by redis-py to
    Redis 7.0)."""
    import pickle

    from make_sample_dumps import RunningServer

    with RunningServer(server("redis-7.0"), {"save": ""}) as running:
        client = running.client(0)
        for i in range(40):
            client.set(f"report:{i}:rows", pickle.dumps({"rows": list(range(i % 5)), "owner": i}, protocol=5))
            client.hset(f"product:{i}", mapping={"pk": f"sku-{i}", "name": f"product {i}"})
        client.execute_command("SAVE")
        dump = tmp_path / "own.rdb"
        dump.write_bytes(running.dump_path.read_bytes())
    rows = {r["pattern"]: r["library"] for r in rdbscope.analyze(dump).tables["patterns"].to_pylist()}
    assert rows == {"report:{id}:rows": None, "product:{id}": None}
