"""Many tiny strings that would be cheaper as fields of hashes (ENC002)."""

import math
from dataclasses import dataclass

import numpy as np

from .. import kernels
from ..findings import Severity, count, format_memory, format_share
from ..options import option
from ..patterns.text import PLACEHOLDER
from .base import Rule
from .compact import LISTPACK_HEADER_BYTES, compact_memory, memory_model


def literal_prefix_bytes(pattern):
    """Bytes of the pattern before its first placeholder: what every key of it starts with."""
    match = PLACEHOLDER.search(pattern)
    return len((pattern[:match.start()] if match else pattern).encode())


class TinyStrings(Rule):
    """Many small strings that would take less memory as fields of hashes.

    ## What it does
    Flags patterns of at least `min_keys` (1000) string keys, none with a TTL,
    nine in ten of them with values of at most `max_value_bytes` (64) bytes
    when storing them as fields of small hashes (`fields_per_hash` fields
    each, listpack-encoded) would save at least `min_saving_share` (30%) of
    their memory. The estimate uses the dump's memory model: each key's
    memory now against hashes whose key is the pattern's fixed prefix and
    whose fields are the rest of each key. Needs memory estimates.

    ## Why is this bad?
    The Key Design chapter (§30.2.2): every key costs "~90-200 bytes per key" of overhead
    (its dict entry, object header, key string) before its value; a 5-byte
    counter pays it in full. Baidu Cloud's guidelines (Value 如何设计): small members in a hash
    use the compact encoding and cut "the overhead of Redis's own data
    structures". OneUptime's guide (anti-pattern 4) turns `john_email` and similar
    strings into one hash `user:john` with an `email` field.

    ## Example
    ```
    SET user:1000:name Alice
    SET user:1000:email alice@example.com     (a million users: two keys each)
    ```

    ## Use instead
    ```
    HSET user:1000 name Alice email alice@example.com
    ```
    or, for one value per id, bucket ids: `HSET counter:page:{id // 100} {id % 100} 42`.
    Hash fields have no TTL of their own before Redis 7.4 (`HEXPIRE`), which is
    why patterns with TTLs are not reported.
    """

    code = "ENC002"
    name = "tiny-strings"
    severity = Severity.INFO
    message = ("Small strings of {pattern} would take about {saving} less ({share}) as fields of "
               "{hashes} of {fields_per_hash} fields ({keys}, {memory})")

    @dataclass(frozen=True)
    class Options:
        min_keys: int = option(1000, "patterns with fewer keys are not reported")
        max_value_bytes: int = option(64, "values at most this long count as small")
        fields_per_hash: int = option(100, "fields per hash in the estimate")
        min_saving_share: float = option(0.3, "report when hashes would save this share of the memory")

    bounded = True

    @classmethod
    def pattern_sums(cls, ctx, options):
        """Per pattern without a TTL: its strings, those with small values, and the bytes of their keys and
        values (0 for a pattern with a TTL, which is not reported: summed over chunks, its strings stay
        fewer than its keys)."""
        n = ctx.groups.n
        eligible = ctx.pattern_n_with_ttl == 0
        sums = {"strings": np.zeros(n, np.int64), "small": np.zeros(n, np.int64),
                "key_bytes": np.zeros(n, np.uint64), "value_bytes": np.zeros(n, np.uint64)}
        if eligible.any() and ctx.n_rows:
            codes, strings = ctx.type_codes("string")
            kernels.string_sums.sums_into(
                kernels.as_ids(ctx.groups.group), kernels.as_codes(codes), strings.view(np.uint8),
                eligible.view(np.uint8), np.ascontiguousarray(ctx.n_elements, np.uint64), ctx.key_offsets,
                options.max_value_bytes, *sums.values())
        return {name: values.astype(np.int64, copy=False) for name, values in sums.items()}

    def check(self, ctx, options):
        n_keys = ctx.pattern_n_keys
        large = n_keys >= options.min_keys
        if not ctx.has_memory_estimates or not large.any() or not ctx.has_any_type("string"):
            return
        sums = ctx.sums(self, options)
        candidates = large & (sums["strings"] == n_keys) & (ctx.pattern_n_with_ttl == 0)
        if not candidates.any():
            return
        strings = np.maximum(sums["strings"], 1)
        mean_key, mean_value = sums["key_bytes"] / strings, sums["value_bytes"] / strings
        model = memory_model(ctx.info)
        for g in np.flatnonzero(candidates & (sums["small"] >= 0.9 * sums["strings"])):
            n = int(n_keys[g])
            prefix = literal_prefix_bytes(ctx.groups.pattern[g])
            field = max(1.0, mean_key[g] - prefix)
            n_hashes = math.ceil(n / options.fields_per_hash)
            blob = LISTPACK_HEADER_BYTES + (n / n_hashes) * (field + 2 + mean_value[g] + 2)
            hash_key = prefix + len(str(n_hashes))
            per_hash = int(compact_memory(model, [hash_key], [0], [math.ceil(blob)])[0])
            now = int(ctx.pattern_memory[g])
            saving = now - n_hashes * per_hash
            if saving < options.min_saving_share * now:
                continue
            yield self.finding(ctx, ctx.pattern_hit(g), n_hashes=n_hashes,
                               fields_per_hash=options.fields_per_hash, est_saving_bytes=saving,
                               say={"saving": format_memory(saving, ctx.memory_basis),
                                    "hashes": count(n_hashes, "hash", "hashes"),
                                    "share": format_share(saving / now)})

