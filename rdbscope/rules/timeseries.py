"""Sorted sets that look like unbounded time series (ENC004)."""

from dataclasses import dataclass

import numpy as np

from ..findings import Severity, format_memory
from ..options import option
from ..patterns.text import alpha_words
from .base import Rule
from .compact import compact_memory, listpack_bytes, memory_model, serialized_value_bytes

TIME_WORDS = ("timeline", "timeseries", "series", "history", "events", "metrics", "log", "logs", "samples",
              "readings", "activity", "audit", "feed", "ticks", "trades", "clicks", "views")
#: Placeholders that mean the key already holds one period only.
TIME_PLACEHOLDERS = ("{date}", "{ts}")
#: Bytes a date suffix such as ``:20240501`` adds to a bucket's key.
BUCKET_SUFFIX_BYTES = 9


class TimeSeriesZset(Rule):
    """Big sorted sets named like time series, with no time period in the key.

    ## What it does
    Flags patterns of sorted sets kept as skiplists with at least
    `min_members` (1000) members whose name has a word of `words` (timeline,
    history, events, metrics, log, feed, …) and no date or timestamp
    placeholder: one key accumulating a whole history. The saving estimated
    is what the same members would take bucketed by time into sorted sets of
    at most `zset_max_listpack_entries` (128) members, which stay listpacks,
    computed with the dump's memory model.

    ## Why is this bad?
    The Key Design chapter (§30.5.4): for a List/ZSet "with too many elements", use
    "time-based sharding: split history ZSet by month" (`user:{id}:events:
    {month}`, with an expiry). Baidu Cloud's guidelines (消息队列或任务记录): split records by
    period, `uid:task:202209` rather than `uid:task:all`, and set expiries so a
    key does not pile up history. OneUptime's guide stores time series in sorted sets
    (`timeseries:cpu:{server_id}`); kept in one key forever, each member costs
    a skiplist node and a dict entry (about 100 bytes on top of its data),
    range deletions block, and nothing expires.

    ## Example
    ```
    ZADD user:1000:timeline 1716000000 post:1
    ```
    (every post of every year in one sorted set)

    ## Use instead
    ```
    ZADD user:1000:timeline:202405 1716000000 post:1
    EXPIRE user:1000:timeline:202405 7776000
    ```
    or a stream (`XADD … MAXLEN ~ 10000`), or trim with `ZREMRANGEBYSCORE`.
    """

    code = "ENC004"
    name = "time-series-zset"
    severity = Severity.INFO
    message = ("Sorted sets of {pattern} look like time series kept in one key, up to {largest:,} members; "
               "bucketed by time they would take about {saving} less ({keys}, {memory})")

    @dataclass(frozen=True)
    class Options:
        words: tuple = option(TIME_WORDS, "words of a pattern that name a time series")
        min_members: int = option(1000, "sorted sets with fewer members are not reported")
        zset_max_listpack_entries: int = option(128, "members per time bucket in the estimate")

    bounded = True

    @classmethod
    def candidates(cls, ctx, options):
        rows = ctx.rows_of("zset", "skiplist")
        return rows[ctx.n_elements[rows] >= options.min_members]

    def check(self, ctx, options):
        words = {w.lower() for w in options.words}
        rows = self.candidates(ctx, options)
        if len(rows) == 0:
            return
        named = np.array([bool(words & {w.lower() for w in alpha_words(p)})
                          and not any(t in p for t in TIME_PLACEHOLDERS) for p in ctx.groups.pattern], bool)
        rows = rows[named[ctx.groups.group[rows]]]
        if len(rows) == 0:
            return
        saving = self._savings(ctx, rows, options.zset_max_listpack_entries)
        n = ctx.n_elements[rows]
        for hit in ctx.hits(rows):
            mine = ctx.groups.group[rows] == hit.group
            saved = int(saving[mine].sum()) if saving is not None else None
            said = format_memory(saved, ctx.memory_basis) if saved is not None else "(no estimates)"
            yield self.finding(ctx, hit, largest=int(n[mine].max()), est_saving_bytes=saved,
                               say={"saving": said})

    @staticmethod
    def _savings(ctx, rows, per_bucket):
        if not ctx.has_memory_estimates:
            return None
        n = ctx.n_elements[rows].astype(np.int64)
        buckets = np.maximum(1, -(-n // per_bucket))
        has_ttl = ctx.columns.has_ttl[rows]
        key_bytes = ctx.key_bytes_at(rows)
        value = serialized_value_bytes(ctx.columns.rdb_bytes[rows], key_bytes, has_ttl)
        blob = listpack_bytes(-(-value // buckets), 2 * -(-n // buckets))
        bucket = compact_memory(memory_model(ctx.info), key_bytes + BUCKET_SUFFIX_BYTES, has_ttl, blob)
        return np.maximum(ctx.memory[rows].astype(np.int64) - buckets * bucket, 0)
