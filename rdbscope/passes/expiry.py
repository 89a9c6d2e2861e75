"""The expiry pass: keys that expire together (cache stampedes waiting to happen).

Expiry times are counted per window (1 s and the longer ``windows_s``,
aligned on multiples of their length). A window is a *burst* when it holds at
least ``min_keys`` keys and at least ``min_ratio`` times what the group's own
spread predicts: the larger of

* its keys spread evenly from the dump's ctime to its last expiry (what
  steady writes with its longest TTL would give), and
* its rate in the ``neighborhood_windows`` windows on either side.

For the whole dump the first term is the sum over the patterns.

Bursts of one group whose windows overlap or touch are one *incident*
(one cliff, one finding): three busy seconds in a row and the minute
around them are one event for whoever is paged. For the same reason a
whole-dump incident that a reported pattern incident overlaps, its pattern
holding most of the keys, is that pattern's finding, not a second one.
"""

import collections
import dataclasses
import datetime
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..findings import Check, Severity, count, format_bytes, format_share
from ..keyspace.grouping import counts
from ..options import option, require_positive
from .base import PassOutput

EXPIRY_BURST = Check(
    "EXP001", "expiry-burst", Severity.WARNING,
    "Many keys of one pattern expire in the same window (1 s, and each of `windows_s`), "
    "far more than the pattern's spread predicts (`min_keys`, `min_ratio`); one finding per incident "
    "(adjacent busy windows merged).",
    "When keys that were written together expire together, every client misses at once "
    "and the backing store takes the whole reload in one instant: a cache stampede "
    "(the Key Design chapter). The finding gives when the incident starts and ends, its keys and memory, "
    "and their share of the pattern's TTL keys; details hold each window and how far over the spread it is. "
    "When the pattern holds most of a cliff of the whole dump, that cliff is this finding's: it names the keys "
    "of the other patterns expiring with them (details: `dump_cliff`). "
    "Spread the expiries: add random jitter to the TTL.")
DUMP_EXPIRY_BURST = Check(
    "EXP002", "dump-expiry-burst", Severity.WARNING,
    "Many keys of the whole dump expire in the same window, far more than its patterns' "
    "spreads predict together, and no pattern's EXP001 incident holds most of them (that finding reports "
    "the cliff then); details list the patterns that contribute.",
    "Several patterns warmed at the same moment (a deploy, a cache rebuild, a nightly "
    "job) expire at the same moment too. Even if each pattern looks fine alone, the "
    "server and the backing store see the sum. Add jitter or stagger the warm-up.")
NO_TTL_JITTER = Check(
    "EXP003", "no-ttl-jitter", Severity.WARNING,
    "A pattern has batches of at least `min_batch_keys` keys that share one expiry "
    "instant to the millisecond, outside its EXP001 incidents (those say so themselves).",
    "Keys written with the same TTL in one go (or with EXPIREAT to a fixed time) carry "
    "the same expiry to the millisecond: nothing spreads them. Baidu Cloud's guidelines and the Key Design chapter: "
    "set "
    "TTLs as base + random jitter (e.g. up to 10% of the base) so the keys expire over "
    "a range instead of at one instant.")

BURST_COLUMNS = {
    "scope": "pattern, or all for incidents of the whole dump",
    "db": "database of the pattern; null for the whole dump",
    "pattern": "the pattern; null for the whole dump",
    "start": "the second its first key expires",
    "end": "the second after its last key expires (exclusive)",
    "n_keys": "keys of the group expiring from start to end",
    "memory_bytes": "their memory (estimate, or bytes in the dump without a memory model)",
    "share_of_ttl_keys": "share of the group's (pattern's or dump's) future-expiring keys",
    "keys_in_batches": "keys among them sharing one expiry millisecond in batches of min_batch_keys or more",
    "window_s": "the shortest window (1 s, 1 min, ...) that found it",
    "peak_ratio": "the most one of its windows held over what the spread predicts",
}

TIMELINE_COLUMNS = {
    "bucket_start": "start of the bucket, on a clock boundary of its width (the first holds the dump's ctime)",
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
    max_bursts: int = option(3, "incidents reported per pattern (and for the dump), the largest")
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
        expiry_bursts: the expiry incidents found, per pattern and for the dump.
        expiry_timeline: keys expiring per bucket from the bucket holding ctime on.
    """

    id = "expiry"
    requires = ("patterns",)
    Options = ExpiryOptions
    checks = (EXPIRY_BURST, DUMP_EXPIRY_BURST, NO_TTL_JITTER)

    def run(self, ctx):
        columns, options = ctx.columns, ctx.options
        groups = ctx.output("patterns").shared
        expiring = columns.expiring  # the chunks' merged counts (see CountedExpiring)
        if expiring.n == 0:
            return PassOutput(tables={"expiry_bursts": _incident_table([], expiring, groups),
                                      "expiry_timeline": _timeline(expiring, options, None)})
        seconds = expiring.seconds
        dump_seconds = _merge_groups(seconds)
        pattern_found, dump_found = [], []
        for window_s in options.windows_s:
            origin = expiring.base_s % window_s
            origin_s = expiring.base_s - origin
            pattern_runs = seconds.coarsen(window_s, origin)
            # Bursts a single pattern explains are that pattern's findings; they still
            # cover the longer windows around them.
            pattern_found += _bursts(pattern_runs, window_s, origin_s, _spread_floor(pattern_runs),
                                     pattern_found, options)
            dump_found += _bursts(dump_seconds.coarsen(window_s, origin), window_s, origin_s,
                                  _summed_spread_floor(pattern_runs), dump_found, options)
        incidents = _incidents(pattern_found, expiring)
        incidents, batches = _with_batches(incidents, expiring.batches(options.min_batch_keys), expiring.base_s)
        n_incidents = counts(np.array([i.group for i in incidents], np.int64), groups.n)
        incidents = _largest_per_group(incidents, options.max_bursts)
        dump_incidents = _incidents(_not_one_pattern(dump_found, pattern_found), expiring, whole_dump=True)
        dump_incidents, cliffs = _mostly_one_pattern(dump_incidents, incidents, expiring)
        dump_incidents = _largest_per_group(dump_incidents, options.max_bursts)
        findings = _incident_findings(incidents, n_incidents, expiring, columns, groups, cliffs)
        findings += _dump_incident_findings(dump_incidents, expiring, columns, groups)
        findings += _jitter_findings(batches, expiring, columns, groups, options)
        scoped = [("pattern", i) for i in incidents] + [("all", i) for i in dump_incidents]
        tables = {"expiry_bursts": _incident_table(scoped, expiring, groups),
                  "expiry_timeline": _timeline(expiring, options, dump_seconds)}
        return PassOutput(tables=tables, findings=tuple(findings))


@dataclass(frozen=True)
class Batches:
    """Instants that at least ``min_batch_keys`` keys of one group share: per batch its group,
    offset in ms from the base, keys and their memory."""

    group: np.ndarray
    instant_ms: np.ndarray
    n_keys: np.ndarray
    memory: np.ndarray

    @classmethod
    def empty(cls):
        nothing = np.zeros(0, np.int64)
        return cls(nothing, nothing, nothing, nothing)

    def __len__(self):
        return len(self.group)

    def where(self, keep):
        return Batches(self.group[keep], self.instant_ms[keep], self.n_keys[keep], self.memory[keep])


@dataclass(frozen=True)
class Members:
    """The keys of a span (a group's, or every group's, from one second to another): how many,
    their memory, the seconds of the first and after the last, and the first few keys."""

    n_keys: int
    memory_bytes: int
    first_s: int
    end_s: int
    examples: tuple


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


def _mostly_one_pattern(dump_incidents, incidents, expiring):
    """Drop the dump incidents that one reported pattern incident overlapping them explains.

    A pattern explains a dump incident when it holds more than half of its keys: one
    cliff, one finding, the pattern's. Returns the dump incidents left and, per index of
    ``incidents``, the span ``(start_s, end_s)`` of the cliff (its own bounds widened to
    the dump incidents it explains), whose other patterns' keys its finding names.
    """
    kept, cliffs = [], {}
    for dump in dump_incidents:
        per_group = expiring.group_counts(dump.start_s, dump.end_s)
        overlapping = [(int(per_group[p.group]), i) for i, p in enumerate(incidents)
                       if p.start_s < dump.end_s and dump.start_s < p.end_s]
        n_keys, index = max(overlapping, default=(0, -1))
        if 2 * n_keys <= dump.n_keys:
            kept.append(dump)
            continue
        start_s, end_s = cliffs.get(index, (incidents[index].start_s, incidents[index].end_s))
        cliffs[index] = (min(start_s, dump.start_s), max(end_s, dump.end_s))
    return kept, cliffs


@dataclass(frozen=True)
class Incident:
    """Adjacent or overlapping bursts of one group merged: one cliff.

    ``start_s``/``end_s`` bound its keys' expiries (whole seconds, end
    exclusive); ``bursts`` are the windows that found it.
    """

    group: int
    start_s: int
    end_s: int
    n_keys: int
    memory_bytes: int
    bursts: tuple
    examples: tuple = ()
    n_batches: int = 0
    keys_in_batches: int = 0
    largest_batch_keys: int = 0
    largest_batch_ms: int = 0

    @property
    def peak_ratio(self):
        """The most any of its windows held over what the spread predicts."""
        return max((b.n_keys / b.expected if b.expected else float("inf")) for b in self.bursts)

    @property
    def shortest_window_s(self):
        return min(b.window_s for b in self.bursts)


def _incidents(bursts, expiring, whole_dump=False):
    """Merge each group's bursts whose windows overlap or touch into :class:`Incident` s.

    An incident's keys are those of its group (of every group, for the ``whole_dump``)
    expiring between its first window's start and its last window's end; its bounds
    shrink to theirs.
    """
    spans = []
    for b in sorted(bursts, key=lambda b: (b.group, b.start_s, -b.window_s)):
        end = b.start_s + b.window_s
        if spans and spans[-1][0] == b.group and b.start_s <= spans[-1][2]:
            spans[-1][2] = max(spans[-1][2], end)
            spans[-1][3].append(b)
        else:
            spans.append([b.group, b.start_s, end, [b]])
    if not spans:
        return []
    members = expiring.members([(g, start, end) for g, start, end, _found in spans], whole_dump)
    return [Incident(group, m.first_s, m.end_s, m.n_keys, m.memory_bytes, tuple(found), m.examples)
            for (group, _start, _end, found), m in zip(spans, members, strict=True)]


def _span_index(spans, base_s, group, second):
    """For each (group, second since ``base_s``): the index of the span ``(group, start_s, end_s)``
    holding it, and whether one does."""
    starts = np.array([(g << _WINDOW_BITS) | (s - base_s) for g, s, _e in spans], np.int64)
    ends = np.array([(g << _WINDOW_BITS) | (e - base_s) for g, _s, e in spans], np.int64)
    code = (np.asarray(group, np.int64) << _WINDOW_BITS) | np.asarray(second, np.int64)
    index = np.searchsorted(starts, code, side="right") - 1
    inside = (index >= 0) & (code < ends[np.maximum(index, 0)])
    return index, inside


def _with_batches(incidents, batches, base_s):
    """Each incident with the same-millisecond batches inside it; and the batches outside every incident."""
    group, instant_ms, size = batches.group, batches.instant_ms, batches.n_keys
    if not incidents or len(group) == 0:
        return incidents, batches
    spans = [(i.group, i.start_s, i.end_s) for i in incidents]
    index, inside = _span_index(spans, base_s, group, instant_ms // 1000)
    updated = []
    for i, incident in enumerate(incidents):
        mine = np.flatnonzero(inside & (index == i))
        if len(mine):
            largest = mine[np.argmax(size[mine])]
            incident = dataclasses.replace(
                incident, n_batches=len(mine), keys_in_batches=int(size[mine].sum()),
                largest_batch_keys=int(size[largest]), largest_batch_ms=int(instant_ms[largest]))
        updated.append(incident)
    return updated, batches.where(~inside)


def _largest_per_group(incidents, most):
    """The ``most`` incidents of each group with the most keys, busiest first."""
    ordered = sorted(incidents, key=lambda i: (i.group, -i.n_keys, i.start_s))
    return _busiest(ordered, most)


def _incident_findings(incidents, n_incidents, expiring, columns, groups, cliffs):
    """One finding per incident; ``n_incidents``: how many each group had before the largest were kept;
    ``cliffs``: the spans of the dump incidents some of them explain (see :func:`_mostly_one_pattern`)."""
    findings = []
    for index, incident in enumerate(incidents):
        g = incident.group
        n_ttl = int(expiring.n_per_group[g])
        share = incident.n_keys / n_ttl
        message = (f"{incident.n_keys:,} keys of {groups.pattern[g]} ({format_share(share)} of its keys with a TTL"
                   f", {format_bytes(incident.memory_bytes)}) expire {_when(incident)}")
        if incident.keys_in_batches:
            batches = "share one millisecond" if incident.n_batches == 1 else \
                f"are in {incident.n_batches:,} batches sharing one millisecond each"
            message += f"; {incident.keys_in_batches:,} of them {batches}"
        details = {**_incident_detail(incident, expiring), "incidents_of_pattern": int(n_incidents[g]),
                   "n_with_ttl": n_ttl, "share_of_ttl_keys": round(share, 4)}
        if index in cliffs:
            cliff = _cliff(incident, *cliffs[index], expiring, groups)
            others = cliff["other_patterns"]
            if others:
                span = "in the same span" if (cliff["start"], cliff["end"]) == (details["start"], details["end"]) \
                    else _when_span(*cliffs[index])
                of = others[0]["pattern"] if len(others) == 1 else \
                    f"{cliff['n_other_patterns']} other patterns (most: {others[0]['pattern']})"
                message += f"; with them {cliff['keys_of_other_patterns']:,} keys of {of} expire {span}"
            details["dump_cliff"] = cliff
        message += ": add random jitter to the TTL"
        if n_incidents[g] > 1:
            message += f" (one of its {int(n_incidents[g]):,} incidents)"
        findings.append(EXPIRY_BURST.finding(
            message, pattern=groups.pattern[g], db=int(groups.db[g]), n_keys=incident.n_keys,
            est_memory_bytes=incident.memory_bytes, examples=list(incident.examples),
            details={**details, "memory_basis": columns.memory_basis}))
    return findings


def _cliff(incident, start_s, end_s, expiring, groups):
    """What the whole dump expires around a pattern's incident that explains the dump's own."""
    per_group = expiring.group_counts(start_s, end_s)
    mine = int(per_group[incident.group])
    per_group[incident.group] = 0
    order = np.argsort(-per_group, kind="stable")
    present = order[per_group[order] > 0]
    return {"start": _iso(_moment(start_s)), "end": _iso(_moment(end_s)), "n_keys": mine + int(per_group.sum()),
            "keys_of_pattern": mine, "keys_of_other_patterns": int(per_group.sum()),
            "n_other_patterns": len(present),
            "other_patterns": [{"db": int(groups.db[g]), "pattern": groups.pattern[g], "n_keys": int(per_group[g])}
                               for g in present[:5]]}


def _dump_incident_findings(incidents, expiring, columns, groups):
    findings = []
    for incident in incidents:
        contributors = expiring.group_counts(incident.start_s, incident.end_s)
        order = np.argsort(-contributors, kind="stable")
        present = order[contributors[order] > 0]
        patterns = [{"db": int(groups.db[g]), "pattern": groups.pattern[g], "n_keys": int(contributors[g])}
                    for g in present[:5]]
        share = incident.n_keys / expiring.n
        message = (f"{incident.n_keys:,} keys of {count(len(present), 'pattern')} "
                   f"({format_share(share)} of the dump's keys with a TTL, {format_bytes(incident.memory_bytes)}) "
                   f"expire {_when(incident)}; most are {patterns[0]['pattern']} ({patterns[0]['n_keys']:,})")
        findings.append(DUMP_EXPIRY_BURST.finding(
            message, n_keys=incident.n_keys, est_memory_bytes=incident.memory_bytes,
            examples=list(incident.examples),
            details={**_incident_detail(incident, expiring), "patterns": patterns,
                     "share_of_ttl_keys": round(share, 4), "memory_basis": columns.memory_basis}))
    return findings


def _when(incident):
    return _when_span(incident.start_s, incident.end_s)


def _when_span(start_s, end_s):
    start = datetime.datetime.fromtimestamp(start_s, tz=datetime.timezone.utc)
    length = end_s - start_s
    if length == 1:
        return f"in the same second at {_iso(start)}"
    return f"within {_duration(length)} from {_iso(start)}"


def _incident_detail(incident, expiring):
    detail = {"start": _iso(_moment(incident.start_s)), "end": _iso(_moment(incident.end_s)),
              "peak_ratio": round(incident.peak_ratio, 2),
              "windows": [{"start": _iso(b.start), "window_s": b.window_s, "n_keys": b.n_keys,
                           "expected_keys": round(b.expected, 6)} for b in incident.bursts]}
    if incident.keys_in_batches:
        detail.update(n_batches=incident.n_batches, keys_in_batches=incident.keys_in_batches,
                      largest_batch_keys=incident.largest_batch_keys,
                      largest_batch_at=_iso(_moment((expiring.base_ms + incident.largest_batch_ms) / 1000), ms=True))
    return detail


def _moment(seconds):
    return datetime.datetime.fromtimestamp(seconds, tz=datetime.timezone.utc)


def _jitter_findings(batches, expiring, columns, groups, options):
    if len(batches) == 0:
        return []
    group, instant, size = batches.group, batches.instant_ms, batches.n_keys
    n_batches = np.bincount(group, minlength=groups.n)
    in_batches = np.bincount(group, weights=size, minlength=groups.n).astype(np.int64)
    memory = counts(group, groups.n, batches.memory)
    order = np.lexsort((instant, -size, group))
    group, instant, size = group[order], instant[order], size[order]
    first = np.concatenate(([True], group[1:] != group[:-1]))
    largest = {int(g): (int(i), int(s)) for g, i, s in zip(group[first], instant[first], size[first], strict=True)}
    examples = expiring.batch_examples(group[first], instant[first])
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
            est_memory_bytes=int(memory[g]), examples=list(examples.get(g, [])),
            details={"n_batches": int(n_batches[g]), "keys_in_batches": keys, "n_with_ttl": n_ttl,
                     "share_in_batches": round(keys / n_ttl, 4), "largest_batch_keys": size_ms,
                     "largest_batch_at": when, "min_batch_keys": options.min_batch_keys,
                     "memory_basis": columns.memory_basis}))
    return findings


def _incident_table(scoped, expiring, groups):
    rows = {name: [] for name in BURST_COLUMNS}
    for scope, i in scoped:
        dump = scope == "all"
        n_ttl = expiring.n if dump else int(expiring.n_per_group[i.group])
        for name, value in (("scope", scope), ("db", None if dump else int(groups.db[i.group])),
                            ("pattern", None if dump else groups.pattern[i.group]),
                            ("start", _moment(i.start_s)), ("end", _moment(i.end_s)),
                            ("n_keys", i.n_keys), ("memory_bytes", i.memory_bytes),
                            ("share_of_ttl_keys", i.n_keys / n_ttl if n_ttl else None),
                            ("keys_in_batches", i.keys_in_batches), ("window_s", i.shortest_window_s),
                            ("peak_ratio", i.peak_ratio)):
            rows[name].append(value)
    types = {"scope": pa.string(), "db": pa.int32(), "pattern": pa.string(),
             "start": pa.timestamp("ms", tz="UTC"), "end": pa.timestamp("ms", tz="UTC"), "n_keys": pa.int64(),
             "memory_bytes": pa.uint64(), "share_of_ttl_keys": pa.float64(), "keys_in_batches": pa.int64(),
             "window_s": pa.int64(), "peak_ratio": pa.float64()}
    return _table({name: pa.array(values, types[name]) for name, values in rows.items()}, BURST_COLUMNS)


def _timeline(expiring, options, dump_seconds):
    """Keys expiring per bucket, from the bucket holding ctime to the 99.9th percentile, then the far
    tail in one bucket; buckets start on the clock's boundaries of their width (see _bucket_origin)."""
    types = {"bucket_start": pa.timestamp("ms", tz="UTC"), "bucket_end": pa.timestamp("ms", tz="UTC"),
             "bucket_s": pa.int64(), "n_keys": pa.int64(), "n_keys_cumulative": pa.int64()}
    if expiring.n == 0:
        return _table({name: pa.array([], t) for name, t in types.items()}, TIMELINE_COLUMNS)
    # dump_seconds holds each distinct second (since base_s) with its count, in order.
    cumulative = np.cumsum(dump_seconds.count)
    at = np.searchsorted(cumulative, int(np.ceil(0.999 * expiring.n)))
    horizon = int(dump_seconds.window[min(at, len(cumulative) - 1)]) + 1

    def n_buckets_of(width):
        return -(-(horizon + expiring.base_s - _bucket_origin(expiring.base_s, width)) // width)

    width = next((w for w in _NICE_WIDTHS_S if n_buckets_of(w) <= options.timeline_buckets), None)
    if width is None:  # expiries centuries apart (the year 9999, 2**62 ms): whole numbers of the longest width
        longest = _NICE_WIDTHS_S[-1]
        width = longest * -(-n_buckets_of(longest) // options.timeline_buckets)
    origin_s = _bucket_origin(expiring.base_s, width)
    n_buckets = n_buckets_of(width)
    since_origin = dump_seconds.window + (expiring.base_s - origin_s)
    bucket = np.minimum(since_origin // width, n_buckets)
    tail = bool(bucket[-1] == n_buckets)
    size = n_buckets + (1 if tail else 0)
    n_keys = np.bincount(bucket, weights=dump_seconds.count, minlength=size).astype(np.int64)
    starts_s = origin_s + np.arange(size, dtype=np.int64) * width
    ends_s = starts_s + width
    if tail:
        ends_s[-1] = origin_s + int(since_origin[-1]) + 1
    data = {
        "bucket_start": pa.array(starts_s * 1000, pa.int64()).cast(types["bucket_start"]),
        "bucket_end": pa.array(ends_s * 1000, pa.int64()).cast(types["bucket_end"]),
        "bucket_s": pa.array(ends_s - starts_s, pa.int64()),
        "n_keys": pa.array(n_keys, pa.int64()),
        "n_keys_cumulative": pa.array(np.cumsum(n_keys), pa.int64()),
    }
    return _table(data, TIMELINE_COLUMNS)


#: 1970-01-05, a Monday: weekly buckets start on Mondays at 00:00 UTC.
_A_MONDAY_S = 4 * 86400


def _bucket_origin(second, width):
    """The start (epoch seconds) of the bucket of ``width`` seconds holding ``second``, on the
    clock's boundaries: a minute at :00, an hour at :00:00, a day at 00:00 UTC, a week on Monday.
    Widths of a day or longer that are not whole weeks (30 days, 91, 365) start at midnight UTC."""
    anchor = _A_MONDAY_S if width % (7 * 86400) == 0 else 0
    step = width if width <= 86400 or width % (7 * 86400) == 0 else 86400
    return second - (second - anchor) % step


def _table(data, docs):
    fields = [pa.field(name, data[name].type, metadata={"doc": docs[name]}) for name in docs]
    return pa.Table.from_arrays([data[name] for name in docs], schema=pa.schema(fields))


def _iso(moment, ms=False):
    text = moment.isoformat(timespec="milliseconds" if ms else "seconds")
    return text.replace("+00:00", "Z")


def _duration(seconds):
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds % size == 0:
            return f"{seconds // size} {unit}"
    return f"{seconds} s"
