"""One engine, one report: the HTML report (every section, every chart) and the JSON of the
tables and findings are the same bytes whatever the chunks the keys were measured in, and from a
table loaded first; and the same report written twice is the same bytes, but for the minute its
footer says it was written."""

import json
import re

import pytest
from conftest import SAMPLE_DUMPS

import rdbscope
from rdbscope.report.html import render_html as render

#: The footer's "Written by rdbscope … on 2026-11-27 19:00 UTC": the one thing that changes with the clock.
WRITTEN_AT = re.compile(r"(Written by rdbscope \S+ on )\d{4}-\d\d-\d\d \d\d:\d\d UTC")


def render_html(res, source):
    html, n = WRITTEN_AT.subn(r"\1(when)", render(res, source=source))
    assert n == 1
    return html


def tables_and_findings(res):
    tables = {name: table.to_pylist() for name, table in sorted(res.tables.items())}
    return json.dumps({"tables": tables, "findings": res.findings_table().to_pylist()}, default=str, sort_keys=True)


@pytest.mark.slow  # whole HTML reports; the quick tier compares the tables and findings (tests/scale/test_bounded.py)
@pytest.mark.parametrize("dump", [SAMPLE_DUMPS / "libraries.rdb", SAMPLE_DUMPS / "redis-8.2-default.rdb"],
                         ids=lambda p: p.name)
def test_the_report_is_the_same_bytes_whatever_the_chunking(dump):
    one_chunk = rdbscope.analyze(dump, chunk_keys=1_000_000)
    expected_html = render_html(one_chunk, source=dump.name)
    expected_json = tables_and_findings(one_chunk)
    assert "Memory by pattern" in expected_html and '"findings": [' in expected_json
    for res in (rdbscope.analyze(dump, chunk_keys=97), rdbscope.analyze(dump, chunk_keys=500),
                rdbscope.analyze(rdbscope.load(dump))):
        assert tables_and_findings(res) == expected_json
        assert render_html(res, source=dump.name) == expected_html
    assert render_html(one_chunk, source=dump.name) == expected_html  # written again: the same bytes
