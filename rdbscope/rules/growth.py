"""Key families numbered by a counter that only grows and never expire (GRO001)."""

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..findings import Severity
from ..options import option
from ..patterns.constants import capturing_regex
from ..rdb.keytext import key_texts
from .base import Rule


class GrowingIds(Rule):
    """Keys numbered by an ever-growing counter, none with a TTL: a likely leak (opt-in).

    ## What it does
    Flags patterns with one `{id}` whose keys (at least `min_keys`) all lack a TTL and whose
    ids are distinct and dense: a run such as 1..1500 with few gaps (at most
    `max_span_ratio` × the number of keys between the smallest and the largest). Such a
    family is written by `INCR` on a counter and nothing ever deletes it. Patterns a
    known library owns are left to its own checks (LIB001-LIB005). With several dumps of
    different days, `rdbscope diff` (column `leak`) and `rdbscope trend` (`grew_each_date`)
    confirm that it keeps growing. Opt-in (`--select GRO001` or the preset `growth`): a table
    of users numbered 1..N looks the same in one dump, and is not a leak.

    ## Why is this bad?
    OneUptime's guide: keys that are not permanent data need a TTL, or they accumulate
    until memory runs out. An audit log, an event or job record keyed `event:{id}` grows
    by one key per event: at the next traffic peak, or a year on, it is the largest thing
    in the keyspace.

    ## Example
    ```
    audit:event:1 … audit:event:1500   (no TTL)
    ```

    ## Use instead
    ```
    SET audit:event:1501 … EX 2592000        (keep 30 days)
    XADD audit:events MAXLEN ~ 100000 * …    (or one capped stream)
    ```
    """

    code = "GRO001"
    name = "growing-ids"
    severity = Severity.WARNING
    default = False
    message = ("Keys of {pattern} are numbered {first}..{last} by a growing counter and none expires "
               "({keys}, {memory}): a likely leak")

    @dataclass(frozen=True)
    class Options:
        min_keys: int = option(1000, "keys a pattern needs before it is read as growing")
        max_span_ratio: float = option(1.5, "most (largest id - smallest id + 1) / keys for ids to be dense")

    def check(self, ctx, options):
        with_ttl = ctx.pattern_n_with_ttl
        candidates = [g for g, (pattern, owner) in enumerate(zip(ctx.groups.pattern, ctx.owners, strict=True))
                      if owner is None and pattern.count("{id}") == 1 and with_ttl[g] == 0
                      and ctx.pattern_n_keys[g] >= options.min_keys]
        for g in candidates:
            rows = np.flatnonzero(ctx.groups.group == g)
            texts = key_texts(ctx.columns.keys.take(pa.array(rows)))
            found = pc.extract_regex(texts, capturing_regex(ctx.groups.pattern[g]))
            if found.null_count:
                continue
            ids = pc.cast(found.field("n0"), pa.float64()).to_numpy(zero_copy_only=False)
            first, last = int(ids.min()), int(ids.max())
            distinct = len(np.unique(ids))
            if distinct == len(ids) and last - first + 1 <= options.max_span_ratio * len(ids):
                yield self.finding(ctx, ctx.pattern_hit(g), first=first, last=last)
