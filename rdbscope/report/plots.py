"""Figures of a :class:`~rdbscope.Result`, for notebooks and the HTML report.

Every ``plot_*`` function takes a result and returns a ``matplotlib.figure.Figure``
(drawn on ``ax`` when one is given). Nothing here calls ``plt.show()`` or saves a
file; figures are built without pyplot, so a notebook shows each one once.
``res.plot`` (:class:`PlotAccessor`) offers the same functions as methods.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow.compute as pc

from ..findings import format_share
from ..rdb.keytext import SHOWN_CHARS, printable
from ..sizes import format_size
from .cells import human_seconds
from .treemap import squarify
from .views import dump_ctime

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "PlotAccessor", "plot_memory_by_pattern", "plot_pattern_treemap", "plot_key_sizes",
    "plot_ttl_distribution", "plot_expiry_timeline", "plot_types_and_encodings",
]

#: One colour per key type, shared by every figure.
TYPE_COLORS = {
    "string": "#4C78A8", "hash": "#F58518", "list": "#54A24B", "set": "#B279A2", "zset": "#E45756",
    "stream": "#72B7B2", "module": "#9D755D", "array": "#EECA3B", "gcra": "#BAB0AC",
}
OTHER_COLOR = "#BAB0AC"
ACCENT = "#D62728"
_DURATION_TICKS = ((1, "1 s"), (10, "10 s"), (60, "1 min"), (600, "10 min"), (3600, "1 h"), (6 * 3600, "6 h"),
                   (86400, "1 d"), (7 * 86400, "1 w"), (30 * 86400, "30 d"), (91 * 86400, "90 d"),
                   (365 * 86400, "1 y"), (2 * 365 * 86400, "2 y"), (5 * 365 * 86400, "5 y"),
                   (10 * 365 * 86400, "10 y"))
_DURATION_UNITS = ((365 * 86400, "y"), (86400, "d"), (3600, "h"), (60, "min"), (1, "s"))


def bytes_label(value, _position=None) -> str:
    """``1536`` -> ``"1.5 KB"``, ``4096`` -> ``"4 KB"`` (binary multiples, no trailing ``.0``); a matplotlib
    tick formatter."""
    return format_size(value)


def set_bytes_axis(axis, limit, n=6) -> None:
    """Ticks at round multiples of a binary unit (0, 50 KB, 100 KB...) up to ``limit``, labelled in bytes."""
    from matplotlib.ticker import FixedLocator

    unit = 1
    while limit / unit >= 1024 and unit < 1024 ** 4:
        unit *= 1024
    span = max(limit / unit, 1e-9)
    step = next((m * 10 ** e for e in range(-2, 5) for m in (1, 2, 2.5, 5) if span / (m * 10 ** e) <= n), 1000)
    axis.set_major_locator(FixedLocator([i * step * unit for i in range(int(span / step) + 1)]))
    axis.set_major_formatter(bytes_label)


def plot_memory_by_pattern(res, top=15, ax=None) -> Figure:
    """Horizontal bars: memory of the ``top`` largest patterns, the rest as one bar.

    Each bar is coloured by the pattern's main type and labelled with its memory,
    share and key count.
    """
    fig, ax = _figure(ax, (9, 0.42 * (min(top, _n_patterns(res)) + 2) + 1.2))
    frame = _patterns(res)
    shown, rest = frame.head(top), frame.iloc[top:]
    labels = [_pattern_label(db, _named(p), res) for db, p in zip(shown["db"], shown["pattern"], strict=True)]
    values = list(shown["memory_bytes_sum"].astype(float))
    colors = [TYPE_COLORS.get(_main_type(t), OTHER_COLOR) for t in shown["types"]]
    notes = [f"{bytes_label(m)}  {format_share(s)}  ·  {_keys(n)}"
             for m, s, n in zip(values, shown["memory_share"], shown["n_keys"], strict=True)]
    if len(rest):
        labels.append(f"{len(rest):,} other patterns")
        values.append(float(rest["memory_bytes_sum"].sum()))
        colors.append(OTHER_COLOR)
        notes.append(f"{bytes_label(values[-1])}  {format_share(rest['memory_share'].sum())}  ·  "
                     f"{_keys(rest['n_keys'].sum())}")
    if not values:
        return _empty(fig, ax, "no keys")
    y = np.arange(len(values))[::-1]
    ax.barh(y, values, color=colors, height=0.7)
    ax.set_yticks(y, labels, fontsize=9)
    ax.set_xlim(0, max(values) * 1.45)
    set_bytes_axis(ax.xaxis, max(values) * 1.45)
    for yi, value, note in zip(y, values, notes, strict=True):
        ax.text(value, yi, "  " + note, va="center", fontsize=8, color="#333333")
    ax.set_xlabel(_memory_axis(res))
    ax.set_title(f"Memory by pattern (top {min(top, len(frame))} of {len(frame):,})", loc="left")
    # Beside the axes: inside, it would cover the label of a long bar at the bottom ("other patterns").
    _legend_types(ax, {_main_type(t) for t in shown["types"]}, outside=True)
    _tidy(ax, grid="x")
    return fig


def plot_pattern_treemap(res, top=30, ax=None) -> Figure:
    """A treemap of memory by pattern: area is memory, colour the pattern's main type."""
    fig, ax = _figure(ax, (10, 6))
    frame = _patterns(res)
    frame = frame[frame["memory_bytes_sum"] > 0]
    shown, rest = frame.head(top), frame.iloc[top:]
    items = [(_pattern_label(db, _named(p), res), float(m), TYPE_COLORS.get(_main_type(t), OTHER_COLOR), s)
             for db, p, m, t, s in zip(shown["db"], shown["pattern"], shown["memory_bytes_sum"], shown["types"],
                                      shown["memory_share"], strict=True)]
    if len(rest):
        items.append((f"{len(rest):,} others", float(rest["memory_bytes_sum"].sum()), OTHER_COLOR,
                      float(rest["memory_share"].sum())))
    if not items:
        return _empty(fig, ax, "no keys")
    items.sort(key=lambda item: -item[1])
    rects = squarify([value for _l, value, _c, _s in items], 0, 0, 100, 60)
    for (label, value, color, share), (x, y, w, h) in zip(items, rects, strict=True):
        ax.add_patch(_rectangle(x, y, w, h, color))
        if w > 9 and h > 4:
            size = 8 if w > 16 and h > 6 else 6.5
            text = _fit(label, w, size)
            ax.text(x + 0.8, y + 0.8, f"{text}\n{bytes_label(value)} · {format_share(share)}", va="top", ha="left",
                    fontsize=size, color="white", clip_on=True)
    ax.set_xlim(0, 100)
    ax.set_ylim(60, 0)  # the largest pattern at the top left
    ax.set_axis_off()
    ax.set_title(f"Memory by pattern: area is {_memory_axis(res).lower()} (top {len(shown)})", loc="left")
    _legend_types(ax, {_main_type(t) for t in shown["types"]}, outside=True)
    return fig


def plot_key_sizes(res, by="keys", ax=None) -> Figure:
    """Histogram of each key's memory on a log scale, one panel per type (small multiples on one axis).

    ``by="keys"`` counts keys per size bin; ``by="memory"`` sums their memory, which shows where the
    bytes are (a few big keys) rather than where the keys are. Given an ``ax``, every type in one panel.
    Drawn from the ``key_sizes`` table of the distributions pass.
    """
    if "key_sizes" not in res.tables:
        fig, ax = _figure(ax, (9, 4.5))
        return _empty(fig, ax, "not measured: the distributions pass did not run")
    counts = _distribution(res.tables["key_sizes"], "memory_bytes")
    if len(counts.values) == 0:
        fig, ax = _figure(ax, (9, 4.5))
        return _empty(fig, ax, "no keys")
    sizes = np.maximum(counts.values, 1)
    edges = 2.0 ** np.arange(0, np.ceil(np.log2(sizes.max())) + 1.5, 0.5)
    weights = counts.memory if by == "memory" else counts.keys
    fig, axes = _by_type(ax, sizes, counts.types, edges, weights, by == "memory")
    bottom = axes[-1]
    bottom.set_xscale("log", base=2)
    first = np.flatnonzero(np.histogram(sizes, bins=edges, weights=counts.keys)[0])[0]
    bottom.set_xlim(edges[max(0, first - 1)], edges[-1])
    bottom.xaxis.set_major_locator(_power_of_two_locator())
    bottom.xaxis.set_major_formatter(bytes_label)
    bottom.xaxis.set_minor_formatter(lambda *_: "")
    bottom.set_xlabel(f"{_memory_axis(res)} per key (log scale)")
    _mark_percentiles(axes, sizes, (50, 99), bytes_label, weights, by == "memory")
    n_keys = int(counts.keys.sum())
    total = f"{bytes_label(counts.memory.sum())} in {_keys(n_keys)}" if by == "memory" else _keys(n_keys)
    what = "Memory by key size" if by == "memory" else "Key size distribution"
    axes[0].set_title(f"{what} ({total})", loc="left")
    return fig


def plot_ttl_distribution(res, by="keys", ax=None) -> Figure:
    """Histogram of the remaining TTL at the dump's ctime (log scale when it spans decades), one panel per type;
    the title gives the share of keys without a TTL. ``by="memory"`` sums the keys' memory per bin.
    Drawn from the ``key_sizes`` and ``ttl_left`` tables of the distributions pass."""
    if "ttl_left" not in res.tables:
        fig, ax = _figure(ax, (9, 4.5))
        return _empty(fig, ax, "not measured: the distributions pass did not run")
    every = _distribution(res.tables["key_sizes"], "memory_bytes")
    left = _distribution(res.tables["ttl_left"], "ttl_left_ms")
    n, n_ttl = int(every.keys.sum()), int(left.keys.sum())
    if by == "memory":
        memory, with_ttl = every.memory.sum(), left.memory.sum()
        title = (f"TTL distribution by memory: {bytes_label(with_ttl)} of {bytes_label(memory)} has a TTL "
                 f"({format_share(with_ttl / max(memory, 1))}); {bytes_label(memory - with_ttl)} never expires"
                 if n else "TTL distribution by memory")
    else:
        title = (f"TTL distribution: {n_ttl:,} of {_keys(n)} {'has' if n_ttl == 1 else 'have'} a TTL "
                 f"({format_share(n_ttl / n)}); {n - n_ttl:,} never {'expires' if n - n_ttl == 1 else 'expire'}"
                 if n else "TTL distribution")
    ctime = dump_ctime(res.info)
    if n_ttl == 0 or ctime is None:
        fig, ax = _figure(ax, (9, 4.5))
        ax.set_title(title, loc="left")
        return _empty(fig, ax, "no keys with a TTL" if n_ttl == 0 else "the dump has no ctime to measure TTLs from")
    remaining = left.values / 1000.0
    expired = int(left.keys[remaining <= 0].sum())
    keep = remaining > 0
    remaining, types = remaining[keep], left.types[keep]
    weights = (left.memory if by == "memory" else left.keys)[keep]
    scale = "none left"
    if len(remaining):
        low = max(1.0, remaining.min())
        log = remaining.max() / low >= 20
        edges = np.logspace(np.log10(low) - 0.05, np.log10(remaining.max()) + 0.05, 40) if log else \
            np.linspace(remaining.min(), remaining.max(), 41)
        fig, axes = _by_type(ax, remaining, types, edges, weights, by == "memory")
        bottom = axes[-1]
        if log:
            bottom.set_xscale("log")
            ticks = [(v, label) for v, label in _DURATION_TICKS if edges[0] <= v <= edges[-1]]
            bottom.set_xticks([v for v, _l in ticks], [label for _v, label in ticks])
            bottom.xaxis.set_minor_formatter(lambda *_: "")
            scale = "log scale"
        else:
            _set_duration_axis(bottom.xaxis, remaining.min(), remaining.max())
            scale = "linear scale"
        _mark_percentiles(axes, remaining, (50, 90), human_seconds, weights, by == "memory")
    else:
        fig, ax = _figure(ax, (9, 4.5))
        axes = [ax]
        _tidy(ax, grid="y")
    axes[0].set_title(title, loc="left")
    # Below the axis, where no percentile label or bar can run into it.
    note = f"; {_keys(expired)} already expired at save time" if expired else ""
    axes[-1].set_xlabel(f"time left before expiry, from the dump's ctime ({scale}){note}")
    return fig


@dataclass(frozen=True)
class _Counts:
    """A distribution table's rows as arrays: the type, value, keys and memory of each."""

    types: np.ndarray
    values: np.ndarray
    keys: np.ndarray
    memory: np.ndarray


def _distribution(table, value_column):
    return _Counts(np.asarray(table["type"].to_pylist(), dtype=object),
                   table[value_column].to_numpy().astype(np.float64),
                   table["n_keys"].to_numpy().astype(np.float64),
                   table["memory_bytes_sum"].to_numpy().astype(np.float64))


def _by_type(ax, values, types, edges, weights, in_bytes):
    """Histograms of ``values`` over ``edges`` with ``weights`` (keys, or bytes when ``in_bytes``): one panel
    per type, stacked vertically on one x axis, each with its own y scale (small multiples: no segment sits
    on another's). Given an ``ax``, one panel of every type together. Returns (figure, axes)."""
    present = set(types)
    order = [t for t in TYPE_COLORS if t in present] + sorted(present - set(TYPE_COLORS))
    if ax is not None:
        panels = [(ax, None)]
        fig = ax.figure
    else:
        from matplotlib.figure import Figure

        _show_figures_in_ipython(Figure)
        fig = Figure(figsize=(9, 1.15 * len(order) + 1.6), layout="constrained")
        panels = list(zip(fig.subplots(len(order), 1, sharex=True, squeeze=False)[:, 0], order, strict=True))
    for panel, type_name in panels:
        mine = np.ones(len(values), bool) if type_name is None else types == type_name
        counts, _ = np.histogram(values[mine], bins=edges, weights=weights[mine])
        panel.bar(edges[:-1], counts, width=np.diff(edges), align="edge", edgecolor="white", linewidth=0.4,
                  color=TYPE_COLORS.get(type_name, OTHER_COLOR) if type_name else TYPE_COLORS["string"])
        total = bytes_label(counts.sum()) if in_bytes else _keys(counts.sum())
        panel.set_ylabel(f"{type_name or 'all'}\n{total}", rotation=0, ha="right", va="center", fontsize=8.5)
        limit = max(counts.max(), 1) * 1.15
        panel.set_ylim(0, limit)
        if in_bytes:
            set_bytes_axis(panel.yaxis, limit, n=2)
        else:
            panel.yaxis.set_major_locator(_few_ticks())
        _tidy(panel, grid="y")
    return fig, [panel for panel, _t in panels]


def _few_ticks():
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(nbins=2, integer=True)


def plot_expiry_timeline(res, ax=None) -> Figure:
    """Keys expiring per bucket from the dump's ctime on, the cumulative share beside; every expiry incident marked.

    When nothing expires for most of the span, the empty start is cut and the
    title says how long after ctime the first key expires.
    """
    fig, ax = _figure(ax, (10, 4.5))
    timeline = res.tables.get("expiry_timeline")
    if timeline is None or timeline.num_rows == 0 or not pc.sum(timeline["n_keys"]).as_py():
        return _empty(fig, ax, "no keys expire after the dump was written")
    start = timeline["bucket_start"].to_pylist()
    end = timeline["bucket_end"].to_pylist()
    counts = np.asarray(timeline["n_keys"].to_numpy(), dtype=np.float64)
    first = int(np.argmax(counts > 0))
    note = ""
    if first > len(counts) / 2:
        note = f"; nothing expires in the first {human_seconds((start[first] - start[0]).total_seconds())}"
        first = max(0, first - 2)
        start, end, counts = start[first:], end[first:], counts[first:]
    cumulative = np.cumsum(counts) / counts.sum()
    widths = [e - s for s, e in zip(start, end, strict=True)]
    ax.bar(start, counts, width=widths, align="edge", color=TYPE_COLORS["string"])
    ax.set_ylabel("keys expiring per bucket")
    ax.set_ylim(0, counts.max() * 1.25)
    twin = ax.twinx()
    twin.plot(end, cumulative, color="#333333", linewidth=1.2)
    twin.set_ylim(0, 1.05 * 1.25)
    twin.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
    twin.yaxis.set_major_formatter(lambda v, _p: f"{v:.0%}")
    twin.set_ylabel("share of TTL keys expired (line)")
    twin.spines[["top"]].set_visible(False)
    marked = _mark_incidents(ax, res.tables.get("expiry_bursts"), start[0], end[-1])
    bucket = human_seconds(timeline["bucket_s"][0].as_py())
    ax.set_title(f"Expiry timeline from the dump's ctime: buckets of {bucket}, "
                 f"{marked} incident{'s' if marked != 1 else ''} marked{note}", loc="left")
    fig.autofmt_xdate()
    _tidy(ax, grid="y")
    return fig


def _mark_incidents(ax, incidents, left, right, labelled=4):
    """A dashed red line at every expiry incident (the rows of the table beside the chart); the
    ``labelled`` largest named on the side with room. Returns how many were marked."""
    if incidents is None or incidents.num_rows == 0:
        return 0
    rows = sorted(incidents.to_pylist(), key=lambda r: (-r["n_keys"], r["start"]))
    middle = left + (right - left) / 2
    for rank, row in enumerate(rows):
        ax.axvline(row["start"], color=ACCENT, linewidth=1.2, linestyle="--")
        if rank >= labelled:
            continue
        label = "whole dump" if row["scope"] == "all" else _named(row["pattern"])
        span = human_seconds((row["end"] - row["start"]).total_seconds())
        on_right = row["start"] < middle
        ax.annotate(f"{_keys(row['n_keys'])} in {span}\n{_printable(label)}",
                    xy=(row["start"], ax.get_ylim()[1]), xytext=(5 if on_right else -5, -4 - 28 * rank),
                    textcoords="offset points", va="top", ha="left" if on_right else "right", fontsize=8,
                    color=ACCENT)
    return len(rows)


def plot_types_and_encodings(res, ax=None) -> Figure:
    """Memory by type, split by encoding, with each encoding's key count."""
    fig, ax = _figure(ax, (9, 4.5))
    table = res.tables.get("types")
    if table is None or not pc.sum(table["n_keys"]).as_py():
        return _empty(fig, ax, "no keys" if table is not None else "the bigkeys pass did not run")
    grouped = [{"type": row["type"], "encoding": row["encoding"], "memory_sum": float(row["memory_bytes"]),
                "memory_count": row["n_keys"]} for row in table.to_pylist()]
    by_type: dict[str, list[dict]] = {}
    for row in grouped:
        by_type.setdefault(row["type"], []).append(row)
    types = sorted(by_type, key=lambda t: -sum(r["memory_sum"] for r in by_type[t]))
    y = np.arange(len(types))[::-1]
    widest = max(sum(r["memory_sum"] for r in rows) for rows in by_type.values())
    for yi, type_name in zip(y, types, strict=True):
        left = 0.0
        color = TYPE_COLORS.get(type_name, OTHER_COLOR)
        for i, row in enumerate(sorted(by_type[type_name], key=lambda r: -r["memory_sum"])):
            ax.barh(yi, row["memory_sum"], left=left, color=color, alpha=1.0 - 0.28 * (i % 3),
                    edgecolor="white", height=0.65)
            if row["memory_sum"] > widest * 0.09:
                ax.text(left + row["memory_sum"] / 2, yi, f"{row['encoding']}\n{_keys(row['memory_count'])}",
                        ha="center", va="center", fontsize=7.5, color="white")
            left += row["memory_sum"]
        small = [r for r in by_type[type_name] if r["memory_sum"] <= widest * 0.09]
        note = f"  {bytes_label(left)}"
        if small:
            note += "  (" + ", ".join(f"{r['encoding']} {r['memory_count']:,}" for r in small) + ")"
        ax.text(left, yi, note, va="center", fontsize=8, color="#333333")
    ax.set_yticks(y, types)
    ax.set_xlim(0, widest * 1.5)
    set_bytes_axis(ax.xaxis, widest * 1.5)
    ax.set_xlabel(_memory_axis(res))
    ax.set_title("Types and encodings: memory, with key counts", loc="left")
    _tidy(ax, grid="x")
    return fig


class PlotAccessor:
    """``res.plot``: the figures of one result, as methods returning matplotlib Figures.

    Example::

        res = rdbscope.analyze(rdbscope.load("dump.rdb"))
        res.plot.memory_by_pattern(top=20)
        res.plot.treemap()
    """

    def __init__(self, result):
        self._result = result

    def memory_by_pattern(self, top=15, ax=None) -> Figure:
        """Bars of memory by pattern; see :func:`plot_memory_by_pattern`."""
        return plot_memory_by_pattern(self._result, top=top, ax=ax)

    def treemap(self, top=30, ax=None) -> Figure:
        """Treemap of memory by pattern; see :func:`plot_pattern_treemap`."""
        return plot_pattern_treemap(self._result, top=top, ax=ax)

    def key_sizes(self, by="keys", ax=None) -> Figure:
        """Key memory distribution (log), by keys or memory; see :func:`plot_key_sizes`."""
        return plot_key_sizes(self._result, by=by, ax=ax)

    def ttl(self, by="keys", ax=None) -> Figure:
        """Remaining-TTL distribution, by keys or memory; see :func:`plot_ttl_distribution`."""
        return plot_ttl_distribution(self._result, by=by, ax=ax)

    def expiry(self, ax=None) -> Figure:
        """Expiry timeline with its incidents; see :func:`plot_expiry_timeline`."""
        return plot_expiry_timeline(self._result, ax=ax)

    def types(self, ax=None) -> Figure:
        """Memory by type and encoding; see :func:`plot_types_and_encodings`."""
        return plot_types_and_encodings(self._result, ax=ax)

    def all(self) -> dict[str, Figure]:
        """``{name: Figure}`` of every figure, in the HTML report's order."""
        return {name: getattr(self, name)() for name in FIGURES}

    def __repr__(self):
        return f"<PlotAccessor: {', '.join(f'{name}()' for name in FIGURES)}>"


#: The accessor's figures, in the order the HTML report shows them.
FIGURES = ("memory_by_pattern", "treemap", "key_sizes", "types", "ttl", "expiry")


class PlotProperty:
    """The ``Result.plot`` descriptor: a :class:`PlotAccessor` bound to the result it is read from."""

    def __get__(self, result, owner=None):
        if result is None:
            return PlotAccessor
        return PlotAccessor(result)


def _keys(n):
    n = int(n)
    return f"{n:,} key{'s' if n != 1 else ''}"


def _mark_percentiles(axes, values, percentiles, label, weights, in_bytes):
    """Dashed lines at percentiles of ``values`` with ``weights`` (keys, or bytes when ``in_bytes``: p50
    is where half the memory lies below) across the panels, labelled at the top of the first. A label
    that would run into the one before it (two percentiles close on the axis) goes one line lower.
    """
    ax = axes[0]
    low, top = ax.get_ylim()
    ax.set_ylim(low, top * 1.5)
    previous_right, line = None, 0
    for q in percentiles:
        value = _percentile(values, q, weights)
        for panel in axes:
            panel.axvline(value, color="#333333", linestyle="--", linewidth=0.8)
        x_fraction = ax.transAxes.inverted().transform(ax.transData.transform((value, 0)))[0]
        near_right = x_fraction > 0.85
        name = f"p{q} of bytes" if in_bytes else f"p{q}"
        text = f" {name} {label(value)} " if near_right else f" {name} {label(value)}"
        # Label widths in axes fractions, roughly: 8 pt characters on the figure's width.
        width = len(text) * 8 * 0.6 / 72 / (ax.figure.get_figwidth() * ax.get_position().width)
        left = x_fraction - width if near_right else x_fraction
        line = line + 1 if previous_right is not None and left < previous_right else 0
        previous_right = left + width
        ax.text(value, 0.99 - 0.16 * line, text, transform=ax.get_xaxis_transform(),
                fontsize=8, va="top", ha="right" if near_right else "left")


def _percentile(values, q, weights):
    """The nearest-rank percentile ``q`` of ``values`` counted ``weights`` times each."""
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order])
    at = np.searchsorted(cumulative, cumulative[-1] * q / 100)
    return float(values[order][min(at, len(values) - 1)])


def _set_duration_axis(axis, low, high):
    """Linear duration ticks in one unit (years, days, hours...) chosen by the span."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    size, unit = next(((size, unit) for size, unit in _DURATION_UNITS if high / size >= 2), (1, "s"))
    locator = MaxNLocator(nbins=6, steps=[1, 2, 2.5, 5, 10])
    ticks = [t * size for t in locator.tick_values(low / size, high / size) if low <= t * size <= high]
    axis.set_ticks(ticks)
    axis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v / size:g} {unit}"))


def _figure(ax, size):
    if ax is not None:
        return ax.figure, ax
    from matplotlib.figure import Figure

    _show_figures_in_ipython(Figure)
    fig = Figure(figsize=size, layout="constrained")
    return fig, fig.add_subplot()


def _show_figures_in_ipython(figure_class):
    """Inside IPython, let a returned Figure display as an image.

    Figures are built without pyplot (so none is shown twice); IPython shows
    Figures only once pyplot has set up its inline backend, so register the
    PNG formatter it would have registered, unless one is there.
    """
    import sys

    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or not hasattr(shell, "display_formatter"):
        return
    formatter = shell.display_formatter.formatters["image/png"]
    if _has_type(formatter, figure_class):
        return
    from IPython.core.pylabtools import print_figure

    formatter.for_type(figure_class, lambda fig: print_figure(fig, "png", bbox_inches="tight"))


def _has_type(formatter, cls):
    try:
        formatter.lookup_by_type(cls)
        return True
    except KeyError:
        return False


def _empty(fig, ax, message):
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, color="#666666")
    ax.set_xticks([])
    ax.set_yticks([])
    return fig


def _patterns(res):
    frame = res.tables["patterns"].to_pandas()
    return frame.sort_values(["memory_bytes_sum", "n_keys"], ascending=False, kind="stable").reset_index(drop=True)


def _n_patterns(res):
    return res.tables["patterns"].num_rows if "patterns" in res.tables else 0


def _named(pattern):
    """The empty key's pattern as two quotes, not a blank."""
    return '""' if pattern == "" else pattern


def _pattern_label(db, pattern, res):
    several_dbs = len(set(res.tables["patterns"]["db"].to_pylist())) > 1
    text = _printable(pattern)
    text = text if len(text) <= 48 else text[:46] + "…"
    return f"db{db} {text}" if several_dbs else text


def _printable(text):
    """Text as the tables show it (controls and bidirectional characters escaped); ``$`` is not mathtext."""
    return printable(text, SHOWN_CHARS).replace("$", r"\$")


def _fit(label, width, size):
    chars = max(4, int(width * 1.45 * 8 / size))
    return label if len(label) <= chars else label[:chars - 1] + "…"


def _main_type(types):
    types = list(types) if types is not None else []
    return types[0] if types else "other"


def _memory_axis(res):
    return "Estimated memory" if res.memory_basis == "est_memory_bytes" else "Bytes in the dump"


def _legend_types(ax, present, outside=False):
    from matplotlib.patches import Patch

    handles = [Patch(color=color, label=name) for name, color in TYPE_COLORS.items() if name in present]
    if not handles:
        return
    if outside:
        ax.legend(handles=handles, frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    else:
        ax.legend(handles=handles, frameon=False, fontsize=8, loc="lower right")


def _rectangle(x, y, w, h, color):
    from matplotlib.patches import Rectangle

    return Rectangle((x, y), w, h, facecolor=color, edgecolor="white", linewidth=1.5)


def _power_of_two_locator():
    from matplotlib.ticker import FixedLocator

    return FixedLocator([2.0 ** k for k in range(0, 64, 2)])


def _tidy(ax, grid):
    ax.spines[["top", "right"]].set_visible(False)
    ax.grid(axis=grid, color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)

