"""Figures and the HTML report on a sample dump."""

import base64
import datetime
import re

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from conftest import SAMPLE_DUMPS
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import rdbscope
from rdbscope.report import plots
from rdbscope.report.html import render_html, write_html
from rdbscope.report.treemap import squarify

DUMP = SAMPLE_DUMPS / "redis-8.2-default.rdb"


@pytest.fixture(scope="module")
def res():
    return rdbscope.analyze(rdbscope.load(DUMP))


@pytest.mark.parametrize("name", plots.FIGURES)
def test_every_figure_is_a_figure_with_a_title(res, name):
    fig = getattr(res.plot, name)()
    assert isinstance(fig, Figure)
    assert fig.axes[0].get_title(loc="left")


def test_plot_is_an_accessor_of_every_result(res):
    assert isinstance(res.plot, plots.PlotAccessor)
    assert rdbscope.Result.plot is plots.PlotAccessor


def test_memory_by_pattern_shows_the_largest_patterns(res):
    fig = res.plot.memory_by_pattern(top=5)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    top = res.patterns.sort_values("memory_bytes_sum", ascending=False).head(5)
    assert len(labels) == 6 and labels[-1].endswith("other patterns")
    assert [lab.split(" ", 1)[1] for lab in labels[:5]] == list(top["pattern"])
    widths = [p.get_width() for p in ax.patches]
    assert widths[:5] == [float(v) for v in top["memory_bytes_sum"]]
    assert sum(widths) == pytest.approx(float(res.patterns["memory_bytes_sum"].sum()))
    assert all(re.fullmatch(r"\d+(\.\d)? (B|KB|MB)", t.get_text()) for t in ax.get_xticklabels() if t.get_text())


def test_key_sizes_counts_every_key(res):
    fig = res.plot.key_sizes()
    assert sum(p.get_height() for ax in fig.axes for p in ax.patches) == res.keys.num_rows


@pytest.mark.parametrize("name", ["key_sizes", "ttl"])
def test_memory_variants_are_small_multiples_summing_the_memory_of_each_type(res, name):
    table = res.keys.to_arrow().to_pylist()
    if name == "ttl":
        ctime_ms = int(res.info.aux["ctime"]) * 1000
        table = [r for r in table if r["expire_at"] is not None and r["expire_at"].timestamp() * 1000 > ctime_ms]
    memory, counted = {}, {}
    for row in table:
        memory[row["type"]] = memory.get(row["type"], 0) + (row["est_memory_bytes"] or row["rdb_bytes"])
        counted[row["type"]] = counted.get(row["type"], 0) + 1
    for by, expected in (("memory", memory), ("keys", counted)):
        fig = getattr(res.plot, name)(by=by)
        panels = {ax.get_ylabel().split("\n")[0]: ax for ax in fig.axes}
        assert set(panels) == set(expected)  # one panel per type, none stacked on another
        for type_name, ax in panels.items():
            assert sum(p.get_height() for p in ax.patches) == pytest.approx(expected[type_name]), (by, type_name)
        shared = {ax.get_xlim() for ax in fig.axes}
        assert len(shared) == 1  # one x axis for every panel


def test_expiry_timeline_marks_every_incident_of_the_table(res):
    fig = res.plot.expiry()
    texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    incidents = res.tables["expiry_bursts"].to_pylist()
    biggest = max(incidents, key=lambda r: r["n_keys"])
    assert f"{biggest['n_keys']:,} keys in" in texts
    assert f"{len(incidents)} incidents marked" in fig.axes[0].get_title(loc="left") and len(incidents) >= 2
    dashed = [line for line in fig.axes[0].lines if line.get_linestyle() == "--"]
    assert len(dashed) == len(incidents)
    n_with_ttl = res.keys.num_rows - res.keys.table["expire_at"].null_count
    assert sum(p.get_height() for p in fig.axes[0].patches) == n_with_ttl


@pytest.fixture(scope="module")
def res_saved_later():
    """The sample dump as if saved on 2030-03-18: its first cliff (2030-03-17) has already expired."""
    keys = rdbscope.load(DUMP)
    keys.info.aux["ctime"] = str(int(datetime.datetime(2030, 3, 18, tzinfo=datetime.timezone.utc).timestamp()))
    return rdbscope.analyze(keys)


def drawn_text_boxes(fig):
    """Window extents of the figure's texts that show: the labels in the axes, and the axis labels."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    first, *others = fig.axes
    texts = [t for t in first.texts if t.get_text().strip()] + [first.xaxis.label, first.title]
    for ax in others:  # the panels below the first of small multiples: the x axis label of the last
        texts += [t for t in (*ax.texts, ax.xaxis.label) if t.get_text().strip()]
    return [(t.get_text(), t.get_window_extent(renderer)) for t in texts]


@pytest.mark.parametrize("name", ["ttl", "key_sizes", "expiry"])
@pytest.mark.parametrize("which", ["as saved", "saved later"])
def test_labels_do_not_overlap(res, res_saved_later, name, which):
    fig = getattr((res if which == "as saved" else res_saved_later).plot, name)()
    boxes = drawn_text_boxes(fig)
    assert len(boxes) >= 3  # a percentile or cliff label at least, the axis label, the title
    for i, (text_a, a) in enumerate(boxes):
        for text_b, b in boxes[i + 1:]:
            assert not a.overlaps(b), (text_a, text_b)


def test_keys_already_expired_are_counted_under_the_axis(res_saved_later):
    expired = pc.sum(pc.less_equal(res_saved_later.keys.table["expire_at"].cast(pa.int64()),
                                   int(res_saved_later.keys.info.aux["ctime"]) * 1000)).as_py()
    assert expired == 300
    xlabel = res_saved_later.plot.ttl().axes[-1].get_xlabel()
    assert xlabel.endswith("; 300 keys already expired at save time")


def test_ttl_title_counts(res):
    title = res.plot.ttl().axes[0].get_title(loc="left")
    n_ttl = res.keys.num_rows - res.keys.table["expire_at"].null_count
    assert f"{n_ttl:,} of {res.keys.num_rows:,} keys have a TTL" in title


def test_figures_draw_on_a_given_axis(res):
    fig = Figure()
    ax = fig.add_subplot()
    assert res.plot.types(ax=ax) is fig


def test_figures_of_an_empty_result():
    empty = rdbscope.analyze(rdbscope.load(DUMP, key_glob="no-such-key*"))
    for name in plots.FIGURES:
        assert isinstance(getattr(empty.plot, name)(), Figure)
    assert "<!DOCTYPE html>" in render_html(empty)


def test_squarify_tiles_the_box():
    values = [50, 25, 12, 8, 5]
    rects = squarify(values, 0, 0, 10, 6)
    assert sum(w * h for _x, _y, w, h in rects) == pytest.approx(60)
    for value, (_x, _y, w, h) in zip(values, rects, strict=True):
        assert w * h == pytest.approx(60 * value / 100)
        assert max(w / h, h / w) < 4


@pytest.fixture(scope="module")
def html_file(res, tmp_path_factory):
    """The HTML report of ``res``, written once for the tests that read it."""
    return write_html(res, tmp_path_factory.mktemp("html") / "report.html", source="<dump>.rdb")


def test_html_is_self_contained(res, html_file):
    text = html_file.read_text()
    assert text.startswith("<!DOCTYPE html>")
    assert re.findall(r"<script[^>]*>", text, re.IGNORECASE) == ["<script>"]  # one inline script, nothing loaded
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text)
    images = re.findall(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', text)
    assert len(images) == len(plots.FIGURES) + 2  # key sizes and TTLs by memory as well
    assert all(base64.b64decode(i).lstrip().startswith(b"<?xml") for i in images)
    assert f"{res.keys.num_rows:,}" in text and "redis 8.2.3" in text
    for finding in res.finding_list:
        assert finding.code in text
    assert oct(html_file.stat().st_mode & 0o777) != oct(0o600)


def test_html_escapes_text_from_the_dump(html_file):
    text = html_file.read_text()
    assert "&lt;dump&gt;.rdb" in text and "<dump>" not in text
    assert "bin:\\xff\\xfe\\x00token" in text  # control bytes of keys shown escaped


def test_html_groups_findings_by_code_after_the_memory_section(res, html_file):
    text = html_file.read_text()
    sections = re.findall(r'<section id="(\w+)">', text)
    assert sections == ["overview", "summary", "memory", "findings", "keys", "ttl", "expiry", "activity"]
    summary = text[text.index('<section id="summary">'):text.index('<section id="memory">')]
    for part in ("Memory by type", "Top patterns by memory", "Memory freed over time", "Expiry incidents",
                 "Cold and hot memory", "Largest savings", "CONFIG SET"):
        assert part in summary
    groups = re.findall(r'<details id="finding-(\w+)"', text)
    assert groups == list(dict.fromkeys(f.code for f in res.finding_list))
    assert 'title="emoji:🍕:orders"' in text  # the whole name, for a cell cut short


def test_html_fonts_name_emoji_and_cjk_faces():
    from rdbscope.report import html

    for stack in (html.SANS_FONTS, html.MONO_FONTS):
        assert "Noto Color Emoji" in stack and "Noto Sans CJK SC" in stack
        assert stack.split(", ")[-1] in ("sans-serif", "monospace")
