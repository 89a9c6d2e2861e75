"""The HTML report as a browser draws it: headless Chromium, screenshots and the DOM after a click.

Skipped, naming what to install, where Chromium or the emoji/CJK fonts are absent;
CI installs them and sets RDBSCOPE_REQUIRE_SERVERS=1, which makes them required.
"""

import json
import re
import shutil
import subprocess

import numpy as np
import pytest
from conftest import SAMPLE_DUMPS, skip_or_fail
from PIL import Image

import rdbscope
from rdbscope.report import html as report_html
from rdbscope.report.plots import TYPE_COLORS

DUMP = SAMPLE_DUMPS / "redis-8.2-default.rdb"
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
FONT_PACKAGES = "apt-get install fonts-noto-color-emoji fonts-noto-cjk"


pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def browser():
    found = next((shutil.which(name) for name in BROWSERS if shutil.which(name)), None)
    if found is None:
        skip_or_fail("no Chromium on this machine for the screenshot tests; apt-get install chromium")
    return found


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    path = tmp_path_factory.mktemp("html") / "report.html"
    report_html.write_html(rdbscope.analyze(rdbscope.load(DUMP)), path, source=DUMP.name)
    return path


def run_chromium(browser, tmp_path, page, *args, width=1280, height=1000):
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               f"--user-data-dir={tmp_path / 'profile'}", f"--window-size={width},{height}", *args,
               page.as_uri()]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def screenshot(browser, tmp_path, page, **size):
    png = tmp_path / f"{page.stem}.png"
    run_chromium(browser, tmp_path, page, f"--screenshot={png}", **size)
    return np.asarray(Image.open(png).convert("RGB")).astype(int)


def pixels_of(image, hex_colour, tolerance=12):
    rgb = np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)])
    return int((np.abs(image - rgb).max(axis=2) <= tolerance).sum())


def test_the_first_screen_shows_the_overview_and_the_summary(browser, report, tmp_path, probed):
    first_screen = screenshot(browser, tmp_path, report, height=1000)
    tops = dict(probed["sections"])
    assert tops["summary"] < 400 < tops["memory"]  # the summary starts on the first screen, the charts after it
    # No finding severity badge (error red) before the fold: the findings come after memory.
    assert pixels_of(first_screen, "#c62828", tolerance=6) == 0
    # The largest pattern (a list) leads the memory chart: list green, below the fold now.
    assert pixels_of(screenshot(browser, tmp_path, report, height=tops["memory"] + 600), TYPE_COLORS["list"]) > 5000


PROBE = """
<script>
var result = {};
result.sections = Array.prototype.map.call(document.querySelectorAll("main > section"), function (s) {
  return [s.id, Math.round(s.getBoundingClientRect().top)];
});
result.groups = Array.prototype.map.call(document.querySelectorAll("#findings details"), function (d) {
  return [d.querySelector(".code").textContent, d.open, d.querySelectorAll("tbody tr").length];
});
var table = document.querySelector("#memory table"), main = document.querySelector("main");
result.tableFits = table.getBoundingClientRect().right <= main.getBoundingClientRect().right;
document.querySelectorAll("#findings details").forEach(function (d) { d.open = true; });
var widest = 0;
document.querySelectorAll("table").forEach(function (t) {
  widest = Math.max(widest, t.getBoundingClientRect().right - main.getBoundingClientRect().right);
});
result.overflowPx = widest;
var clipped = Array.prototype.filter.call(document.querySelectorAll("td.key .clip"), function (c) {
  return c.scrollWidth > c.clientWidth;
});
result.clipped = clipped.map(function (c) { return [c.textContent, c.title]; });
function column(t, name) {
  var heads = Array.prototype.map.call(t.tHead.rows[0].cells, function (c) { return c.textContent; });
  var i = heads.indexOf(name);
  return Array.prototype.map.call(t.tBodies[0].rows, function (r) {
    return [r.cells[i].textContent, r.cells[heads.indexOf("pattern")].textContent];
  });
}
var memory = Array.prototype.filter.call(table.tHead.rows[0].cells, function (c) {
  return c.textContent === "keys";
})[0];
result.before = column(table, "keys");
memory.click();
result.descending = column(table, "keys");
memory.click();
result.ascending = column(table, "keys");
result.sortMark = memory.getAttribute("aria-sort");
var out = document.createElement("pre");
out.id = "probe";
out.textContent = JSON.stringify(result);
document.body.appendChild(out);
</script>
"""


@pytest.fixture(scope="module")
def probed(browser, report, tmp_path_factory):
    """What the page looks like to a script run after the report's own: positions, groups, sorting."""
    tmp_path = tmp_path_factory.mktemp("probe")
    page = tmp_path / "probed.html"
    page.write_text(report.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    dom = run_chromium(browser, tmp_path, page, "--dump-dom")
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.DOTALL)
    assert found, dom[-2000:]
    return json.loads(found.group(1).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))


def test_sections_run_overview_memory_findings_keys_ttl_expiry(probed):
    ids = [section for section, _top in probed["sections"]]
    assert ids == [section for section, _heading in report_html.SECTIONS]
    tops = [top for _section, top in probed["sections"]]
    assert tops == sorted(tops) and tops[0] < 150


def test_findings_are_grouped_by_code_and_only_errors_start_open(probed):
    res = rdbscope.analyze(rdbscope.load(DUMP))
    codes = list(dict.fromkeys(f.code for f in res.finding_list))
    assert [code for code, _open, _rows in probed["groups"]] == codes
    assert sum(rows for _code, _open, rows in probed["groups"]) == len(res.finding_list)
    errors = {f.code for f in res.finding_list if f.severity.name.lower() == "error"}
    assert {code for code, is_open, _rows in probed["groups"] if is_open} == errors == {"TTL002"}


def test_long_names_are_cut_inside_their_table_with_the_whole_name_on_hover(probed):
    assert probed["tableFits"] and probed["overflowPx"] <= 0
    long_name = "cache:fragment:with-a-much-longer-key-name-for-embstr:len{id}"
    assert [long_name, long_name] in probed["clipped"]


def test_clicking_a_header_sorts_by_the_raw_number(probed):
    def counts(rows):
        return [int(text.replace(",", "")) for text, _pattern in rows]

    assert counts(probed["before"]) != sorted(counts(probed["before"]), reverse=True)  # memory order first
    assert counts(probed["descending"]) == sorted(counts(probed["before"]), reverse=True)
    assert counts(probed["ascending"]) == sorted(counts(probed["before"]))
    assert sorted(probed["ascending"]) == sorted(probed["before"])  # the same rows, reordered
    assert probed["sortMark"] == "ascending"


GLYPHS = {"emoji": "🍕", "cjk_a": "资", "cjk_b": "料", "latin": "x"}


def test_key_names_with_emoji_and_cjk_show_their_glyphs(browser, tmp_path):
    fonts = subprocess.run(["fc-list", ":", "family"], check=False, capture_output=True, text=True).stdout
    if "Noto Color Emoji" not in fonts or "Noto Sans CJK" not in fonts:
        skip_or_fail(f"no colour-emoji or CJK font on this machine; {FONT_PACKAGES}")
    # Each glyph alone in a box, in the report's own font stacks (the sans and the key-cell monospace).
    boxes = []
    for row, stack in enumerate((report_html.SANS_FONTS, report_html.MONO_FONTS)):
        for col, text in enumerate(GLYPHS.values()):
            style = f"position:absolute; left:{20 + col * 100}px; top:{20 + row * 100}px; font: 48px {stack}"
            boxes.append(f"<div style='{style}'>{text}</div>")
    page = tmp_path / "glyphs.html"
    page.write_text("<!DOCTYPE html><meta charset='utf-8'><body style='margin:0;background:#fff'>"
                    + "".join(boxes), encoding="utf-8")
    image = screenshot(browser, tmp_path, page, width=500, height=240)
    for row in range(2):
        cells = {name: image[20 + row * 100:100 + row * 100, 20 + col * 100:100 + col * 100]
                 for col, name in enumerate(GLYPHS)}
        emoji = cells["emoji"]
        coloured = (emoji.max(axis=2) - emoji.min(axis=2)) > 80
        assert coloured.sum() > 300, "the pizza emoji drew no colour (an empty box?)"
        ink = {name: (cell.min(axis=2) < 128) for name, cell in cells.items()}
        assert ink["cjk_a"].sum() > 150 and ink["cjk_b"].sum() > 150
        # Two different characters drawn the same are two identical "missing glyph" boxes.
        assert (ink["cjk_a"] != ink["cjk_b"]).sum() > 100


LAYOUT_PROBE = """
<script>
var result = {overflows: [], timeLines: [], codeGaps: []};
document.querySelectorAll(".pair > div").forEach(function (block) {
  var table = block.querySelector("table");
  if (table && table.getBoundingClientRect().right > block.getBoundingClientRect().right + 0.5) {
    result.overflows.push(block.querySelector("h3").textContent);
  }
});
function lines(node) {
  var range = document.createRange();
  range.selectNodeContents(node);
  var tops = {};
  Array.prototype.forEach.call(range.getClientRects(), function (r) { tops[Math.round(r.top)] = true; });
  return Object.keys(tops).length;
}
document.querySelectorAll("td.time").forEach(function (td) {
  if (td.textContent.trim() && td.offsetParent !== null) result.timeLines.push(lines(td));
});
document.querySelectorAll("ol.savings li").forEach(function (li) {
  var code = li.querySelector(".code"), text = code.previousSibling, range = document.createRange();
  range.setStart(text, 0);
  range.setEnd(text, text.textContent.trimEnd().length);
  var rects = range.getClientRects(), last = rects[rects.length - 1], start = code.getBoundingClientRect();
  // The gap after the text when the code follows on its line (else the code starts a line of its own).
  result.codeGaps.push(Math.abs(start.top - last.top) < 8 ? start.left - last.right : null);
});
var out = document.createElement("pre");
out.id = "probe";
out.textContent = JSON.stringify(result);
document.body.appendChild(out);
</script>
"""

SVG_PROBE = """
<script><![CDATA[
var legend = document.querySelector("g[id^=legend]").getBBox(), hits = [];
document.querySelectorAll("g[id^=text_]").forEach(function (g) {
  if (g.closest("g[id^=legend]")) return;
  var b = g.getBBox();
  if (b.x < legend.x + legend.width && legend.x < b.x + b.width &&
      b.y < legend.y + legend.height && legend.y < b.y + b.height) hits.push(g.id);
});
var out = document.createElementNS("http://www.w3.org/2000/svg", "text");
out.setAttribute("id", "probe");
out.textContent = JSON.stringify(hits);
document.documentElement.appendChild(out);
]]></script>
"""


def probe_page(browser, tmp_path, page, script, closing):
    probed_page = tmp_path / f"probed{page.suffix}"
    probed_page.write_text(page.read_text(encoding="utf-8").replace(closing, script + closing), encoding="utf-8")
    dom = run_chromium(browser, tmp_path, probed_page, "--dump-dom")
    found = re.search(r'<(pre|text) id="probe">(.*?)</(pre|text)>', dom, re.DOTALL)
    assert found, dom[-2000:]
    return json.loads(found.group(2).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
                      .replace("&quot;", '"'))


@pytest.mark.parametrize("dump", ["redis-8.2-default.rdb", "libraries.rdb"])
def test_summary_tables_fit_their_column_times_take_one_line_and_codes_stand_apart(browser, tmp_path, dump):
    from rdbscope.report.triage import triage

    page = tmp_path / "report.html"
    res = rdbscope.analyze(rdbscope.load(SAMPLE_DUMPS / dump))
    report_html.write_html(res, page, source=dump)
    found = probe_page(browser, tmp_path, page, LAYOUT_PROBE, "</body>")
    assert found["overflows"] == []
    assert found["timeLines"] and set(found["timeLines"]) == {1}
    gaps = [gap for gap in found["codeGaps"] if gap is not None]
    listed = triage(res)  # the savings, then the memory at risk: each an item with its code
    assert len(found["codeGaps"]) == len(listed.savings) + len(listed.at_risk) and gaps and min(gaps) >= 8


@pytest.mark.parametrize("dump", ["redis-8.2-default.rdb", "libraries.rdb"])
def test_the_legend_of_memory_by_pattern_covers_no_label(browser, tmp_path, dump):
    import base64

    document = report_html.render_html(rdbscope.analyze(rdbscope.load(SAMPLE_DUMPS / dump)), source=dump)
    uri = re.search(r'<img alt="Memory by pattern" src="data:image/svg\+xml;base64,([^"]+)"', document).group(1)
    svg = tmp_path / "memory_by_pattern.svg"
    svg.write_bytes(base64.b64decode(uri))
    assert probe_page(browser, tmp_path, svg, SVG_PROBE, "</svg>") == []
