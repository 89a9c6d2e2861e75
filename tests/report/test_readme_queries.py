"""The dataset queries in README run on a real report dataset."""

import re

import duckdb
import pytest
from conftest import ROOT, SAMPLE_DUMPS

import rdbscope
from rdbscope.report.dataset import write_report

README = (ROOT / "README.md").read_text()
SECTION = README[README.index("### Scheduled reports"):README.index("### Compared with the tools you know")]


DAYS = (("2030-01-01", "redis-7.0-default.rdb"), ("2030-01-02", "redis-8.2-default.rdb"),
        ("2030-01-10", "valkey-8.1-default.rdb"))


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    root = tmp_path_factory.mktemp("srv")
    for day, dump in DAYS:
        write_report(rdbscope.analyze(rdbscope.load(SAMPLE_DUMPS / dump)), root, "cache-1", date=day)
    return root


def block(language):
    return re.search(rf"```{language}\n(.*?)```", SECTION, re.S).group(1).replace("/srv/rdbscope", "{root}")


def test_the_sql_charts_memory_by_pattern_over_time(reports):
    rows = duckdb.connect().execute(block("sql").replace("{root}", str(reports))).fetchall()
    assert [str(r[0]) for r in rows] == sorted(str(r[0]) for r in rows)
    assert sorted({str(r[0]) for r in rows}) == [day for day, _dump in DAYS]
    first_day = [r for r in rows if str(r[0]) == "2030-01-01"]
    assert first_day[0][1] == "feed:{user42}:timeline"
    assert [r[2] for r in first_day] == sorted((r[2] for r in first_day), reverse=True)


def test_the_pandas_chart_runs_with_dates_in_order(reports, monkeypatch):
    import glob

    import matplotlib

    matplotlib.use("Agg")
    real_glob = glob.glob
    # Glob order is directory order, not date order: give the snippet the worst one.
    monkeypatch.setattr(glob, "glob", lambda pattern: sorted(real_glob(pattern), reverse=True))
    code = block("python").replace("{root}", str(reports))
    namespace = {}
    exec(compile(code, "README", "exec"), namespace)
    assert set(namespace["cache1"]["date"].astype(str)) == {day for day, _dump in DAYS}
    assert len(namespace["top"]) == 8
    dates = [str(d.date()) for d in namespace["memory"].index]
    assert dates == [day for day, _dump in DAYS]
    assert "feed:{user42}:timeline" in namespace["memory"].columns
