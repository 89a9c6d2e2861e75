"""The triage summary: what an on-call engineer reads first, made of what the passes found.

Five parts, each a small table: memory by type (as ``redis-cli --bigkeys``
sums it up), the top patterns, memory freed over time by TTL bucket, the
expiry incidents, cold and hot memory, and the largest savings, each one
concrete action with its bytes. Renderers (terminal, HTML, JSON) read a
:class:`Triage`; a part a run could not make (a bounded run skips what needs
every key) is None, with ``notes`` saying why.
"""

import datetime
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa

from ..findings import count
from .views import dump_ctime, expiry_burst_rows, key_memory, pattern_rows

#: TTL buckets of time left at save time: (label, upper bound in seconds, exclusive).
TTL_BUCKETS = (("< 1 h", 3600), ("1-4 h", 4 * 3600), ("4-12 h", 12 * 3600), ("12-24 h", 86400),
               ("1-7 d", 7 * 86400), ("> 7 d", None))

#: Parts of the summary, in the order shown.
PARTS = ("by_type", "top_patterns", "ttl_buckets", "incidents", "activity", "savings")


@dataclass(frozen=True)
class Saving:
    """One thing to do and the memory it concerns.

    Attributes:
        action: what to do, in a line (a command, or a change to the writers).
        bytes: the memory it saves or frees (an estimate, as the finding's).
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
            elif part == "savings":
                data[part] = [s.__dict__ for s in value]
            else:
                data[part] = None
        data["notes"] = dict(self.notes)
        return data


def triage(res, patterns=5, incidents=3, savings=5) -> Triage:
    """The :class:`Triage` of a result: ``patterns`` top patterns, ``incidents`` largest incidents,
    ``savings`` largest savings."""
    notes = {}
    whole = not res.bounded
    if not whole:
        notes["by_type"] = notes["ttl_buckets"] = "needs every key: not made in a bounded run"
    expiry_ran = "expiry_bursts" in res.tables
    if not expiry_ran:
        notes["incidents"] = _not_run(res, "expiry")
    activity = _activity(res) if "activity" in res.tables else None
    if activity is None:
        notes["activity"] = _not_run(res, "activity")
    return Triage(
        by_type=memory_by_type(res) if whole else None,
        top_patterns=_top_patterns(res, patterns) if "patterns" in res.tables else None,
        ttl_buckets=ttl_buckets(res) if whole else None,
        incidents=expiry_burst_rows(res, incidents) if expiry_ran else None,
        activity=activity,
        savings=largest_savings(res.finding_list, savings),
        notes=notes,
    )


def _not_run(res, pass_id):
    if pass_id in res.skipped:
        return f"the {pass_id} pass needs every key in memory: not run in a bounded run"
    return f"the {pass_id} pass did not run"


def memory_by_type(res) -> pd.DataFrame:
    """Per type: keys, memory, average, and the largest key with its memory, most memory first."""
    table = res.keys.to_arrow()
    columns = ["type", "n_keys", "memory_bytes", "memory_share", "avg_bytes", "largest_key", "largest_bytes"]
    if table.num_rows == 0:
        return pd.DataFrame({name: [] for name in columns})
    types = table["type"].combine_chunks() if isinstance(table["type"], pa.ChunkedArray) else table["type"]
    if not isinstance(types.type, pa.DictionaryType):
        types = types.dictionary_encode()
    codes = types.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    names = types.dictionary.to_pylist()
    memory = key_memory(res).to_numpy().astype(np.float64)
    n = np.bincount(codes, minlength=len(names))
    total = np.bincount(codes, weights=memory, minlength=len(names))
    # The largest key of each type: the last row of its type once sorted by (type, memory).
    order = np.lexsort((memory, codes))
    last = order[np.concatenate((np.flatnonzero(np.diff(codes[order])), [len(order) - 1]))]
    keys = table["key"].take(pa.array(last)).to_pylist()
    largest = {int(codes[row]): (key, memory[row]) for row, key in zip(last, keys, strict=True)}
    present = np.flatnonzero(n)
    all_memory = total.sum() or 1.0
    frame = pd.DataFrame({
        "type": [names[t] for t in present],
        "n_keys": n[present].astype(np.int64),
        "memory_bytes": total[present].astype(np.int64),
        "memory_share": total[present] / all_memory,
        "avg_bytes": (total[present] / n[present]).round().astype(np.int64),
        "largest_key": [largest[int(t)][0].decode("utf-8", "backslashreplace") for t in present],
        "largest_bytes": [int(largest[int(t)][1]) for t in present],
    })
    return frame.sort_values(["memory_bytes", "type"], ascending=[False, True], kind="stable").reset_index(drop=True)


def _top_patterns(res, top):
    return pattern_rows(res, top)[["db", "pattern", "n_keys", "memory_bytes_sum", "memory_share", "ttl_share"]]


def ttl_buckets(res) -> pd.DataFrame:
    """Memory freed over time: keys and memory by time left before expiry at the dump's ctime, then
    the keys that never expire. Keys already expired when the dump was written have their own row."""
    table = res.keys.to_arrow()
    memory = key_memory(res).to_numpy().astype(np.float64)
    expire = table["expire_at"].cast(pa.int64())
    has_ttl = expire.is_valid().to_numpy(zero_copy_only=False)
    expire_ms = expire.fill_null(0).to_numpy(zero_copy_only=False)
    ctime = dump_ctime(res.info)
    if ctime is not None:
        now_ms = int(ctime.timestamp() * 1000)
    else:  # no AUX ctime (a keys Parquet file, a hand-made table): the first expiry stands for it
        now_ms = int(expire_ms[has_ttl].min()) if has_ttl.any() else 0
    left_s = (expire_ms - now_ms) / 1000.0
    rows, lower = [], None
    expired = has_ttl & (left_s <= 0)
    if expired.any():
        rows.append(("expired at save", expired))
    for label, upper in TTL_BUCKETS:
        inside = has_ttl & (left_s > 0)
        if lower is not None:
            inside &= left_s >= lower
        if upper is not None:
            inside &= left_s < upper
        rows.append((label, inside))
        lower = upper
    rows.append(("never", ~has_ttl))
    total = memory.sum() or 1.0
    return pd.DataFrame({
        "expires": [label for label, _mask in rows],
        "n_keys": [int(mask.sum()) for _label, mask in rows],
        "memory_bytes": [int(memory[mask].sum()) for _label, mask in rows],
        "memory_share": [float(memory[mask].sum() / total) for _label, mask in rows],
    })


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
    pattern needs, the savings summed); the others are one action per finding.
    """
    by_setting: dict = {}
    jitter: dict = {}
    actions: list = []
    for f in findings:
        details = f.details_dict
        if f.code == "EXP001":  # one action per pattern, however many incidents it has
            jitter.setdefault(f.pattern, []).append(f)
            continue
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
    for pattern, incidents in jitter.items():
        largest = max(incidents, key=lambda f: f.n_keys)
        n = max(len(incidents), largest.details_dict.get("incidents_of_pattern", 0))
        what = f"{largest.n_keys:,} keys expire {_at(largest.details_dict)}" if n == 1 else \
            f"{n} incidents, the largest {largest.n_keys:,} keys {_at(largest.details_dict)}"
        actions.append(Saving(f"add ±10% TTL jitter to {pattern}: {what}",
                              sum(f.est_memory_bytes for f in incidents), "EXP001", pattern))
    return sorted(actions, key=lambda s: (-s.bytes, s.code, s.action))[:most]


def _saving(f, details):
    pattern = f.pattern
    if f.code == "TTL005":
        return Saving(f"{pattern}: {count(f.n_keys, 'key')} without TTL idle more than "
                      f"{_duration(details['cold_idle_s'])}: delete them or add a TTL", f.est_memory_bytes, f.code,
                      pattern)
    if f.code == "EXP002":
        patterns = [p["pattern"] for p in details.get("patterns", [])]
        more = f" (+{count(len(patterns) - 1, 'pattern')})" if len(patterns) > 1 else ""
        return Saving(f"add TTL jitter to {patterns[0]}{more}: {f.n_keys:,} keys expire {_at(details)}",
                      f.est_memory_bytes, f.code)
    if f.code == "EXP003":
        return Saving(f"add ±10% TTL jitter to {pattern}: {f.n_keys:,} keys expire in shared milliseconds",
                      f.est_memory_bytes, f.code, pattern)
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
