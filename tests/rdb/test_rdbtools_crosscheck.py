"""An independent parser (rdbtools) agrees on keys, types, expiries and lengths (RDB <= 9)."""

import datetime

import pytest
from conftest import CORPUS, corpus_available, needs_corpus

import rdbscope

rdbtools = pytest.importorskip("rdbtools", reason="rdbtools (a test dependency) is not installed")

pytestmark = needs_corpus()


class Collect(rdbtools.RdbCallback):
    """Records (db, key) -> [type, expiry ms, element count] from rdbtools' callbacks."""

    def __init__(self):
        super().__init__(string_escape=None)
        self.keys = {}
        self.db = 0

    def start_database(self, db_number):
        self.db = db_number

    @staticmethod
    def _key(key):
        return str(key).encode() if isinstance(key, int) else key

    def _start(self, key, kind, expiry):
        key = self._key(key)
        ms = None
        if expiry is not None:
            ms = round((expiry - datetime.datetime(1970, 1, 1)).total_seconds() * 1000)
        self.keys[(self.db, key)] = [kind, ms, 0]

    def _add(self, key):
        self.keys[(self.db, self._key(key))][2] += 1

    def set(self, key, value, expiry, info):
        self._start(key, "string", expiry)
        self.keys[(self.db, self._key(key))][2] = len(value) if isinstance(value, bytes) else len(str(value))

    def start_hash(self, key, length, expiry, info):
        self._start(key, "hash", expiry)

    def hset(self, key, field, value):
        self._add(key)

    def start_set(self, key, cardinality, expiry, info):
        self._start(key, "set", expiry)

    def sadd(self, key, member):
        self._add(key)

    def start_list(self, key, expiry, info):
        self._start(key, "list", expiry)

    def rpush(self, key, value):
        self._add(key)

    def start_sorted_set(self, key, length, expiry, info):
        self._start(key, "zset", expiry)

    def zadd(self, key, score, member):
        self._add(key)

    def end_hash(self, key):
        pass

    def end_set(self, key):
        pass

    def end_list(self, key, info=None):
        pass

    def end_sorted_set(self, key):
        pass


#: Files rdbtools misreads, checked against the server oracle elsewhere.
RDBTOOLS_MISREADS = {
    "Snapchat__KeyDB/":
        "KeyDB writes an mvcc-tstamp AUX field between EXPIRETIME and the key; rdbtools drops the expiry",
}


def old_dumps():
    if not corpus_available():
        return []
    rows = (CORPUS / "public" / "MANIFEST.tsv").read_text().splitlines()[1:]
    return [r.split("\t")[0] for r in rows if r.split("\t")[5].isdigit() and int(r.split("\t")[5]) <= 9]


@pytest.mark.slow
def test_rdbtools_agrees_on_old_dumps():
    checked = 0
    for name in old_dumps():
        if any(name.startswith(prefix) for prefix in RDBTOOLS_MISREADS):
            continue
        path = CORPUS / "public" / name
        collected = Collect()
        try:
            rdbtools.RdbParser(collected).parse(str(path))
        except Exception:  # rdbtools fails on modules, streams and damaged files; rdbscope is tested on those elsewhere
            continue
        try:
            ours = rdbscope.load(path)
        except rdbscope.RdbError:
            continue
        rows = {(r["db"], r["key"]): r for r in ours.to_arrow().to_pylist()}
        theirs = {k: v for k, v in collected.keys.items()}
        assert set(theirs) <= set(rows), name
        for key, (kind, expiry, count) in theirs.items():
            row = rows[key]
            ours_ms = None if row["expire_at"] is None else round(row["expire_at"].timestamp() * 1000)
            assert (row["type"], ours_ms, row["n_elements"]) == (kind, expiry, count), (name, key)
        checked += 1
    assert checked >= 80, checked
