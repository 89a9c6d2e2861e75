"""What the HTML report and its charts say: escaped key text in the savings, the empty key as "",
shares as the tables give them, and one key, not "1 keys"; through `rdbscope report --html`."""

import datetime
import html
import re
import shutil
import time

import pytest
import servers
from conftest import SAMPLE_DUMPS
from typer.testing import CliRunner

import rdbscope
from rdbscope.cli import app

pytestmark = pytest.mark.slow  # each writes its dumps with a real server

SAMPLE = SAMPLE_DUMPS / "redis-8.2-default.rdb"
ESCAPE = "\x1b"


def write_report(dump, path):
    result = CliRunner().invoke(app, ["report", str(dump), "--html", str(path), "-q"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory):
    """The HTML report of a Redis 7.0 dump with the empty key (the largest string), cache keys whose names
    hold an ESC sequence and have no TTL (the largest saving then names them), 150 keys of one pattern
    expiring in one second and 3 x 50 of three patterns in another; with those two seconds as the server
    gives them (PEXPIRETIME)."""
    folder = tmp_path_factory.mktemp("hostile")
    with servers.make_sample_dumps.RunningServer(servers.server("redis-7.0"), {"save": ""}) as server:
        client = server.client(0)
        client.set("", "e" * 20_000)
        for i in range(300):
            client.set(f"cache:{ESCAPE}[2J:{i}", "v" * 400)
        first_s = int(time.time()) + 2 * 86400
        pipe = client.pipeline(transaction=False)
        for i in range(150):
            pipe.set(f"rate:{i}", "1", pxat=first_s * 1000 + i)
        for prefix in ("alpha", "beta", "gamma"):
            for i in range(50):
                pipe.set(f"{prefix}:{i}", "1", pxat=(first_s + 3600) * 1000 + i)
        pipe.execute()
        seconds = [client.pexpiretime(key) // 1000 for key in ("rate:0", "alpha:0")]
        client.execute_command("SAVE")
        shutil.copy(server.dump_path, folder / "dump.rdb")
    page = write_report(folder / "dump.rdb", folder / "report.html")
    moments = [datetime.datetime.fromtimestamp(s, datetime.timezone.utc) for s in seconds]
    return page, folder / "dump.rdb", [f"{moment:%Y-%m-%d %H:%M:%S}Z" for moment in moments]


@pytest.mark.server
def test_savings_escape_key_text_and_set_the_code_apart(hostile_report):
    page, _dump, _seconds = hostile_report
    assert ESCAPE not in page
    savings = re.search(r'<ol class="savings">(.*?)</ol>', page, re.DOTALL).group(1)
    first = re.search(r"<li>(.*?)</li>", savings).group(1)
    assert html.unescape(first).startswith("<b>") and "cache:\\x1b[2J:{id}" in html.unescape(first)
    assert first.endswith('<span class="code">TTL002</span>')


@pytest.mark.server
def test_the_empty_key_shows_as_two_quotes(hostile_report):
    page, dump, _seconds = hostile_report
    biggest = page[page.index('<section id="keys">'):]
    first_key = re.search(r'<td class="key"><div class="clip" title="([^"]*)">([^<]*)</div>', biggest)
    assert html.unescape(first_key.group(1)) == html.unescape(first_key.group(2)) == '""'
    by_type = page[page.index("<h3>Memory by type</h3>"):page.index("<h3>Top patterns by memory</h3>")]
    assert 'title="&quot;&quot;">&quot;&quot;</div>' in by_type  # the largest string
    res = rdbscope.analyze(dump)
    for fig in (res.plot.memory_by_pattern(), res.plot.treemap()):
        texts = chart_texts(fig) + [t.get_text() for t in fig.axes[0].get_yticklabels()]
        assert any(text.split("\n")[0] == '""' for text in texts)


@pytest.mark.server
def test_the_summary_lists_incidents_as_the_terminal_does_with_times_on_one_line(hostile_report):
    page, _dump, (one_pattern, whole_dump) = hostile_report
    incidents = page[page.index("<h3>Expiry incidents</h3>"):page.index("<h3>Cold and hot memory</h3>")]
    heads = re.findall(r"<th[^>]*>([^<]*)</th>", incidents)
    assert heads == ["pattern", "starts", "for", "keys", "memory"]
    rows = [re.findall(r"<td[^>]*>(?:<div[^>]*>)?([^<]*)", row) for row in re.findall(r"<tr>(.*?)</tr>", incidents)]
    assert sorted((r[1], r[2], r[3]) for r in rows[1:]) == [(one_pattern, "1s", "150"), (whole_dump, "1s", "150")]
    assert next(r[0] for r in rows[1:] if r[1] == whole_dump) == "(whole dump)"
    assert incidents.count('<td class="time">') == 2


def chart_texts(fig):
    return [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text") and a.get_text())]


def test_charts_give_shares_and_counts_as_the_tables_do():
    res = rdbscope.analyze(SAMPLE)
    patterns = res.tables["patterns"].to_pandas()
    tiny = patterns[(patterns["memory_share"] > 0) & (patterns["memory_share"] < 0.005)]
    assert len(tiny)
    bars = "\n".join(chart_texts(res.plot.memory_by_pattern(top=len(patterns))))
    assert bars.count("<1%") >= len(tiny) and not re.search(r"(?<![<>\d])0%", bars)
    for fig in (res.plot.types(), res.plot.memory_by_pattern(), res.plot.treemap(), res.plot.expiry(),
                res.plot.key_sizes(), res.plot.ttl()):
        texts = "\n".join(chart_texts(fig))
        assert not re.search(r"(?<![\d,])1 keys", texts), texts
    assert re.search(r"(?<![\d,])1 key(?!s)", bars)
