"""The library columns of the report (`library`, `key_kind`) on the keyspace written by real libraries
(sample_dumps/make_library_dump.py), in the JSON document and in the HTML page."""

import json
from html.parser import HTMLParser

import pytest
from conftest import SAMPLE_DUMPS
from typer.testing import CliRunner

from rdbscope.cli import app
from rdbscope.rdb.keytext import printable

DUMP = SAMPLE_DUMPS / "libraries.rdb"
TRUTH = json.loads((SAMPLE_DUMPS / "libraries.json").read_text())
#: Enough rows for every pattern of the dump.
TOP = 500
#: (pattern, library, key kind) as schemas.py names them, read from keys the library wrote.
KINDS = [
    ("bull:emails:{id}", "BullMQ", "job"),
    ("bull:video:{id}", "Bull", "job"),
    ("bull:emails:events", "BullMQ", "event stream"),
    ("celery-task-meta-{uuid}", "Celery", "task result"),
    ("rq:job:{uuid}", "RQ", "job"),
    ("rq:failed:default", "RQ", "job registry"),
    ("shop:1:django.contrib.sessions.cache{*}", "Django sessions", "session"),
    ("shop:1:product:{id}:price", "Django cache", "cache entry"),
    ("LIMITS:LIMITER/login/{ip}/1000/1/hour", "limits", "rate-limit window"),
    ("sess:{*}", "express-session", "session"),
    ("dead", "Sidekiq", "dead jobs"),
    ("resque:failed", "Resque", "failed jobs"),
    ("laravel_database_laravel_cache:report:{id}", "Laravel cache", "cache entry"),
    ("laravel_database_queues:default", "Laravel queue", "queue"),
    ("socket.io", "Socket.IO streams adapter", "event stream"),
    ("sio:session:{*}", "Socket.IO streams adapter", "session"),
    ("storefront:views/products/_product:{hex}/products/{id}", "Rails cache", "view fragment"),
]

runner = CliRunner()


@pytest.fixture(scope="module")
def json_patterns():
    done = runner.invoke(app, ["report", str(DUMP), "--format", "json", "--top", str(TOP)], catch_exceptions=False)
    assert done.exit_code in (0, 1), done.output
    rows = json.loads(done.stdout)["patterns"]
    return {row["pattern"]: row for row in rows}


class _Tables(HTMLParser):
    """Every <table> of a page: its header cells and rows of cell texts."""

    def __init__(self):
        super().__init__()
        self.tables, self._cell = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append({"head": [], "rows": []})
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            text = "".join(self._cell).strip()
            (self.tables[-1]["head"] if tag == "th" else self.tables[-1]["rows"][-1]).append(text)
            self._cell = None


@pytest.fixture(scope="module")
def html_owner_cells(tmp_path_factory):
    page = tmp_path_factory.mktemp("html") / "libraries.html"
    done = runner.invoke(app, ["report", str(DUMP), "--html", str(page), "--top", str(TOP)], catch_exceptions=False)
    assert done.exit_code in (0, 1), done.output
    parser = _Tables()
    parser.feed(page.read_text(encoding="utf-8"))
    tables = [t for t in parser.tables if "library" in t["head"] and "pattern" in t["head"]]
    assert tables, "no pattern table with a library column"
    head = tables[0]["head"]
    rows = [r for r in tables[0]["rows"] if r]
    return {r[head.index("pattern")]: r[head.index("library")] for r in rows}


#: The families whose names tell their library (the others' names are the application's: only values tell).
NAMED = [f for f in TRUTH["families"] if f["told_by"] == "name"]


@pytest.mark.parametrize("family", NAMED, ids=[f["pattern"] for f in NAMED])
def test_json_patterns_carry_the_library_that_wrote_them(json_patterns, family):
    row = json_patterns[family["pattern"]]
    assert row["library"] == family["library"]
    assert row["key_kind"]


@pytest.mark.parametrize(("pattern", "library", "kind"), KINDS, ids=[k[0] for k in KINDS])
def test_json_key_kinds(json_patterns, pattern, library, kind):
    assert (json_patterns[pattern]["library"], json_patterns[pattern]["key_kind"]) == (library, kind)


def test_at_least_95_percent_of_the_id_carrying_families_carry_their_library():
    """The share of the truth's families whose pattern has a placeholder (jobs, results, sessions, locks,
    windows, ...) that `rdbscope patterns` attributes to their library: counting those whose name is the
    application's (redis-py's Lock), which only their values tell."""
    done = runner.invoke(app, ["patterns", str(DUMP), "--format", "json", "--top", str(TOP)], catch_exceptions=False)
    assert done.exit_code in (0, 1), done.output
    library_of = {row["pattern"]: row["library"] for row in json.loads(done.stdout)}
    carrying = [f for f in TRUTH["families"] if f["carries_id"]]
    attributed = [f for f in carrying if library_of[f["pattern"]] == f["library"]]
    assert len(carrying) >= 45
    assert len(attributed) / len(carrying) >= 0.95
    assert [f["pattern"] for f in carrying if f not in attributed] == []  # redis-py's locks, by their tokens


def test_json_application_patterns_have_no_library(json_patterns):
    for family in TRUTH["user_families"]:
        row = json_patterns[family["pattern"]]
        assert (row["library"], row["key_kind"]) == (None, None)


@pytest.mark.slow
def test_html_shows_library_and_key_kind_of_each_pattern_shown(html_owner_cells, json_patterns):
    """The page shows the top patterns by memory (25); each shows "library: key kind", or nothing."""
    assert len(html_owner_cells) == 25
    shown = {printable(pattern): row for pattern, row in json_patterns.items()}  # kombu's '\x06\x16' escaped
    for pattern, cell in html_owner_cells.items():
        row = shown[pattern]
        assert cell == (f"{row['library']}: {row['key_kind']}" if row["library"] else ""), pattern
    assert html_owner_cells["bull:emails:{id}"] == "BullMQ: job"
    assert html_owner_cells["rq:results:{uuid}"] == "RQ: job result"
    assert html_owner_cells["audit:event:{id}"] == ""
