"""The activity pass: cold and hot memory per pattern, from the access data the server saved.

A server whose ``maxmemory-policy`` is an LRU one (``allkeys-lru``,
``volatile-lru``) writes each key's idle time in seconds at save time; an LFU
one (``allkeys-lfu``, ``volatile-lfu``) writes each key's LFU counter instead.
Other policies write neither, and then this pass says so and nothing else.

The LFU counter is logarithmic (Redis's ``lfu-log-factor``, 10 by default: a
new key starts at 5, about 100 reads bring it to 10, a million to 255) and the
server takes one point off per ``lfu-decay-time`` minutes without a read
(1 by default) before saving it. The dump records neither setting:
``lfu_decay_time_min`` says which one the text assumes. A counter of 0 means
no read for at least that long, not how long: only idle times give ages.
"""

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..findings import Check, Severity, format_bytes, format_share
from ..keyspace.activity import ActivityCounts, cold_rows, nullable, recorded
from ..keyspace.grouping import example_positions, first_per_group, masked
from ..options import option, require_positive, require_share
from .base import PassOutput

COLD_WITHOUT_TTL = Check(
    "TTL005", "cold-without-ttl", Severity.WARNING,
    "Keys of a pattern without a TTL hold at least `cold_min_bytes` of memory (and `cold_min_share` of the "
    "pattern's) and had not been read for more than `cold_idle_s` when the dump was saved (LRU idle times).",
    "Memory nobody reads and nothing expires stays until someone deletes it, or until eviction picks it "
    "under memory pressure, after it has already pushed out data in use. Only dumps of servers with an LRU "
    "maxmemory-policy record idle times. Delete what is dead, or give the pattern a TTL so it leaves on its own.")

#: Example keys of a TTL005 finding.
N_EXAMPLES = 3

#: How each counter is written, for the note shown when a dump has neither.
COUNTER_SETTINGS = ("set maxmemory-policy allkeys-lru/volatile-lru (idle times) "
                    "or allkeys-lfu/volatile-lfu (LFU counters)")


@dataclass(frozen=True)
class ActivityOptions:
    """Thresholds of the ``activity`` pass (cold and hot memory)."""

    idle_thresholds_s: tuple = option((3600, 86400, 7 * 86400),
                                      "idle times in seconds counted per pattern (keys and memory idle longer)")
    cold_idle_s: int = option(7 * 86400, "TTL005: keys idle longer than this are cold")
    cold_min_bytes: int = option(1 << 20, "TTL005: report a pattern whose cold keys without a TTL hold this much")
    cold_min_share: float = option(0.5, "TTL005: ... and at least this share of the pattern's memory")
    lfu_decay_time_min: int = option(1, "the servers' lfu-decay-time (minutes per point of decay), for the text")

    def __post_init__(self):
        require_positive(self, "idle_thresholds_s", "cold_idle_s", "cold_min_bytes", "lfu_decay_time_min")
        require_share(self, "cold_min_share")
        object.__setattr__(self, "idle_thresholds_s", tuple(sorted(set(self.idle_thresholds_s))))


def idle_label(seconds):
    """``3600`` -> ``"1h"``, ``604800`` -> ``"7d"``: the suffix of an idle column."""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


class ActivityPass:
    """Per pattern: keys and memory idle longer than each threshold, and LFU counters.

    Tables:
        activity: one row per pattern (see :func:`activity_columns`).
    """

    id = "activity"
    requires = ("patterns",)
    Options = ActivityOptions
    checks = (COLD_WITHOUT_TTL,)

    @staticmethod
    def measure_groups(columns, groups, options) -> ActivityCounts:
        """The idle times and LFU counters of a chunk's keys, per group of the chunk."""
        return ActivityCounts.measure(groups.group, groups.n, columns, options.idle_thresholds_s,
                                      options.cold_idle_s)

    @staticmethod
    def merge_groups(parts, n_groups) -> ActivityCounts:
        return ActivityCounts.merge(parts, n_groups)

    @staticmethod
    def kept_rows(columns, groups, options):
        """The first cold keys without a TTL of each group: the examples of TTL005."""
        if not recorded(columns.table, "idle_s"):
            return np.zeros(0, np.int64)
        idle, has_idle = nullable(columns.table, "idle_s", np.uint64)
        cold = cold_rows(columns, idle, has_idle, options.cold_idle_s)
        return cold[first_per_group(groups.group, groups.n, N_EXAMPLES, rows=cold)]

    def finish(self, measured, ctx):
        columns, options = ctx.columns, ctx.options
        groups = ctx.output("patterns").shared
        memory = groups.stats.memory.sums  # the patterns pass measured every group
        data = {
            "db": pa.array(groups.db, pa.int32()),
            "pattern": pa.array(groups.pattern, pa.string()),
            "n_keys": pa.array(groups.n_keys, pa.int64()),
            "memory_bytes": pa.array(memory, pa.uint64()),
            "n_with_idle": pa.array(measured.n_with_idle, pa.int64()),
        }
        for i, threshold in enumerate(measured.idle_thresholds_s):
            label = idle_label(threshold)
            data[f"n_idle_over_{label}"] = pa.array(measured.n_idle_over[:, i], pa.int64())
            data[f"memory_bytes_idle_over_{label}"] = pa.array(measured.memory_idle_over[:, i], pa.uint64())
        data["memory_bytes_cold_without_ttl"] = pa.array(measured.memory_cold, pa.uint64())
        has_idle, has_lfu = measured.n_with_idle > 0, measured.n_with_lfu > 0
        data["min_idle_s"] = masked(measured.min_idle_s, has_idle, pa.uint64())
        data["max_idle_s"] = masked(measured.max_idle_s, has_idle, pa.uint64())
        n_lfu = measured.n_with_lfu
        data["n_with_lfu"] = pa.array(n_lfu, pa.int64())
        data["lfu_mean"] = pa.array(np.divide(measured.lfu_sum.astype(np.float64), n_lfu, out=np.zeros(groups.n),
                                              where=has_lfu), pa.float64(), mask=~has_lfu)
        data["lfu_max"] = masked(measured.lfu_max.astype(np.uint8), has_lfu, pa.uint8())
        data["n_lfu_zero"] = pa.array(measured.n_lfu_zero, pa.int64())
        data["memory_bytes_lfu_zero"] = pa.array(measured.memory_lfu_zero, pa.uint64())
        table = _table(data, options)
        findings = _cold_findings(measured, memory, groups, columns, options)
        return PassOutput(tables={"activity": table}, findings=tuple(findings))


def activity_columns(options):
    """``{column: doc}`` of the ``activity`` table for these options."""
    docs = {
        "db": "database number",
        "pattern": "the pattern",
        "n_keys": "keys of the pattern",
        "memory_bytes": "memory of the pattern's keys",
        "n_with_idle": "keys with an LRU idle time in the dump (maxmemory-policy *-lru)",
    }
    for threshold in options.idle_thresholds_s:
        label = idle_label(threshold)
        docs[f"n_idle_over_{label}"] = f"keys idle more than {label} when the dump was saved"
        docs[f"memory_bytes_idle_over_{label}"] = f"memory of the keys idle more than {label}"
    docs.update({
        "memory_bytes_cold_without_ttl": "memory of keys without a TTL idle more than cold_idle_s (TTL005)",
        "min_idle_s": "the least idle time of its keys (its most recent read), seconds; null without idle times",
        "max_idle_s": "the longest idle time of its keys, seconds; null without idle times",
        "n_with_lfu": "keys with an LFU counter in the dump (maxmemory-policy *-lfu)",
        "lfu_mean": "mean LFU counter (logarithmic, decayed at save time); null without counters",
        "lfu_max": "highest LFU counter; null without counters",
        "n_lfu_zero": "keys whose LFU counter had decayed to 0 (no read for at least one decay period)",
        "memory_bytes_lfu_zero": "memory of those keys",
    })
    return docs


def _table(data, options):
    docs = activity_columns(options)
    fields = [pa.field(name, data[name].type, metadata={"doc": docs[name]}) for name in docs]
    table = pa.Table.from_arrays([data[name] for name in docs], schema=pa.schema(fields))
    return table.sort_by([("memory_bytes", "descending"), ("db", "ascending"), ("pattern", "ascending")])


def _cold_findings(measured, memory, groups, columns, options):
    cold_memory = measured.memory_cold
    share = np.divide(cold_memory.astype(np.float64), memory.astype(np.float64),
                      out=np.zeros(groups.n), where=memory > 0)
    fired = np.flatnonzero((cold_memory >= options.cold_min_bytes) & (share >= options.cold_min_share))
    if len(fired) == 0:
        return []
    idle, has_idle = nullable(columns.table, "idle_s", np.uint64)
    # the keys at hand: every key in memory, the kept ones (the first cold keys of each group) in a bounded run
    cold = cold_rows(columns, idle, has_idle, options.cold_idle_s)
    offsets, rows = example_positions(groups.group[cold], groups.n, N_EXAMPLES, positions=cold)
    idle_text = idle_label(options.cold_idle_s)
    findings = []
    for g in fired:
        n_cold = int(measured.n_cold[g])
        message = (f"{format_bytes(int(cold_memory[g]))} of {groups.pattern[g]} ({n_cold:,} keys without a "
                   f"TTL, {format_share(share[g])} of its memory) had not been read for more than {idle_text} when "
                   f"the dump was saved: delete them or give the pattern a TTL")
        findings.append(COLD_WITHOUT_TTL.finding(
            message, pattern=groups.pattern[g], db=int(groups.db[g]), n_keys=n_cold,
            est_memory_bytes=int(cold_memory[g]), examples=columns.key_text(rows[offsets[g]:offsets[g + 1]]),
            details={"cold_idle_s": options.cold_idle_s, "share_of_memory": round(float(share[g]), 4),
                     "memory_basis": columns.memory_basis}))
    return findings
