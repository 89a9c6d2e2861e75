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


def test_celery_results_say_celerys_states_and_never_a_custom_one(tmp_path):
    """Results stored through Celery's result backend with result_expires=None (Redis 7.0): LIB001 counts
    them by state, and names only Celery's own states (a custom state's name is the application's)."""
    celery = pytest.importorskip("celery", reason="pip install -e '.[test]' (Celery)")
    from make_sample_dumps import RunningServer

    with RunningServer(server("redis-7.0"), {"save": ""}) as running:
        url = f"redis://127.0.0.1:{running.port}/0"
        app = celery.Celery("shop", broker=url, backend=url)
        app.conf.update(result_expires=None)
        for i in range(30):
            state, result = ("SUCCESS", i) if i % 3 else ("MEASURING-THE-LEDGER", {"done": i})
            app.backend.store_result(f"task-{i}", result, state)
        running.client(0).execute_command("SAVE")
        dump = tmp_path / "celery.rdb"
        dump.write_bytes(running.dump_path.read_bytes())
    (finding,) = [f for f in rdbscope.analyze(dump).finding_list if f.code == "LIB001"]
    assert (finding.pattern, finding.n_keys) == ("celery-task-meta-task-{id}", 30)  # under library_min_keys
    stored = "status: SUCCESS on 20 of 30 sampled results; status: a custom state on 10 of 30 sampled results"
    assert finding.details_dict["stored_options"] == stored
    assert "MEASURING" not in finding.message + finding.details
