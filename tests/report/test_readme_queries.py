"""The dataset queries in README run on a real report dataset."""

import re

import duckdb
import pytest

import rdbscope
from conftest import ROOT, SAMPLE_DUMPS
from rdbscope.report.dataset import write_report

README = (ROOT / "README.md").read_text()
SECTION = README[README.index("### Scheduled reports"):README.index("### Compared with the tools you know")]


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    root = tmp_path_factory.mktemp("srv")
    for day, dump in (("2030-01-01", "redis-7.0-default.rdb"), ("2030-01-02", "redis-8.2-default.rdb")):
        write_report(rdbscope.analyze(rdbscope.load(SAMPLE_DUMPS / dump)), root, "cache-1", date=day)
    return root


def block(language):
    return re.search(rf"```{language}\n(.*?)```", SECTION, re.S).group(1).replace("/srv/rdbscope", "{root}")


def test_the_sql_charts_memory_by_pattern_over_time(reports):
    rows = duckdb.connect().execute(block("sql").replace("{root}", str(reports))).fetchall()
    assert sorted({str(r[0]) for r in rows}) == ["2030-01-01", "2030-01-02"]
    first_day = [r for r in rows if str(r[0]) == "2030-01-01"]
    assert first_day[0][1] == "feed:{user42}:timeline"
    assert [r[2] for r in first_day] == sorted((r[2] for r in first_day), reverse=True)


def test_the_pandas_chart_runs(reports):
    import matplotlib

    matplotlib.use("Agg")
    code = block("python").replace("{root}", str(reports))
    namespace = {}
    exec(compile(code, "README", "exec"), namespace)
    assert set(namespace["cache1"]["date"].astype(str)) == {"2030-01-01", "2030-01-02"}
    assert len(namespace["top"]) == 8
