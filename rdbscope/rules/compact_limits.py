"""Collections just over a compact-encoding limit (ENC001)."""

from dataclasses import dataclass

import numpy as np

from ..findings import Severity, format_memory, format_share
from ..options import option
from .base import Rule
from .compact import compact_memory, layout_name, listpack_bytes, memory_model, serialized_value_bytes

COMPACT_ENCODINGS = ("listpack", "listpackex", "ziplist", "zipmap")
TABLE_ENCODINGS = ("hashtable", "skiplist")
#: Layouts whose sets have no listpack encoding (it came with Redis 7.2).
NO_LISTPACK_SETS = ("redis-6", "redis-7.0")
_PLURAL = {"hash": "Hashes", "set": "Sets", "zset": "Sorted sets"}


class JustOverCompactLimit(Rule):
    """Hashes, sets and sorted sets just over a compact-encoding limit.

    ## What it does
    Flags patterns with hashes, sets or sorted sets stored as hash tables or
    skiplists although they are only a little over the server's compact
    (listpack) limits: at most `margin` (25%) more entries than
    `*-max-listpack-entries`, with every element within
    `*-max-listpack-value`; or, for sets and sorted sets, within the entry
    limit but with their longest member at most 25% over the value limit.
    The limits are the defaults (Baidu Cloud's guidelines' table), raised to what the dump
    shows: a listpack with more entries proves the server allows it. The
    finding estimates the memory a listpack would take instead, with the
    dump's memory model (same server layout and allocator), from the
    elements' size in the dump. Sets are checked on servers with listpack
    sets (Redis 7.2+, Valkey).

    ## Why is this bad?
    Baidu Cloud's guidelines (Value 如何设计): under the default configuration, keeping the
    member count and member size of a Hash, List, Set or Zset under the limits
    (Hash, Set, List: 512 members of 64 B; Zset: 128 of 64 B) lets Redis use a
    compact encoding and "reduce the overhead of Redis's own data structures".
    A hash table costs a dict entry and one or two allocations per element; a
    listpack a few bytes. Keys just over the limit pay that for a handful of
    elements: raising the limit a little, or splitting the keys, gets it
    back.

    ## Example
    `HSET inventory:warehouse:b` with 513 fields (hash-max-listpack-entries
    is 512): a hash table.

    ## Use instead
    `CONFIG SET hash-max-listpack-entries 640` (and in redis.conf), or split
    the hash in two (`inventory:warehouse:b:0`, `…:1`).
    """

    code = "ENC001"
    name = "just-over-compact-limit"
    severity = Severity.INFO
    message = ("{Types} of {pattern} are just over {setting} {limit}, up to {largest} ({keys}, {memory}); "
               "{remedy}")

    @dataclass(frozen=True)
    class Options:
        hash_max_listpack_entries: int = option(512, "the server's hash-max-listpack-entries")
        hash_max_listpack_value: int = option(64, "the server's hash-max-listpack-value")
        set_max_listpack_entries: int = option(128, "the server's set-max-listpack-entries")
        set_max_listpack_value: int = option(64, "the server's set-max-listpack-value")
        zset_max_listpack_entries: int = option(128, "the server's zset-max-listpack-entries")
        zset_max_listpack_value: int = option(64, "the server's zset-max-listpack-value")
        margin: float = option(0.25, "how far over a limit (a share of it) counts as just over")

    bounded = True

    @classmethod
    def candidates(cls, ctx, options):
        """The keys of the types checked in a table encoding, and per type the compact key with the
        most elements and the one with the longest: they set the limits the server ran with."""
        parts = [np.zeros(0, np.int64)]
        for type_name in _checked_types(ctx):
            of_type = ctx.type_mask(type_name)
            if ctx.has_any(type_name, *TABLE_ENCODINGS):
                parts.append(np.flatnonzero(of_type & ctx.encoding_mask(*TABLE_ENCODINGS)))
            compact = np.flatnonzero(of_type & ctx.encoding_mask(*COMPACT_ENCODINGS))
            if len(compact):
                parts.append(compact[[np.argmax(ctx.n_elements[compact]), np.argmax(ctx.max_element_bytes[compact])]])
        return np.unique(np.concatenate(parts))

    def check(self, ctx, options):
        for type_name in _checked_types(ctx):
            yield from self._check_type(ctx, options, type_name)

    def _check_type(self, ctx, options, type_name):
        if not ctx.has_any(type_name, *TABLE_ENCODINGS):
            return
        of_type = ctx.type_mask(type_name)
        table = of_type & ctx.encoding_mask(*TABLE_ENCODINGS)
        if not table.any():
            return
        compact = of_type & ctx.encoding_mask(*COMPACT_ENCODINGS)
        n, longest = ctx.n_elements, ctx.max_element_bytes
        entries = max(getattr(options, f"{type_name}_max_listpack_entries"), _max(n[compact]))
        value = getattr(options, f"{type_name}_max_listpack_value")
        if type_name != "hash":  # a hash's longest element is field + value: no bound on either
            value = max(value, _max(longest[compact]))
        over_entries = table & (n > entries) & (n <= entries * (1 + options.margin)) & (longest <= value)
        over_value = table & (n <= entries) & (longest > value) & (longest <= value * (1 + options.margin))
        if type_name == "hash":
            over_value[:] = False
        rows = np.flatnonzero(over_entries | over_value)
        if len(rows) == 0:
            return
        saving = self._savings(ctx, rows, type_name)
        by_entries = over_entries[rows]
        for hit in ctx.hits(rows):
            mine = ctx.groups.group[rows] == hit.group
            entries_bound = bool(by_entries[mine].any())
            kind = "entries" if entries_bound else "value"
            limit = entries if entries_bound else value
            largest = int((n if entries_bound else longest)[rows[mine]].max())
            setting = f"{type_name}-max-listpack-{kind}"
            saved = int(saving[mine].sum()) if saving is not None else None
            if saved is not None:
                share = saved / hit.memory_bytes if hit.memory_bytes else 0.0
                remedy = (f"raising {setting} to {largest} or splitting them would save about "
                          f"{format_memory(saved, ctx.memory_basis)} ({format_share(share)})")
            else:
                remedy = f"raising {setting} to {largest} or splitting them would let them use listpacks"
            yield self.finding(ctx, hit, type=type_name, setting=setting, limit=limit, largest=largest,
                               est_saving_bytes=saved, say={"remedy": remedy, "Types": _PLURAL[type_name]})

    @staticmethod
    def _savings(ctx, rows, type_name):
        """Memory each key at ``rows`` would save as a listpack, or None without estimates."""
        if not ctx.has_memory_estimates:
            return None
        has_ttl = ctx.columns.has_ttl[rows]
        key_bytes = ctx.key_bytes_at(rows)
        value = serialized_value_bytes(ctx.columns.rdb_bytes[rows], key_bytes, has_ttl)
        per_element = 1 if type_name == "set" else 2  # hash: field and value; zset: member and score
        blob = listpack_bytes(value, ctx.n_elements[rows] * per_element)
        compact = compact_memory(memory_model(ctx.info), key_bytes, has_ttl, blob)
        return np.maximum(ctx.memory[rows].astype(np.int64) - compact, 0)


def _checked_types(ctx):
    return ("hash", "zset") if layout_name(ctx.info) in NO_LISTPACK_SETS else ("hash", "set", "zset")


def _max(values):
    return int(values.max()) if len(values) else 0
