"""The expiry pass: keys that expire together (cache stampedes waiting to happen).

Expiry times are counted per window (1 s and the longer ``windows_s``,
aligned on multiples of their length). A window is a *burst* when it holds at
least ``min_keys`` keys and at least ``min_ratio`` times what the group's own
spread predicts: the larger of

* its keys spread evenly from the dump's ctime to its last expiry (what
  steady writes with its longest TTL would give), and
* its rate in the ``neighborhood_windows`` windows on either side.

For the whole dump the first term is the sum over the patterns.
"""

import collections
import datetime
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..findings import Check, Severity, format_share
from ..keyspace.grouping import SortedGroups, counts, example_positions
from ..options import option, require_positive
from .base import PassOutput

EXPIRY_BURST = Check(
    "EXP001", "expiry-burst", Severity.WARNING,
    "Many keys of one pattern expire in the same window (1 s, and each of `windows_s`), "
    "far more than the pattern's spread predicts (`min_keys`, `min_ratio`).",
    "When keys that were written together expire together, every client misses at once "
    "and the backing store takes the whole reload in one instant: a cache stampede "
    "(the Key Design chapter). The finding gives when, how many keys, and the share of the pattern's "
    "TTL keys in its busiest windows. Spread the expiries: add random jitter to the TTL.")
DUMP_EXPIRY_BURST = Check(
    "EXP002", "dump-expiry-burst", Severity.WARNING,
    "Many keys of the whole dump expire in the same window, far more than its patterns' "
    "spreads predict together; details list the patterns that contribute.",
    "Several patterns warmed at the same moment (a deploy, a cache rebuild, a nightly "
    "job) expire at the same moment too. Even if each pattern looks fine alone, the "
    "server and the backing store see the sum. Add jitter or stagger the warm-up.")
NO_TTL_JITTER = Check(
    "EXP003", "no-ttl-jitter", Severity.WARNING,
    "A pattern has batches of at least `min_batch_keys` keys that share one expiry "
    "instant to the millisecond.",
    "Keys written with the same TTL in one go (or with EXPIREAT to a fixed time) carry "
    "the same expiry to the millisecond: nothing spreads them. Baidu Cloud's guidelines and the Key Design chapter: "
    "set "
    "TTLs as base + random jitter (e.g. up to 10% of the base) so the keys expire over "
    "a range instead of at one instant.")

BURST_COLUMNS = {
    "scope": "pattern, or all for bursts of the whole dump",
    "db": "database of the pattern; null for the whole dump",
    "pattern": "the pattern; null for the whole dump",
    "window_s": "window length in seconds",
    "start": "start of the window",
    "n_keys": "keys expiring in the window",
    "expected_keys": "keys the spread predicts for a window of this length",
    "ratio": "n_keys / expected_keys",
    "share_of_ttl_keys": "share of the group's (pattern's or dump's) future-expiring keys",
}

TIMELINE_COLUMNS = {
    "bucket_start": "start of the bucket (the first starts at the dump's ctime)",
    "bucket_end": "end of the bucket (exclusive)",
    "bucket_s": "bucket length in seconds (the last bucket may be longer: it holds the far tail)",
    "n_keys": "keys expiring in the bucket",
    "n_keys_cumulative": "keys expired by the end of the bucket",
}

# Expiries further than this past ctime (~70 years: EXPIREAT far in the future)
# are left out, so offsets fit 41 bits and (group, window) pairs one int64.
FAR_FUTURE_MS = 1 << 41
_WINDOW_BITS = 41

_NICE_WIDTHS_S = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600,
                  43200, 86400, 2 * 86400, 7 * 86400, 14 * 86400, 30 * 86400, 91 * 86400, 365 * 86400)


@dataclass(frozen=True)
class Runs:
    """Counts of keys per (group, window index), sorted by group then window."""

    group: np.ndarray
    window: np.ndarray
    count: np.ndarray

    @classmethod
    def empty(cls):
        nothing = np.zeros(0, np.int64)
        return cls(nothing, nothing, nothing)

    @classmethod
    def of_sorted(cls, sorted_groups):
        """Runs of equal values within each group of a :class:`SortedGroups`."""
        combined = sorted_groups.combined
        if len(combined) == 0:
            return cls.empty()
        starts = np.flatnonzero(combined[1:] != combined[:-1]) + 1
        starts = np.concatenate(([0], starts))
        count = np.diff(np.concatenate((starts, [len(combined)])))
        first = combined[starts]
        group = (first >> first.dtype.type(sorted_groups.shift)).astype(np.int64)
        return cls(group, (first & sorted_groups.mask).astype(np.int64), count)

    def coarsen(self, factor, origin=0):
        """Merge runs into windows ``factor`` times longer; ``origin`` shifts the boundaries."""
        if len(self.count) == 0 or (factor == 1 and origin == 0):
            return self
        window = (self.window + origin) // factor
        change = (window[1:] != window[:-1]) | (self.group[1:] != self.group[:-1])
        starts = np.concatenate(([0], np.flatnonzero(change) + 1))
        return Runs(self.group[starts], window[starts], np.add.reduceat(self.count, starts))

    def keys(self):
        """A sortable int64 per run: group in the high bits, window in the low ones."""
        return (self.group << _WINDOW_BITS) | self.window


@dataclass(frozen=True)
class Burst:
    """A window where a group's keys expire together.

    ``start_s`` is the window's start in seconds since the epoch (windows
    are aligned on multiples of their length, so minutes start at :00).
    """

    group: int
    window_s: int
    start_s: int
    n_keys: int
    expected: float

    @property
    def start(self):
        return datetime.datetime.fromtimestamp(self.start_s, tz=datetime.timezone.utc)


@dataclass(frozen=True)
class ExpiryOptions:
    """Thresholds of the ``expiry`` pass (synchronized expiries)."""

    windows_s: tuple = option((1, 60, 3600), "window lengths in seconds; 1 is always included")
    min_keys: int = option(100, "EXP001/EXP002: a window must hold at least this many expiring keys")
    min_ratio: float = option(10.0, "EXP001/EXP002: ... and this many times what the spread predicts")
    neighborhood_windows: int = option(
        30, "the expected count comes from this many windows on each side of the burst")
    max_bursts: int = option(3, "bursts listed per pattern and window length")
    min_batch_keys: int = option(100, "EXP003: keys sharing one expiry millisecond that make a batch")
    timeline_buckets: int = option(400, "most rows of the expiry_timeline table")

    def __post_init__(self):
        require_positive(self, "windows_s", "min_keys", "min_ratio", "neighborhood_windows",
                  "max_bursts", "min_batch_keys", "timeline_buckets")
        windows = tuple(sorted(set(self.windows_s) | {1}))
        object.__setattr__(self, "windows_s", windows)


class ExpiryPass:
    """Find synchronized expiries per pattern and for the dump; build the expiry timeline.

    Only keys that had not expired at the dump's ctime are counted (the ttl
    pass reports the others).

    Tables:
        expiry_bursts: the bursts found, per pattern and for the dump.
        expiry_timeline: keys expiring per bucket from ctime on.
    """

    id = "expiry"
    requires = ("patterns",)
    Options = ExpiryOptions
    checks = (EXPIRY_BURST, DUMP_EXPIRY_BURST, NO_TTL_JITTER)

    def run(self, ctx):
        columns, options = ctx.columns, ctx.options
        groups = ctx.output("patterns").shared
        expiring = _Expiring.select(columns, groups)
        if expiring.n == 0:
            return PassOutput(tables={"expiry_bursts": _burst_table([], expiring, groups),
                                      "expiry_timeline": _timeline(expiring, options, None)})
        findings, table_rows = [], []
        seconds = expiring.seconds
        dump_seconds = _merge_groups(seconds)
        pattern_found, dump_found_all = [], []
        for window_s in options.windows_s:
            origin = expiring.base_s % window_s
            origin_s = expiring.base_s - origin
            pattern_runs = seconds.coarsen(window_s, origin)
            found = _bursts(pattern_runs, window_s, origin_s, _spread_floor(pattern_runs),
                            pattern_found, options)
            dump_runs = dump_seconds.coarsen(window_s, origin)
            dump_found = _bursts(dump_runs, window_s, origin_s, _summed_spread_floor(pattern_runs),
                                 dump_found_all, options)
            pattern_found += found
            # Bursts a single pattern explains are that pattern's findings; they still
            # cover the longer windows around them.
            dump_found_all += dump_found
            found = _busiest(found, options.max_bursts)
            dump_found = _busiest(_not_one_pattern(dump_found, pattern_found), options.max_bursts)
            findings += _burst_findings(found, expiring, columns, groups)
            findings += _dump_burst_findings(dump_found, pattern_runs, expiring, columns, groups)
            table_rows += [("pattern", b) for b in found] + [("all", b) for b in dump_found]
        findings += _jitter_findings(expiring, columns, groups, options)
        tables = {"expiry_bursts": _burst_table(table_rows, expiring, groups),
                  "expiry_timeline": _timeline(expiring, options, dump_seconds)}
        return PassOutput(tables=tables, findings=tuple(findings))


class _Expiring:
    """The keys that expire after ctime, as offsets in ms from ``base_ms`` (ctime, whole seconds)."""

    @classmethod
    def select(cls, columns, groups):
        self = cls()
        expire = columns.ttl_expire_ms
        if columns.ctime_ms is not None:
            base = columns.ctime_ms
        else:
            base = int(expire.min()) if len(expire) else 0
        self.base_ms = base - base % 1000
        self.base_s = self.base_ms // 1000
        offset = expire - self.base_ms
        keep = np.flatnonzero((offset >= base - self.base_ms) & (offset < FAR_FUTURE_MS))
        self.rows = columns.ttl_rows[keep]
        self.offset_ms = offset[keep]
        self.n_groups = groups.n
        self.n = len(self.rows)
        self.group = groups.group[self.rows]
        self.n_per_group = counts(self.group, groups.n)
        # Sorted by (pattern, second): 32-bit keys whenever they fit.
        self.sorted = SortedGroups.build(self.group, self.offset_ms // 1000, groups.n, counts=self.n_per_group)
        self.seconds = Runs.empty() if self.n == 0 else Runs.of_sorted(self.sorted)
        return self

    def batches(self, min_keys):
        """``(group, offset_ms, n_keys)`` of every instant that at least ``min_keys`` keys of one group share.

        Only groups with a second holding ``min_keys`` keys or more can have such
        a batch; their keys are sorted again by millisecond, the others never.
        """
        nothing = (np.zeros(0, np.int64),) * 3
        busy = np.zeros(self.n_groups, bool)
        busy[self.seconds.group[np.flatnonzero(self.seconds.count >= min_keys)]] = True
        if not busy.any():
            return nothing
        inside = np.flatnonzero(busy[self.group])
        sorted_ms = SortedGroups.build(self.group[inside], self.offset_ms[inside], self.n_groups)
        combined = sorted_ms.combined
        if len(combined) < min_keys:
            return nothing
        # In sorted order, min_keys equal values in a row start wherever a value equals the one min_keys - 1 later.
        starts = np.flatnonzero(combined[:len(combined) - min_keys + 1] == combined[min_keys - 1:])
        values = np.unique(combined[starts])
        n_keys = np.searchsorted(combined, values, side="right") - np.searchsorted(combined, values, side="left")
        group = (values >> values.dtype.type(sorted_ms.shift)).astype(np.int64)
        return group, (values & sorted_ms.mask).astype(np.int64), n_keys.astype(np.int64)

    def in_window(self, start_s, window_s):
        """Which expiring keys expire in ``[start_s, start_s + window_s)``, as a boolean array."""
        begin = np.asarray(start_s, dtype=np.int64) * 1000 - self.base_ms
        return (self.offset_ms >= begin) & (self.offset_ms < begin + window_s * 1000)


def _merge_groups(runs):
    """The same runs with every group merged into group 0 (the whole dump)."""
    if len(runs.window) == 0:
        return runs
    span = int(runs.window.max()) + 1
    if span <= 8 * len(runs.window) + 1_000_000:
        per_window = np.bincount(runs.window, weights=runs.count, minlength=span)
        window = np.flatnonzero(per_window)
        count = per_window[window].astype(np.int64)
    else:
        window, inverse = np.unique(runs.window, return_inverse=True)
        count = np.bincount(inverse, weights=runs.count).astype(np.int64)
    return Runs(np.zeros(len(window), np.int64), window, count)


def _bursts(runs, window_s, origin_s, floor, covered_by, options):
    """Every burst among ``runs`` (windows of ``window_s``), busiest first within each group.

    ``origin_s``: start of window 0 in epoch seconds. ``floor``: the least
    each candidate window is expected to hold, from the spread of its group
    (an array per candidate, given the candidates' groups and windows).
    ``covered_by``: bursts of shorter windows; a window whose keys are mostly
    theirs is skipped, since those bursts already tell its story.
    """
    index = np.flatnonzero(runs.count >= options.min_keys)
    if len(index) == 0:
        return []
    keys = runs.keys()
    cumulative = np.concatenate(([0], np.cumsum(runs.count)))
    group, window, count = runs.group[index], runs.window[index], runs.count[index]
    h = options.neighborhood_windows
    low = np.maximum(window - h, 0)
    high = window + h
    left = np.searchsorted(keys, (group << _WINDOW_BITS) | low, side="left")
    right = np.searchsorted(keys, (group << _WINDOW_BITS) | high, side="right")
    neighbors = cumulative[right] - cumulative[left] - count
    expected = np.maximum(neighbors / np.maximum(high - low, 1), floor(group, window))
    covered = _covered(covered_by, keys[index], window_s, origin_s)
    burst = (count >= options.min_ratio * expected) & (covered * 2 < count)
    group, window, count, expected = group[burst], window[burst], count[burst], expected[burst]
    order = np.lexsort((window, -count, group))
    return [Burst(int(g), window_s, int(origin_s + w * window_s), int(c), float(e))
            for g, w, c, e in zip(group[order], window[order], count[order], expected[order], strict=True)]


def _busiest(bursts, max_bursts):
    """The first ``max_bursts`` bursts of each group (``bursts`` come busiest first per group)."""
    kept, seen = [], collections.Counter()
    for b in bursts:
        seen[b.group] += 1
        if seen[b.group] <= max_bursts:
            kept.append(b)
    return kept


def _spread_floor(runs):
    """Per group: its keys spread evenly from ctime (window 0) to its last expiry, per window.

    This is what steady writes predict: keys written at a constant rate with
    a TTL of T are alive for T, so at any instant their expiries fall evenly
    over the next T. A pattern that expires in a narrower range was written
    in a burst (a cache warm-up, a deploy, a batch job) and will expire in one.
    """
    if len(runs.count) == 0:
        return lambda group, window: np.zeros(len(group))
    last = np.concatenate((runs.group[1:] != runs.group[:-1], [True]))
    n_groups = int(runs.group.max()) + 1
    n = np.bincount(runs.group, weights=runs.count, minlength=n_groups)
    windows = np.ones(n_groups)
    windows[runs.group[last]] = runs.window[last] + 1
    rate = n / windows
    return lambda group, window: rate[group]


def _summed_spread_floor(pattern_runs):
    """For the whole dump: the sum of the spread floors of the patterns that reach a window.

    A dump mixes patterns of very different TTLs (seconds for locks, days
    for sessions): the dump's first windows are busy because every short
    TTL ends there. The patterns' own floors, summed, predict that.
    """
    runs = pattern_runs
    if len(runs.count) == 0:
        return lambda group, window: np.zeros(len(group))
    first = np.concatenate(([True], runs.group[1:] != runs.group[:-1]))
    last = np.concatenate((runs.group[1:] != runs.group[:-1], [True]))
    n = np.add.reduceat(runs.count, np.flatnonzero(first))
    end = runs.window[last]
    rate = n / (end + 1)
    # Every pattern's floor starts at window 0; sum the rates of those ending at or after a window.
    order = np.argsort(end, kind="stable")
    end, reaching = end[order], np.cumsum(rate[order][::-1])[::-1]

    def floor(group, window):
        position = np.searchsorted(end, window, side="left")
        return np.where(position < len(end), reaching[np.minimum(position, len(end) - 1)], 0.0)

    return floor


def _covered(bursts, candidate_keys, window_s, origin_s):
    """For each candidate window, how many of its keys the shorter ``bursts`` inside it hold."""
    covered = np.zeros(len(candidate_keys), np.int64)
    if not bursts:
        return covered
    group = np.array([b.group for b in bursts], np.int64)
    window = np.array([(b.start_s - origin_s) // window_s for b in bursts], np.int64)
    n_keys = np.array([b.n_keys for b in bursts], np.int64)
    wanted = (group << _WINDOW_BITS) | window
    at = np.minimum(np.searchsorted(candidate_keys, wanted), len(candidate_keys) - 1)
    found = candidate_keys[at] == wanted
    np.add.at(covered, at[found], n_keys[found])
    return covered


def _not_one_pattern(dump_bursts, pattern_bursts):
    """Drop dump bursts that are (90%+) one pattern's burst found for the same window."""
    largest = {}
    for b in pattern_bursts:
        largest[b.window_s, b.start_s] = max(largest.get((b.window_s, b.start_s), 0), b.n_keys)
    return [b for b in dump_bursts if largest.get((b.window_s, b.start_s), 0) < 0.9 * b.n_keys]


def _burst_findings(bursts, expiring, columns, groups):
    if not bursts:
        return []
    window_s = bursts[0].window_s
    by_group = {}
    for b in bursts:
        by_group.setdefault(b.group, []).append(b)
    # Only the keys of the patterns with bursts are read.
    bursting = np.zeros(groups.n, bool)
    bursting[list(by_group)] = True
    subset = np.flatnonzero(bursting[expiring.group])
    group, offset = expiring.group[subset], expiring.offset_ms[subset]
    in_any = np.zeros(len(subset), bool)
    in_first = in_any
    for rank in range(max(len(bs) for bs in by_group.values())):
        start = np.full(groups.n, np.iinfo(np.int64).min // 2000, dtype=np.int64)  # matches nothing
        for g, bs in by_group.items():
            if rank < len(bs):
                start[g] = bs[rank].start_s
        begin = start[group] * 1000 - expiring.base_ms
        inside = (offset >= begin) & (offset < begin + window_s * 1000)
        in_any = in_any | inside
        if rank == 0:
            in_first = inside
    chosen = np.flatnonzero(in_any)
    memory_in = counts(group[chosen], groups.n, columns.memory[expiring.rows[subset[chosen]]])
    first = np.flatnonzero(in_first)
    offsets, picked = example_positions(group[first], groups.n, 3, positions=expiring.rows[subset[first]])
    examples = {g: picked[offsets[g]:offsets[g + 1]] for g in by_group}
    span = _span(window_s)
    findings = []
    for g, bs in by_group.items():
        top = bs[0]
        n_ttl = int(expiring.n_per_group[g])
        in_bursts = sum(b.n_keys for b in bs)
        share = in_bursts / n_ttl
        more = f" and {len(bs) - 1} more" if len(bs) > 1 else ""
        busiest = f"its busiest {span} holds" if len(bs) == 1 else f"its {len(bs)} busiest {span}s hold"
        message = (f"{top.n_keys:,} keys of {groups.pattern[g]} expire in the same {span} at "
                   f"{_iso(top.start)}{more} ({_ratio(top.n_keys, top.expected)} what its spread "
                   f"predicts); {busiest} {format_share(share)} of its {n_ttl:,} keys with a TTL")
        findings.append(EXPIRY_BURST.finding(
            message, pattern=groups.pattern[g], db=int(groups.db[g]), n_keys=in_bursts,
            est_memory_bytes=int(memory_in[g]), examples=columns.key_text(examples.get(g, [])),
            details={
                "window_s": window_s,
                "bursts": [_burst_detail(b) for b in bs],
                "n_with_ttl": n_ttl,
                "share_in_bursts": round(share, 4),
                "memory_basis": columns.memory_basis,
            }))
    return findings


def _dump_burst_findings(bursts, pattern_runs, expiring, columns, groups):
    findings = []
    for b in bursts:
        window_index = (b.start_s - (expiring.base_s - expiring.base_s % b.window_s)) // b.window_s
        in_window = pattern_runs.window == window_index
        contributors = pattern_runs.group[in_window]
        contributed = pattern_runs.count[in_window]
        order = np.argsort(-contributed, kind="stable")
        patterns = [{"db": int(groups.db[g]), "pattern": groups.pattern[g], "n_keys": int(n)}
                    for g, n in zip(contributors[order][:5], contributed[order][:5], strict=True)]
        rows = expiring.rows[expiring.in_window(b.start_s, b.window_s)]
        memory = int(columns.memory[rows].sum(dtype=np.uint64))
        share = b.n_keys / expiring.n
        noun = "pattern" if len(contributors) == 1 else "patterns"
        message = (f"{b.n_keys:,} keys of {len(contributors):,} {noun} expire in the same "
                   f"{_span(b.window_s)} at {_iso(b.start)} ({_ratio(b.n_keys, b.expected)} what "
                   f"its patterns' spreads predict; {format_share(share)} of the dump's keys with a TTL); "
                   f"most are {patterns[0]['pattern']} ({patterns[0]['n_keys']:,})")
        findings.append(DUMP_EXPIRY_BURST.finding(
            message, n_keys=b.n_keys, est_memory_bytes=memory, examples=columns.key_text(rows[:3]),
            details={"window_s": b.window_s, "burst": _burst_detail(b),
                     "patterns": patterns, "share_of_ttl_keys": round(share, 4),
                     "memory_basis": columns.memory_basis}))
    return findings


def _jitter_findings(expiring, columns, groups, options):
    group, instant, size = expiring.batches(options.min_batch_keys)
    if len(group) == 0:
        return []
    n_batches = np.bincount(group, minlength=groups.n)
    in_batches = np.bincount(group, weights=size, minlength=groups.n).astype(np.int64)
    order = np.lexsort((instant, -size, group))
    group, instant, size = group[order], instant[order], size[order]
    first = np.concatenate(([True], group[1:] != group[:-1]))
    largest = {int(g): (int(i), int(s)) for g, i, s in zip(group[first], instant[first], size[first], strict=True)}
    # Memory and examples of the keys in each pattern's batches (only those patterns' keys are read).
    batch_keys = np.unique((group << _WINDOW_BITS) | instant)
    fired = np.zeros(groups.n, bool)
    fired[list(largest)] = True
    candidates = np.flatnonzero(fired[expiring.group])
    key_of = (expiring.group[candidates] << _WINDOW_BITS) | expiring.offset_ms[candidates]
    position = np.clip(np.searchsorted(batch_keys, key_of), 0, len(batch_keys) - 1)
    member = candidates[batch_keys[position] == key_of]
    memory = counts(expiring.group[member], groups.n, columns.memory[expiring.rows[member]])
    biggest = np.zeros(groups.n, np.int64)
    for g, (i, _s) in largest.items():
        biggest[g] = i
    in_biggest = member[expiring.offset_ms[member] == biggest[expiring.group[member]]]
    examples = _examples(expiring, in_biggest, groups.n)
    findings = []
    for g, (instant_ms, size_ms) in largest.items():
        n_ttl = int(expiring.n_per_group[g])
        keys = int(in_batches[g])
        when = _iso(datetime.datetime.fromtimestamp((expiring.base_ms + instant_ms) / 1000,
                                                    tz=datetime.timezone.utc), ms=True)
        message = (f"{keys:,} of the {n_ttl:,} keys with a TTL of {groups.pattern[g]} "
                   f"({format_share(keys / n_ttl)}) expire in {int(n_batches[g]):,} "
                   f"batch{'es' if n_batches[g] > 1 else ''} sharing one millisecond each "
                   f"(largest: {size_ms:,} keys at {when}); add random jitter to the TTL")
        findings.append(NO_TTL_JITTER.finding(
            message, pattern=groups.pattern[g], db=int(groups.db[g]), n_keys=keys,
            est_memory_bytes=int(memory[g]), examples=columns.key_text(examples.get(g, [])),
            details={"n_batches": int(n_batches[g]), "keys_in_batches": keys, "n_with_ttl": n_ttl,
                     "share_in_batches": round(keys / n_ttl, 4), "largest_batch_keys": size_ms,
                     "largest_batch_at": when, "min_batch_keys": options.min_batch_keys,
                     "memory_basis": columns.memory_basis}))
    return findings


def _examples(expiring, chosen, n_groups, k=3):
    """``{group: rows}``: up to ``k`` example rows per group among the expiring keys ``chosen`` (ascending)."""
    offsets, picked = example_positions(expiring.group[chosen], n_groups, k, positions=expiring.rows[chosen])
    return {g: picked[offsets[g]:offsets[g + 1]] for g in np.flatnonzero(np.diff(offsets))}


def _burst_detail(burst):
    return {"start": _iso(burst.start), "n_keys": burst.n_keys,
            "expected_keys": round(burst.expected, 6), "window_s": burst.window_s}


def _burst_table(bursts, expiring, groups):
    rows = {name: [] for name in BURST_COLUMNS}
    for scope, b in bursts:
        dump = scope == "all"
        n_ttl = expiring.n if dump else int(expiring.n_per_group[b.group])
        for name, value in (("scope", scope), ("db", None if dump else int(groups.db[b.group])),
                            ("pattern", None if dump else groups.pattern[b.group]),
                            ("window_s", b.window_s), ("start", b.start),
                            ("n_keys", b.n_keys), ("expected_keys", b.expected),
                            ("ratio", b.n_keys / b.expected if b.expected else None),
                            ("share_of_ttl_keys", b.n_keys / n_ttl if n_ttl else None)):
            rows[name].append(value)
    types = {"scope": pa.string(), "db": pa.int32(), "pattern": pa.string(), "window_s": pa.int64(),
             "start": pa.timestamp("ms", tz="UTC"), "n_keys": pa.int64(), "expected_keys": pa.float64(),
             "ratio": pa.float64(), "share_of_ttl_keys": pa.float64()}
    return _table({name: pa.array(values, types[name]) for name, values in rows.items()}, BURST_COLUMNS)


def _timeline(expiring, options, dump_seconds):
    """Keys expiring per bucket, from ctime to the 99.9th percentile, then the far tail in one bucket."""
    types = {"bucket_start": pa.timestamp("ms", tz="UTC"), "bucket_end": pa.timestamp("ms", tz="UTC"),
             "bucket_s": pa.int64(), "n_keys": pa.int64(), "n_keys_cumulative": pa.int64()}
    if expiring.n == 0:
        return _table({name: pa.array([], t) for name, t in types.items()}, TIMELINE_COLUMNS)
    # dump_seconds holds each distinct second with its count, in order.
    cumulative = np.cumsum(dump_seconds.count)
    at = np.searchsorted(cumulative, int(np.ceil(0.999 * expiring.n)))
    horizon = int(dump_seconds.window[min(at, len(cumulative) - 1)]) + 1
    width = next((w for w in _NICE_WIDTHS_S if w * options.timeline_buckets >= horizon), _NICE_WIDTHS_S[-1])
    n_buckets = -(-horizon // width)
    bucket = np.minimum(dump_seconds.window // width, n_buckets)
    tail = bool(bucket[-1] == n_buckets)
    size = n_buckets + (1 if tail else 0)
    n_keys = np.bincount(bucket, weights=dump_seconds.count, minlength=size).astype(np.int64)
    starts_s = np.arange(size, dtype=np.int64) * width
    ends_s = starts_s + width
    if tail:
        ends_s[-1] = int(dump_seconds.window[-1]) + 1
    base = expiring.base_ms
    data = {
        "bucket_start": pa.array(base + starts_s * 1000, pa.int64()).cast(types["bucket_start"]),
        "bucket_end": pa.array(base + ends_s * 1000, pa.int64()).cast(types["bucket_end"]),
        "bucket_s": pa.array(ends_s - starts_s, pa.int64()),
        "n_keys": pa.array(n_keys, pa.int64()),
        "n_keys_cumulative": pa.array(np.cumsum(n_keys), pa.int64()),
    }
    return _table(data, TIMELINE_COLUMNS)


def _table(data, docs):
    fields = [pa.field(name, data[name].type, metadata={"doc": docs[name]}) for name in docs]
    return pa.Table.from_arrays([data[name] for name in docs], schema=pa.schema(fields))


def _iso(moment, ms=False):
    text = moment.isoformat(timespec="milliseconds" if ms else "seconds")
    return text.replace("+00:00", "Z")


def _ratio(n, expected):
    ratio = n / expected if expected else float("inf")
    return "over 1,000 times" if ratio >= 1000 else f"{ratio:,.0f} times"


def _span(window_s):
    return "second" if window_s == 1 else f"{_duration(window_s)} window"


def _duration(seconds):
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds % size == 0:
            return f"{seconds // size} {unit}"
    return f"{seconds} s"
