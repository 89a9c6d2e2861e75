"""The bigkeys pass: keys over the size thresholds, top keys, memory held by a few keys."""

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from .. import kernels
from ..findings import Check, Severity, count, format_bytes, format_memory, format_share
from ..keyspace.grouping import largest_per_group
from ..options import option, require_positive, require_share
from .base import PassOutput

BIG_STRING = Check(
    "BIG001", "big-string", Severity.WARNING,
    "String values longer than `string_bytes` (10 KB).",
    "A big string costs network time on every GET and blocks the server while it is "
    "freed with DEL. The Key Design chapter: strings over 10 KB are big keys. Store large blobs "
    "elsewhere (object storage) and keep a reference, compress them, or split them.")
BIG_COLLECTION = Check(
    "BIG002", "big-collection", Severity.WARNING,
    "Hashes, lists, sets or sorted sets with more than 5,000 elements (per-type options).",
    "HGETALL, SMEMBERS or LRANGE 0 -1 on such a key is slow, DEL blocks, and in a "
    "cluster the key skews one node. The Key Design chapter: over 5,000 fields/elements/members is "
    "big. Split by id range or time, cap lists (LTRIM), delete with UNLINK.")
BIG_STREAM = Check(
    "BIG003", "big-stream", Severity.WARNING,
    "Streams with more than `stream_entries` (10,000) entries.",
    "A stream that is never trimmed grows without bound. The Key Design chapter: over 10,000 entries "
    "is big. Trim with XADD MAXLEN ~ / MINID or XTRIM.")
BIG_MEMORY = Check(
    "BIG004", "big-memory", Severity.WARNING,
    "Keys holding more than `memory_bytes` (1 MB) of memory, and under their type's length threshold.",
    "Whatever its type, a key this large slows replication, RDB saves and migration of "
    "its slot, and blocks when deleted. Split it or move the payload out of Redis. A key "
    "over its type's threshold too (BIG001-BIG003) is reported there, once, with both thresholds.")
MEMORY_CONCENTRATED = Check(
    "BIG005", "memory-concentrated", Severity.INFO,
    "A pattern whose `concentration_top_keys` largest keys hold at least "
    "`concentration_share` of its memory.",
    "When a few keys of a pattern hold most of its memory they are outliers: usually "
    "a key that is appended to forever or one tenant far larger than the rest. "
    "Look at those keys first.")

#: The largest keys a report lists at most (its HTML big-keys table): every chunk keeps as many of each type.
SHOWN_KEYS = 20

_KEY_COLUMNS = {
    "db": "database number",
    "key": "the key as text (non-UTF-8 bytes escaped \\xNN, a backslash as \\\\)",
    "pattern": "the key's pattern",
    "type": "the key's type",
    "encoding": "the key's encoding",
    "memory_bytes": "est_memory_bytes, or rdb_bytes when the dump has no estimates",
    "rdb_bytes": "bytes in the dump",
    "n_elements": "string length or element count",
}

TOP_KEY_COLUMNS = {
    "ranking": "memory or length (n_elements: bytes for strings, elements otherwise)",
    "scope": "all, or the type ranked",
    "rank": "1 for the largest",
    **_KEY_COLUMNS,
    "expire_at": "expiry, null without TTL",
}

BIG_KEY_COLUMNS = {
    **_KEY_COLUMNS,
    "codes": "the BIG codes the key is over the threshold of",
}


@dataclass(frozen=True)
class BigKeyOptions:
    """Thresholds of the ``bigkeys`` pass. Per-type limits follow the Key Design chapter's table."""

    string_bytes: int = option(10_240, "BIG001: strings longer than this many bytes (10 KB)")
    hash_fields: int = option(5_000, "BIG002: hashes with more fields than this")
    list_elements: int = option(5_000, "BIG002: lists with more elements than this")
    set_members: int = option(5_000, "BIG002: sets with more members than this")
    zset_members: int = option(5_000, "BIG002: sorted sets with more members than this")
    stream_entries: int = option(10_000, "BIG003: streams with more entries than this")
    memory_bytes: int = option(1_048_576, "BIG004: keys holding more memory than this (1 MB)")
    top_n: int = option(10, "rows per ranking in the top_keys table")
    concentration_top_keys: int = option(3, "BIG005: how many of a pattern's largest keys to weigh")
    concentration_share: float = option(0.5, "BIG005: share of the pattern's memory they must hold")
    concentration_min_keys: int = option(20, "BIG005: only patterns with at least this many keys")
    concentration_min_memory_bytes: int = option(1_048_576, "BIG005: only patterns holding at least this much")

    def __post_init__(self):
        require_positive(self, "string_bytes", "hash_fields", "list_elements", "set_members",
                  "zset_members", "stream_entries", "memory_bytes", "top_n", "concentration_top_keys",
                  "concentration_min_keys")
        require_share(self, "concentration_share")

    def element_limits(self):
        """``{type name: limit}`` of the element-count thresholds (BIG002, BIG003)."""
        return {"hash": self.hash_fields, "list": self.list_elements, "set": self.set_members,
                "zset": self.zset_members, "stream": self.stream_entries}


class BigKeysPass:
    """Find keys over the per-type and memory thresholds, and rank the largest keys.

    Tables:
        big_keys: every key over a threshold, largest memory first.
        top_keys: the ``top_n`` largest keys by memory and by length, overall
            and per type.
        types: keys and memory per type and encoding.
    """

    id = "bigkeys"
    requires = ("patterns",)
    Options = BigKeyOptions
    checks = (BIG_STRING, BIG_COLLECTION, BIG_STREAM, BIG_MEMORY, MEMORY_CONCENTRATED)

    @staticmethod
    def kept_rows(columns, groups, options):
        """The rows of a chunk this pass may name: keys over a threshold, the largest keys of each group
        (``groups.stats`` measured) and the largest of each type, by memory and by length."""
        type_codes, type_names = columns.types
        stats = groups.stats
        over, largest, longest = big_rows(columns.memory, columns.n_elements, type_codes, len(type_names),
                                          _limit_of_type(type_names, options), options.memory_bytes,
                                          max(options.top_n, SHOWN_KEYS))
        parts = [
            over,
            largest_per_group(columns.memory, groups.group,
                              stats.memory.kth_largest(np.arange(groups.n), options.concentration_top_keys),
                              options.concentration_top_keys),
            *largest.values(), *longest.values(),
        ]
        return np.concatenate([np.asarray(p, np.int64) for p in parts])

    def run(self, ctx):
        options = ctx.options
        columns = ctx.columns
        groups = ctx.output("patterns").shared
        type_codes, type_names = columns.types
        over_elements = rows_over_limit(columns.n_elements, type_codes, _limit_of_type(type_names, options))
        kind = np.array(list(type_names) or [""], dtype=object)[type_codes[over_elements]]
        over = {
            BIG_STRING: over_elements[np.flatnonzero(kind == "string")],
            BIG_COLLECTION: over_elements[np.flatnonzero(np.isin(kind, ["hash", "list", "set", "zset"]))],
            BIG_STREAM: over_elements[np.flatnonzero(kind == "stream")],
            BIG_MEMORY: np.flatnonzero(columns.memory > options.memory_bytes),
        }
        # One finding per key and cause: a key over its type's threshold is reported under that code,
        # which says when it is over the memory threshold too; BIG004 keeps the keys over memory alone.
        over_memory = np.zeros(len(columns.memory), bool)
        over_memory[over[BIG_MEMORY]] = True
        memory_alone = np.setdiff1d(over[BIG_MEMORY], over_elements, assume_unique=True)
        findings = []
        for check, rows in over.items():
            rows = memory_alone if check is BIG_MEMORY else rows
            findings += _threshold_findings(check, rows, columns, groups, options, over_memory)
        findings += _concentration_findings(columns, groups, options)
        tables = {
            "big_keys": _big_key_table(over, columns, groups),
            "top_keys": _top_key_table(columns, groups, options.top_n),
            "types": _type_table(columns),
        }
        return PassOutput(tables=tables, findings=tuple(findings))


def _limit_of_type(type_names, options):
    """The element (or byte, for strings) threshold of each type; types without one: none."""
    limits = {"string": options.string_bytes, **options.element_limits()}
    never = np.iinfo(np.uint64).max
    return np.array([limits.get(name, never) for name in type_names] or [never], np.uint64)


def _threshold_findings(check, rows, columns, groups, options, over_memory):
    """One finding per (pattern, type) of the keys over ``check``'s threshold; ``over_memory`` marks
    the keys over the memory threshold as well, named in the finding of an element threshold."""
    if len(rows) == 0:
        return []
    type_codes, type_names = columns.types
    by_memory = check is BIG_MEMORY
    value = columns.memory[rows] if by_memory else columns.n_elements[rows]
    group = groups.group[rows].astype(np.int64)
    kind = type_codes[rows]
    order = np.lexsort((rows, -value.astype(np.float64), kind, group))
    rows, value, group, kind = rows[order], value[order], group[order], kind[order]
    boundaries = np.flatnonzero(np.diff(group * len(type_names) + kind)) + 1
    findings = []
    for part in np.split(np.arange(len(rows)), boundaries):
        g, type_name = int(group[part[0]]), type_names[kind[part[0]]]
        part_rows = rows[part]
        n_keys = len(part)
        memory = int(columns.memory[part_rows].sum(dtype=np.uint64))
        largest = int(value[part[0]])
        limit = _limit(check, type_name, options)
        if by_memory:
            over_what, largest_text = f"over {format_bytes(limit)}", f"largest {format_bytes(largest)}"
        elif type_name == "string":
            over_what, largest_text = f"longer than {format_bytes(limit)}", f"longest {format_bytes(largest)}"
        else:
            over_what, largest_text = f"with more than {count(limit, 'element')}", f"largest {largest:,}"
        passed = [{"measure": "memory_bytes" if by_memory else "n_elements", "threshold": limit, "n_keys": n_keys}]
        n_big_memory = 0 if by_memory else int(over_memory[part_rows].sum())
        if n_big_memory:
            passed.append({"measure": "memory_bytes", "threshold": options.memory_bytes, "n_keys": n_big_memory})
            memory_over = f"over {format_bytes(options.memory_bytes)} of memory"
            over_what += (f" and {memory_over}" if n_big_memory == n_keys else
                          f", {n_big_memory:,} of them {memory_over}")
        message = (f"{count(n_keys, type_name + ' key')} of {groups.pattern[g]} {over_what} "
                   f"({largest_text}; {format_memory(memory, columns.memory_basis)})")
        findings.append(check.finding(
            message,
            pattern=groups.pattern[g],
            db=int(groups.db[g]),
            n_keys=n_keys,
            est_memory_bytes=memory,
            examples=columns.key_text(part_rows[:3]),
            details={
                "type": type_name,
                "threshold": limit,
                "measure": "memory_bytes" if by_memory else "n_elements",
                "largest": largest,
                "thresholds_passed": passed,
                "memory_basis": columns.memory_basis,
            },
        ))
    return findings


def _limit(check, type_name, options):
    if check is BIG_STRING:
        return options.string_bytes
    if check is BIG_MEMORY:
        return options.memory_bytes
    return options.element_limits()[type_name]


def _concentration_findings(columns, groups, options):
    memory = groups.stats.memory
    k = options.concentration_top_keys
    total = memory.sums
    top = memory.top_sums(k)
    share = np.divide(top.astype(np.float64), total.astype(np.float64),
                      out=np.zeros(groups.n), where=total > 0)
    fired = np.flatnonzero((memory.counts >= max(options.concentration_min_keys, k + 1))
                           & (total >= options.concentration_min_memory_bytes)
                           & (share >= options.concentration_share))
    if len(fired) == 0:
        return []
    examples = _largest_rows(columns, groups, fired, k)
    findings = []
    for g in fired:
        message = (f"{k} of the {memory.counts[g]:,} keys of {groups.pattern[g]} {'holds' if k == 1 else 'hold'} "
                   f"{format_share(share[g])} of its {format_memory(total[g], columns.memory_basis)}")
        findings.append(MEMORY_CONCENTRATED.finding(
            message,
            pattern=groups.pattern[g],
            db=int(groups.db[g]),
            n_keys=k,
            est_memory_bytes=int(top[g]),
            examples=columns.key_text(examples[g]),
            details={
                "top_keys": k,
                "top_memory_bytes": int(top[g]),
                "pattern_keys": int(memory.counts[g]),
                "pattern_memory_bytes": int(total[g]),
                "share": round(float(share[g]), 4),
                "memory_basis": columns.memory_basis,
            },
        ))
    return findings


def _largest_rows(columns, groups, chosen, k):
    """``{group: rows of its k largest keys by memory}`` for the ``chosen`` groups."""
    threshold = np.full(groups.n, np.iinfo(np.uint64).max, dtype=np.uint64)
    threshold[chosen] = groups.stats.memory.kth_largest(chosen, k)
    candidates = np.flatnonzero(columns.memory >= threshold[groups.group])
    group = groups.group[candidates]
    order = np.lexsort((candidates, -columns.memory[candidates].astype(np.float64), group))
    candidates, group = candidates[order], group[order]
    return {g: candidates[np.flatnonzero(group == g)][:k] for g in chosen}


def _big_key_table(over, columns, groups):
    flagged = np.unique(np.concatenate([rows for rows in over.values()] or [np.zeros(0, np.int64)]))
    checks = list(over)
    member = np.column_stack([np.isin(flagged, over[c], assume_unique=True) for c in checks]) \
        if checks else np.zeros((0, 0), bool)
    key_of, check_of = np.nonzero(member)
    offsets = np.concatenate(([0], np.cumsum(np.bincount(key_of, minlength=len(flagged)))))
    codes = pa.ListArray.from_arrays(
        pa.array(offsets, pa.int32()),
        pa.array([checks[c].code for c in check_of], pa.string()))
    table = _key_rows(flagged, columns, groups, BIG_KEY_COLUMNS, extra={"codes": codes})
    return table.sort_by([("memory_bytes", "descending"), ("db", "ascending"), ("key", "ascending")])


TYPE_COLUMNS = {
    "type": "the type",
    "encoding": "the encoding",
    "n_keys": "keys of the type in the encoding",
    "memory_bytes": "their memory: est_memory_bytes, or rdb_bytes when the dump has no estimates",
}


def _type_table(columns):
    totals = sorted(columns.type_totals.items())
    data = {"type": pa.array([name for (name, _e), _t in totals], pa.string()),
            "encoding": pa.array([encoding for (_name, encoding), _t in totals], pa.string()),
            "n_keys": pa.array([n for _name, (n, _m) in totals], pa.int64()),
            "memory_bytes": pa.array([m for _name, (_n, m) in totals], pa.int64())}
    fields = [pa.field(name, data[name].type, metadata={"doc": doc}) for name, doc in TYPE_COLUMNS.items()]
    return pa.Table.from_arrays([data[name] for name in TYPE_COLUMNS], schema=pa.schema(fields))


def _top_key_table(columns, groups, top_n):
    type_codes, type_names = columns.types
    parts = []
    for ranking, values in (("memory", columns.memory), ("length", columns.n_elements)):
        per_type = top_per_code(values, type_codes, len(type_names), top_n)
        present = [code for code in range(len(type_names)) if len(per_type[code])]
        merged = np.sort(np.concatenate([per_type[c] for c in present])) if present else np.zeros(0, np.int64)
        parts.append((ranking, "all", _top(merged, values[merged], top_n)))
        parts += [(ranking, type_names[code], per_type[code]) for code in present]
    rows = np.concatenate([p[2] for p in parts]) if parts else np.zeros(0, np.int64)
    extra = {
        "ranking": pa.array([p[0] for p in parts for _ in p[2]], pa.string()),
        "scope": pa.array([p[1] for p in parts for _ in p[2]], pa.string()),
        "rank": pa.array([i + 1 for p in parts for i in range(len(p[2]))], pa.int32()),
    }
    return _key_rows(rows, columns, groups, TOP_KEY_COLUMNS, extra=extra)


def rows_over_limit(values, codes, limits):
    """Rows whose value is over their code's limit (``values > limits[codes]``), ascending, in one compiled
    pass (``kernels/_code_rows.py``)."""
    out = np.empty(len(values), np.int64)
    found = kernels.code_rows.rows_over(np.ascontiguousarray(values, np.uint64), kernels.as_codes(codes),
                                        np.ascontiguousarray(limits, np.uint64), out)
    return out[:found].copy()


def top_per_code(values, codes, n_codes, n):
    """For each code, the rows of its ``n`` largest values, largest first (ties: earlier row first), in one
    compiled pass over the rows (``kernels/_code_rows.py``)."""
    values = np.ascontiguousarray(values, np.uint64)
    heaps = _Heaps(n_codes, n)
    if n > 0 and len(values):
        kernels.code_rows.top_rows(values, kernels.as_codes(codes), n, *heaps.arrays)
    return heaps.rows()


def big_rows(memory, elements, codes, n_codes, limits, memory_limit, n):
    """``(rows over a limit, top_per_code of memory, top_per_code of elements)``: the rows whose ``elements``
    are over their code's limit or whose ``memory`` is over ``memory_limit`` (ascending), and the ``n``
    largest of each code by each, in one compiled pass over the rows (``kernels/_code_rows.py``)."""
    memory, elements = np.ascontiguousarray(memory, np.uint64), np.ascontiguousarray(elements, np.uint64)
    largest, longest = _Heaps(n_codes, n), _Heaps(n_codes, n)
    out = np.empty(len(memory), np.int64)
    found = 0
    if len(memory):
        found = kernels.code_rows.big_rows(memory, elements, kernels.as_codes(codes),
                                           np.ascontiguousarray(limits, np.uint64), min(max(memory_limit, 0), MAX_U64),
                                           n, *largest.arrays, *longest.arrays, out)
    over = np.arange(len(memory), dtype=np.int64) if memory_limit < 0 else out[:found].copy()  # all over it
    return over, largest.rows(), longest.rows()


#: The largest uint64.
MAX_U64 = (1 << 64) - 1


class _Heaps:
    """A heap of ``n`` (value, row) entries per code, as the kernels of ``kernels/_code_rows.py`` fill them."""

    def __init__(self, n_codes, n):
        slots = max(n_codes, 1) * max(n, 1)
        self.n_codes, self.n = n_codes, n
        self.arrays = (np.zeros(slots, np.uint64), np.zeros(slots, np.int64), np.zeros(max(n_codes, 1), np.int64))

    def rows(self):
        """``{code: rows of its heap, largest value first, then earliest row}``."""
        values, rows, sizes = self.arrays
        n = self.n
        result = {}
        for code in range(self.n_codes):
            held = rows[code * n:code * n + sizes[code]]
            result[code] = held[np.lexsort((held, ~values[code * n:code * n + sizes[code]]))]  # largest first
        return result


def _top(rows, values, n):
    """The ``n`` of ``rows`` (ascending) with the largest values, largest first; ties: earlier row first."""
    if len(rows) > n:
        threshold = values[np.argpartition(values, len(values) - n)[len(values) - n]]
        above = np.flatnonzero(values > threshold)
        tied = np.flatnonzero(values == threshold)[: n - len(above)]
        keep = np.concatenate((above, tied))
        rows, values = rows[keep], values[keep]
    order = np.lexsort((rows, -values.astype(np.float64)))
    return rows[order][:n]


def _key_rows(rows, columns, groups, docs, extra):
    type_codes, type_names = columns.types
    encoding_codes, encoding_names = columns.encodings
    pattern = [groups.pattern[g] for g in groups.group[rows]]
    data = {
        "db": pa.array(columns.db[rows], pa.int32()),
        "key": pa.array(columns.key_text(rows), pa.string()),
        "pattern": pa.array(pattern, pa.string()),
        "type": pa.array([type_names[c] for c in type_codes[rows]], pa.string()),
        "encoding": pa.array([encoding_names[c] for c in encoding_codes[rows]], pa.string()),
        "memory_bytes": pa.array(columns.memory[rows], pa.uint64()),
        "rdb_bytes": pa.array(columns.rdb_bytes[rows], pa.uint64()),
        "n_elements": pa.array(columns.n_elements[rows], pa.uint64()),
        "expire_at": columns.table["expire_at"].take(pa.array(rows, pa.int64())).combine_chunks()
        if len(rows) else pa.array([], pa.timestamp("ms", tz="UTC")),
        **extra,
    }
    names = list(docs)
    fields = [pa.field(name, data[name].type, metadata={"doc": docs[name]}) for name in names]
    return pa.Table.from_arrays([data[name] for name in names], schema=pa.schema(fields))
