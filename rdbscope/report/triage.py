"""The triage summary: what an on-call engineer reads first, made of what the passes found.

Five parts, each a small table: memory by type (as ``redis-cli --bigkeys``
sums it up), the top patterns, memory freed over time by TTL bucket, the
expiry incidents, cold and hot memory; then the largest savings, each one
concrete action with its bytes, and the memory at risk: what expires at once,
with the TTL jitter that would spread it (jitter frees nothing, so it is no saving).
Renderers (terminal, HTML, JSON) read a :class:`Triage`; a part a run could not make (a bounded run skips what needs
every key) is None, with ``notes`` saying why.
"""

import datetime
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..findings import count
from .views import expiry_burst_rows, pattern_rows

#: TTL buckets of time left at save time: (label, upper bound in seconds, exclusive).
#: Parts of the summary, in the order shown.
PARTS = ("by_type", "top_patterns", "ttl_buckets", "incidents", "activity", "savings", "at_risk")


@dataclass(frozen=True)
class Saving:
    """One thing to do and the memory it concerns.

    Attributes:
        action: what to do, in a line (a command, or a change to the writers).
        bytes: the memory it saves or frees (an estimate, as the finding's); for memory at risk, the memory
            that expires at once.
        code: the finding code it comes from.
        pattern: the pattern it is about, if one.
    """

    action: str
    bytes: int
    code: str
    pattern: str | None = None


@dataclass(frozen=True)
class Activity:
    """Cold and hot memory: which counter the dump has and the patterns that stand out.

    Attributes:
        counter: ``"idle"`` (LRU idle times), ``"lfu"`` (LFU counters) or None.
        note: one line saying what the counter means, or what setting would record one.
        rows: the patterns: most memory idle over the longest threshold (idle), or the
            highest mean counter (lfu); empty without counters.
    """

    counter: str | None
    note: str
    rows: pd.DataFrame


@dataclass(frozen=True)
class Triage:
    """The summary's parts (DataFrames, None when not made) and notes on what is missing."""

    by_type: pd.DataFrame | None
    top_patterns: pd.DataFrame | None
    ttl_buckets: pd.DataFrame | None
    incidents: pd.DataFrame | None
    activity: Activity | None
    savings: list = field(default_factory=list)
    at_risk: list = field(default_factory=list)
    notes: dict = field(default_factory=dict)

    def as_dict(self, records) -> dict:
        """Plain values for JSON; ``records`` turns a DataFrame into a list of dicts."""
        data = {}
        for part in PARTS:
            value = getattr(self, part)
            if isinstance(value, pd.DataFrame):
                data[part] = records(value)
            elif isinstance(value, Activity):
                data[part] = {"counter": value.counter, "note": value.note, "patterns": records(value.rows)}
            elif part in ("savings", "at_risk"):
                data[part] = [s.__dict__ for s in value]
            else:
                data[part] = None
        data["notes"] = dict(self.notes)
        return data


def triage(res, patterns=5, incidents=3, savings=5, at_risk=3) -> Triage:
    """The :class:`Triage` of a result: ``patterns`` top patterns, ``incidents`` largest incidents,
    ``savings`` largest savings, ``at_risk`` largest amounts of memory expiring at once."""
    notes = {}
    by_type, buckets = memory_by_type(res), ttl_buckets(res)
    if by_type is None:
        notes["by_type"] = _not_run(res, "bigkeys")
    if buckets is None:
        notes["ttl_buckets"] = ("a bounded run measures the TTL left from the dump's ctime, which it does not say"
                                if "ttl" in res.ran else _not_run(res, "ttl"))
    expiry_ran = "expiry_bursts" in res.tables
    if not expiry_ran:
        notes["incidents"] = _not_run(res, "expiry")
    activity = _activity(res) if "activity" in res.tables else None
    if activity is None:
        notes["activity"] = _not_run(res, "activity")
    return Triage(
        by_type=by_type,
        top_patterns=_top_patterns(res, patterns) if "patterns" in res.tables else None,
        ttl_buckets=buckets,
        incidents=expiry_burst_rows(res, incidents) if expiry_ran else None,
        activity=activity,
        savings=largest_savings(res.finding_list, savings),
        at_risk=memory_at_risk(res.finding_list, at_risk),
        notes=notes,
    )


def _not_run(res, pass_id):
    if pass_id in res.skipped:
        return f"the {pass_id} pass needs every key in memory: not run in a bounded run"
    return f"the {pass_id} pass did not run"


def memory_by_type(res) -> pd.DataFrame | None:
    """Per type: keys, memory, average, and the largest key with its memory, most memory first; None
    when the big-keys pass did not run."""
    if "types" not in res.tables:
        return None
    frame = res.tables["types"].to_pandas().groupby("type", as_index=False)[["n_keys", "memory_bytes"]].sum()
    top = res.tables["top_keys"].to_pandas()
    largest = top[(top["ranking"] == "memory") & (top["rank"] == 1)].set_index("scope")
    all_memory = frame["memory_bytes"].sum() or 1
    frame = frame.assign(
        memory_share=frame["memory_bytes"] / all_memory,
        avg_bytes=(frame["memory_bytes"] / frame["n_keys"]).round().astype(np.int64),
        largest_key=[largest.loc[t, "key"] for t in frame["type"]],
        largest_bytes=[int(largest.loc[t, "memory_bytes"]) for t in frame["type"]],
    )[["type", "n_keys", "memory_bytes", "memory_share", "avg_bytes", "largest_key", "largest_bytes"]]
    return frame.sort_values(["memory_bytes", "type"], ascending=[False, True], kind="stable").reset_index(drop=True)


def _top_patterns(res, top):
    return pattern_rows(res, top)[["db", "pattern", "n_keys", "memory_bytes_sum", "memory_share", "ttl_share"]]


def ttl_buckets(res) -> pd.DataFrame | None:
    """Memory freed over time: keys and memory by time left before expiry at the dump's ctime, then
    the keys that never expire; keys already expired when the dump was written have their own row
    when there are any. None when the TTL pass did not make the table."""
    if "ttl_buckets" not in res.tables:
        return None
    frame = res.tables["ttl_buckets"].to_pandas()
    frame = frame[(frame["expires"] != "expired at save") | (frame["n_keys"] > 0)]
    total = frame["memory_bytes"].sum() or 1
    frame = frame.assign(memory_share=frame["memory_bytes"] / total)
    return frame[["expires", "n_keys", "memory_bytes", "memory_share"]].reset_index(drop=True)


def _activity(res):
    note, frame = activity_rows(res)
    counter = None if frame is None else ("idle" if "max_idle_s" in frame.columns else "lfu")
    if counter == "idle":
        idle = [c for c in frame.columns if c.startswith("memory_bytes_idle_over_")]
        frame = frame[frame[idle[0]] > 0][["db", "pattern", "memory_bytes", *idle]]
        if not len(frame):
            note += f"; none idle more than {idle[0].rsplit('_', 1)[1]}"
    elif counter == "lfu":
        frame = frame[["db", "pattern", "n_keys", "memory_bytes", "lfu_mean", "lfu_max", "memory_bytes_lfu_zero"]]
    else:
        frame = pd.DataFrame({"db": [], "pattern": []})
    return Activity(counter, note, frame.head(5).reset_index(drop=True))


def activity_rows(res, top=None):
    """``(note, frame)``: what the dump's access counters say, and the patterns by them.

    With LRU idle times: the patterns with the most memory idle past the longest
    threshold first; with LFU counters: the highest mean counter first; with
    neither, the frame is None and the note names the settings that record them (or says the pass did not run).
    """
    from ..passes.activity import COUNTER_SETTINGS, ActivityOptions, idle_label

    if "activity" not in res.tables:
        return _not_run(res, "activity"), None
    frame = res.tables["activity"].to_pandas()
    options = getattr(res.config, "activity", None) or ActivityOptions()
    if frame["n_with_idle"].sum() > 0:
        labels = [idle_label(t) for t in options.idle_thresholds_s]
        frame = frame[frame["n_with_idle"] > 0].sort_values(
            [f"memory_bytes_idle_over_{label}" for label in labels[::-1]] + ["memory_bytes", "db", "pattern"],
            ascending=[False] * (len(labels) + 1) + [True, True], kind="stable")
        columns = ["db", "pattern", "n_keys", "memory_bytes", *[f"memory_bytes_idle_over_{label}" for label in labels],
                   "memory_bytes_cold_without_ttl", "min_idle_s", "max_idle_s"]
        longest = int(frame["max_idle_s"].max())
        note = f"LRU idle times at save (maxmemory-policy *-lru); longest unread: {_duration(longest)}"
        return note, _head(frame[columns], top)
    if frame["n_with_lfu"].sum() > 0:
        frame = frame[frame["n_with_lfu"] > 0].sort_values(
            ["lfu_mean", "memory_bytes", "db", "pattern"], ascending=[False, False, True, True], kind="stable")
        decay = options.lfu_decay_time_min
        note = (f"LFU counters (maxmemory-policy *-lfu), logarithmic: ~100 reads make 10, 1M 255; "
                f"assumed decay: 1 point per {decay} min unread (lfu-decay-time {decay})")
        columns = ["db", "pattern", "n_keys", "memory_bytes", "lfu_mean", "lfu_max", "n_lfu_zero",
                   "memory_bytes_lfu_zero"]
        return note, _head(frame[columns], top)
    return f"none in the dump: {COUNTER_SETTINGS}", None


def _head(frame, top):
    frame = frame.reset_index(drop=True)
    return frame.head(top) if top else frame


def _duration(seconds):
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}".replace(".0 ", " ")
    return f"{seconds} s"


def largest_savings(findings, most=5) -> list:
    """The ``most`` largest :class:`Saving` s the findings point to, largest first.

    Compact-encoding limits are one ``CONFIG SET`` per setting (the highest value any
    pattern needs, the savings summed); the others are one action per finding. Keys that
    expire together are no saving (see :func:`memory_at_risk`).
    """
    by_setting: dict = {}
    actions: list = []
    for f in findings:
        details = f.details_dict
        if f.code in ("ENC001", "ENC003") and details.get("est_saving_bytes"):
            setting, value = (details["setting"], details["largest"]) if f.code == "ENC001" \
                else ("list-compress-depth", 1)
            saved, top, code = by_setting.get(setting, (0, value, f.code))
            by_setting[setting] = (saved + details["est_saving_bytes"], max(top, value), code)
            continue
        saving = _saving(f, details)
        if saving is not None and saving.bytes > 0:
            actions.append(saving)
    # A cold pattern, or a library's, without TTL may also be a volatile name without one (TTL002): one action,
    # the specific one.
    specific = {s.pattern for s in actions if s.code == "TTL005" or s.code.startswith("LIB")}
    actions = [s for s in actions if not (s.code == "TTL002" and s.pattern in specific)]
    for setting, (saved, value, code) in by_setting.items():
        actions.append(Saving(f"CONFIG SET {setting} {value}", int(saved), code))
    return _largest(actions, most)


def memory_at_risk(findings, most=3) -> list:
    """The ``most`` largest amounts of memory that expire at once (expiry incidents), each with the TTL jitter
    that would spread it out, as :class:`Saving` s, largest first. Jitter frees no memory: it keeps the
    expiries, and the load of refilling what expired, from landing at once."""
    jitter: dict = {}
    actions: list = []
    for f in findings:
        details = f.details_dict
        if f.code == "EXP001":  # one action per pattern, however many incidents it has
            jitter.setdefault(f.pattern, []).append(f)
        elif f.code == "EXP002":
            patterns = [p["pattern"] for p in details.get("patterns", [])]
            more = f" (+{count(len(patterns) - 1, 'pattern')})" if len(patterns) > 1 else ""
            actions.append(Saving(f"add TTL jitter to {patterns[0]}{more}: {f.n_keys:,} keys expire {_at(details)}",
                                  f.est_memory_bytes, f.code))
        elif f.code == "EXP003":
            actions.append(Saving(f"add ±10% TTL jitter to {f.pattern}: {f.n_keys:,} keys expire in shared "
                                  "milliseconds", f.est_memory_bytes, f.code, f.pattern))
    for pattern, incidents in jitter.items():
        largest = max(incidents, key=lambda f: f.n_keys)
        n = max(len(incidents), largest.details_dict.get("incidents_of_pattern", 0))
        what = f"{_keys_expire(largest.n_keys)} {_at(largest.details_dict)}" if n == 1 else \
            f"{n} incidents, the largest {count(largest.n_keys, 'key')} {_at(largest.details_dict)}"
        actions.append(Saving(f"add ±10% TTL jitter to {pattern}: {what}",
                              sum(f.est_memory_bytes for f in incidents), "EXP001", pattern))
    return _largest([a for a in actions if a.bytes > 0], most)


def _largest(actions, most):
    return sorted(actions, key=lambda s: (-s.bytes, s.code, s.action))[:most]


def _keys_expire(n):
    return f"{count(n, 'key')} {'expires' if n == 1 else 'expire'}"


def _saving(f, details):
    pattern = f.pattern
    if f.code == "TTL005":
        return Saving(f"{pattern}: {count(f.n_keys, 'key')} without TTL idle more than "
                      f"{_duration(details['cold_idle_s'])}: delete them or add a TTL", f.est_memory_bytes, f.code,
                      pattern)
    if f.code == "TTL002":
        n = details["n_without_ttl"]
        return Saving(f"add a TTL to {pattern}: {count(n, 'key')} never expire{'s' if n == 1 else ''}",
                      f.est_memory_bytes, f.code, pattern)
    if f.code.startswith("LIB") and details.get("setting"):
        setting = details["setting"].split(" (")[0]  # the setting, without its default in brackets
        return Saving(f"{pattern} ({details.get('library', 'library')}): set {setting}", f.est_memory_bytes, f.code,
                      pattern)
    if f.code in ("ENC002", "ENC004") and details.get("est_saving_bytes"):
        what = "as fields of hashes" if f.code == "ENC002" else "bounded (trim old members, or bucket by time)"
        return Saving(f"store {pattern} {what}", int(details["est_saving_bytes"]), f.code, pattern)
    return None


def _at(details):
    start = datetime.datetime.fromisoformat(details["start"].replace("Z", "+00:00"))
    end = datetime.datetime.fromisoformat(details["end"].replace("Z", "+00:00"))
    span = int((end - start).total_seconds())
    when = f"{start:%Y-%m-%d %H:%M:%S}Z"
    return f"at {when}" if span <= 1 else f"in {_duration(span)} from {when}"
