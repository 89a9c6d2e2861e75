"""The ttl pass: which data never expires, and what had expired before the save."""

import re
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..findings import Check, Severity, count, format_memory, format_share
from ..keyspace.grouping import example_positions, first_unmarked_per_group
from ..options import option, require_positive, require_share
from .base import PassOutput

MIXED_TTL = Check(
    "TTL001", "mixed-ttl", Severity.WARNING,
    "A pattern (at least `mixed_min_keys` keys) where some keys have a TTL and others none "
    "(a known library's patterns are left to LIB001-LIB005).",
    "Keys of one pattern are written by the same code, so they should all expire or none "
    "should. A mix usually means a TTL was lost: SET without KEEPTTL, PERSIST, or a "
    "write path that forgets EXPIRE. The keys without TTL stay forever.")
VOLATILE_WITHOUT_TTL = Check(
    "TTL002", "volatile-name-without-ttl", Severity.ERROR,
    "Keys without TTL in a pattern whose name says cache, session, lock, rate, tmp, temp, "
    "otp, token or captcha (`volatile_words`); a known library's patterns are left to LIB001-LIB005.",
    "OneUptime's guide: every cache key must have a TTL. Sessions, locks, rate-limit counters, "
    "one-time passwords and captchas are short-lived by nature; without a TTL they pile "
    "up until maxmemory, and a lock without TTL is held forever once its owner dies. "
    "Write them with SET ... EX or SETEX.")
PERSISTENT_MEMORY = Check(
    "TTL003", "persistent-memory", Severity.INFO,
    "Keys without TTL hold at least `persistent_memory_share` (half) of the dump's memory.",
    "Keys without TTL only leave by explicit deletes or eviction. That is right for "
    "primary data, but in a cache it means memory grows until maxmemory, and keys with "
    "a natural expiry compete with them under LRU/LFU eviction (the Key Design chapter).")
EXPIRED_AT_SAVE = Check(
    "TTL004", "expired-at-save", Severity.INFO,
    "Keys whose expiry had already passed at the dump's ctime.",
    "Redis removes expired keys lazily and by sampling, so a dump can hold keys that "
    "were already dead (Redis 5+ may write them). They are dropped when the dump is "
    "loaded; many of them mean expiry cannot keep up (e.g. a replica or a busy server).")

#: Example keys of a finding.
N_EXAMPLES = 3

COVERAGE_COLUMNS = {
    "db": "database number",
    "pattern": "the pattern",
    "n_keys": "keys of the pattern",
    "n_with_ttl": "keys with a TTL",
    "n_without_ttl": "keys without a TTL",
    "share_without_ttl": "share of the pattern's keys without a TTL",
    "memory_bytes_without_ttl": "memory of the keys without a TTL",
    "memory_share_without_ttl": "share of the pattern's memory held by keys without a TTL",
    "n_expired": "keys already expired at the dump's ctime (null without ctime)",
    "n_with_field_ttl": "hashes that have fields with their own TTL",
    "volatile_name": "the pattern's name has one of volatile_words",
    "memory_basis": "est_memory_bytes or rdb_bytes: what the memory columns measure",
}

OVERVIEW_COLUMNS = {
    "db": "database number; null for the whole dump",
    "n_keys": "keys",
    "n_with_ttl": "keys with a TTL",
    "n_persistent": "keys without a TTL",
    "persistent_share": "share of keys without a TTL",
    "memory_bytes": "memory of all keys",
    "memory_bytes_persistent": "memory of the keys without a TTL",
    "persistent_memory_share": "share of memory held by keys without a TTL",
    "n_expired": "keys already expired at the dump's ctime (null without ctime)",
    "memory_basis": "est_memory_bytes or rdb_bytes: what the memory columns measure",
}


# Words that name data meant to expire (OneUptime's guide: "every cache key must have a TTL"),
# matched as whole words; plurals are listed, not guessed ("temps" is temperatures).
VOLATILE_WORDS = ("cache", "caches", "session", "sessions", "lock", "locks", "rate", "ratelimit",
                  "ratelimiter", "tmp", "temp", "otp", "otps", "token", "tokens", "captcha", "captchas")


@dataclass(frozen=True)
class TtlOptions:
    """Thresholds of the ``ttl`` pass."""

    volatile_words: tuple = option(VOLATILE_WORDS,
                                 "TTL002: words of a pattern that say its keys should expire")
    mixed_min_keys: int = option(10, "TTL001: only patterns with at least this many keys")
    persistent_memory_share: float = option(
        0.5, "TTL003: report when keys without TTL hold at least this share of memory")

    def __post_init__(self):
        require_positive(self, "mixed_min_keys")
        require_share(self, "persistent_memory_share")
        if not all(isinstance(w, str) and w for w in self.volatile_words):
            raise ValueError("volatile_words must be non-empty strings")


class TtlPass:
    """TTL coverage per pattern and for the dump.

    Tables:
        ttl_coverage: one row per (db, pattern), most memory without TTL first.
        ttl_overview: one row per db and one for the whole dump (db null).
        ttl_buckets: keys and memory by TTL left when the dump was written (absent from a bounded
            run of a dump without ctime).
    """

    id = "ttl"
    requires = ("patterns",)
    Options = TtlOptions
    checks = (MIXED_TTL, VOLATILE_WITHOUT_TTL, PERSISTENT_MEMORY, EXPIRED_AT_SAVE)

    @staticmethod
    def kept_rows(columns, groups, options):
        """The rows of a chunk this pass may name: the first keys without a TTL of each group, and the
        first keys that had expired when the dump was written."""
        stats = groups.stats
        parts = [first_unmarked_per_group(groups.group, groups.n, N_EXAMPLES, columns.has_ttl,
                                          counts=None if stats is None else stats.n_keys - stats.n_with_ttl)]
        if columns.ctime_ms is not None:
            parts.append(_expired_rows(columns)[:N_EXAMPLES])
        return np.concatenate(parts)

    def run(self, ctx):
        columns, options = ctx.columns, ctx.options
        patterns = ctx.output("patterns")
        groups = patterns.shared
        coverage = _Coverage(columns, groups, options, _library_owned(patterns.tables["patterns"], groups))
        findings = _pattern_findings(coverage, columns, groups, options)
        findings += _persistent_findings(coverage, columns, options)
        findings += _expired_findings(coverage, columns, groups)
        tables = {"ttl_coverage": coverage.table(groups, columns), "ttl_overview": _overview(coverage, groups, columns)}
        if columns.ttl_buckets is not None:
            tables["ttl_buckets"] = _buckets(*columns.ttl_buckets, columns.memory_basis)
        return PassOutput(tables=tables, findings=tuple(findings))


class _Coverage:
    """Per-group TTL counts (numpy arrays indexed by group), from the patterns pass's measures."""

    def __init__(self, columns, groups, options, library_owned):
        stats = groups.stats
        self.library_owned = library_owned
        self.n_keys = stats.n_keys
        self.n_with_ttl = stats.n_with_ttl
        self.n_without = self.n_keys - self.n_with_ttl
        self.memory = stats.memory.sums
        self.memory_without = stats.memory_without_ttl
        self.has_expired = stats.n_expired is not None
        self.n_expired = stats.n_expired if self.has_expired else np.zeros(groups.n, np.int64)
        self.n_with_field_ttl = stats.n_with_field_ttl
        self.memory_expired = stats.memory_expired
        self.oldest_expire_ms = stats.oldest_expire_ms
        words = set(w.lower() for w in options.volatile_words)
        self.volatile = np.array([bool(volatile_words(p, words)) for p in groups.pattern], dtype=bool)

    def table(self, groups, columns):
        share = np.divide(self.n_without, self.n_keys, out=np.zeros(groups.n), where=self.n_keys > 0)
        memory_share = np.divide(self.memory_without.astype(np.float64), self.memory.astype(np.float64),
                                 out=np.zeros(groups.n), where=self.memory > 0)
        data = {
            "db": pa.array(groups.db, pa.int32()),
            "pattern": pa.array(groups.pattern, pa.string()),
            "n_keys": pa.array(self.n_keys, pa.int64()),
            "n_with_ttl": pa.array(self.n_with_ttl, pa.int64()),
            "n_without_ttl": pa.array(self.n_without, pa.int64()),
            "share_without_ttl": pa.array(share, pa.float64()),
            "memory_bytes_without_ttl": pa.array(self.memory_without, pa.uint64()),
            "memory_share_without_ttl": pa.array(memory_share, pa.float64()),
            "n_expired": pa.array(self.n_expired, pa.int64(),
                                  mask=None if self.has_expired else np.ones(groups.n, bool)),
            "n_with_field_ttl": pa.array(self.n_with_field_ttl, pa.int64()),
            "volatile_name": pa.array(self.volatile, pa.bool_()),
            "memory_basis": pa.array([columns.memory_basis] * groups.n, pa.string()).dictionary_encode(),
        }
        return _table(data, COVERAGE_COLUMNS).sort_by(
            [("memory_bytes_without_ttl", "descending"), ("n_without_ttl", "descending"),
             ("db", "ascending"), ("pattern", "ascending")])


_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NON_WORD = re.compile(r"[^A-Za-z0-9]+")


def volatile_words(pattern, words):
    """The words of ``pattern`` (outside ``{…}`` placeholders) that are in ``words``.

    Words are split on any non-alphanumeric character and at camelCase humps,
    and compared whole and lower-cased.
    """
    tokens = _NON_WORD.split(_CAMEL.sub(" ", _PLACEHOLDER.sub(" ", pattern)))
    return [t.lower() for t in tokens if t.lower() in words]


def _library_owned(patterns, groups):
    """Per group: True when a known library owns its pattern (see :mod:`rdbscope.libraries`)."""
    owned = {(db, pattern) for db, pattern, library in zip(patterns["db"].to_pylist(), patterns["pattern"].to_pylist(),
                                                          patterns["library"].to_pylist(), strict=True)
             if library is not None}
    return np.array([(db, pattern) in owned for db, pattern in zip(groups.db.tolist(), groups.pattern, strict=True)],
                    dtype=bool)


def _pattern_findings(coverage, columns, groups, options):
    findings = []
    # a library's keys are judged by its own checks (LIB001-LIB005), which name the setting to change
    judged = ~coverage.library_owned
    volatile_fired = np.flatnonzero(judged & coverage.volatile & (coverage.n_without > 0))
    mixed_fired = np.flatnonzero(judged & ~coverage.volatile & (coverage.n_keys >= options.mixed_min_keys)
                                 & (coverage.n_with_ttl > 0) & (coverage.n_without > 0))
    fired = np.concatenate((volatile_fired, mixed_fired))
    if len(fired) == 0:
        return findings
    chosen = np.full(groups.n, -1, dtype=np.int32 if groups.n < 2 ** 31 else np.int64)
    chosen[fired] = np.arange(len(fired))
    # Every key is a candidate when no key has a TTL and every group fired (a common case at
    # tens of millions of keys): then no row numbers are made, and no mask of int64s.
    candidates = None
    if len(columns.ttl_rows) or len(fired) < groups.n:
        keep = (chosen >= 0)[groups.group]
        if len(columns.ttl_rows):
            keep &= ~columns.has_ttl
        candidates = np.flatnonzero(keep)
    if candidates is None:
        identity = np.array_equal(fired, np.arange(groups.n))
        candidate_groups = groups.group if identity else chosen[groups.group]
    else:
        candidate_groups = chosen[groups.group[candidates]]
    offsets, rows = example_positions(candidate_groups, len(fired), N_EXAMPLES, positions=candidates)
    words = set(w.lower() for w in options.volatile_words)
    for i, g in enumerate(fired):
        n, without, with_ttl = int(coverage.n_keys[g]), int(coverage.n_without[g]), int(coverage.n_with_ttl[g])
        memory_without = int(coverage.memory_without[g])
        share = without / n
        details = {
            "n_keys": n, "n_with_ttl": with_ttl, "n_without_ttl": without,
            "share_without_ttl": round(share, 4), "memory_bytes_without_ttl": memory_without,
            "memory_basis": columns.memory_basis,
        }
        if coverage.n_with_field_ttl[g]:
            details["n_with_field_ttl"] = int(coverage.n_with_field_ttl[g])
        pattern = groups.pattern[g]
        if coverage.volatile[g]:
            said = volatile_words(pattern, words)
            details["words"] = said
            check = VOLATILE_WITHOUT_TTL
            keys = count(n, "key") if without == n else f"{without:,} of the {n:,} keys"
            message = (f"{keys} of {pattern} ({format_share(share)}, "
                       f"{format_memory(memory_without, columns.memory_basis)}) {_have(without)} no TTL, "
                       f"though the name says {said[0]!r}")
        else:
            check = MIXED_TTL
            message = (f"{count(with_ttl, 'key')} of {pattern} {_have(with_ttl)} a TTL but {without:,} "
                       f"({format_share(share)}, {format_memory(memory_without, columns.memory_basis)}) "
                       f"{'does' if without == 1 else 'do'} not")
        findings.append(check.finding(
            message, pattern=pattern, db=int(groups.db[g]), n_keys=without,
            est_memory_bytes=memory_without,
            examples=columns.key_text(rows[offsets[i]:offsets[i + 1]]), details=details))
    return findings


def _have(n):
    return "has" if n == 1 else "have"


def _persistent_findings(coverage, columns, options):
    if columns.n_keys == 0:
        return []
    n_persistent = int(coverage.n_without.sum())
    total = columns.memory_total
    memory = int(coverage.memory_without.sum())
    share = memory / total if total else 0.0
    if n_persistent == 0 or share < options.persistent_memory_share:
        return []
    message = (f"{count(n_persistent, 'key')} without TTL ({format_share(n_persistent / columns.n_keys)} of keys) "
               f"{'holds' if n_persistent == 1 else 'hold'} {format_memory(memory, columns.memory_basis)}, "
               f"{format_share(share)} of the total")
    return [PERSISTENT_MEMORY.finding(
        message, n_keys=n_persistent, est_memory_bytes=memory,
        details={"n_keys": columns.n_keys, "n_persistent": n_persistent,
                 "persistent_share": round(n_persistent / columns.n_keys, 4),
                 "memory_bytes": total, "persistent_memory_share": round(share, 4),
                 "memory_basis": columns.memory_basis})]


def _expired_rows(columns):
    """The keys that had expired when the dump was written, in order."""
    return columns.ttl_rows[np.flatnonzero(columns.ttl_expire_ms < columns.ctime_ms)]


def _expired_findings(coverage, columns, groups):
    if not coverage.has_expired or coverage.n_expired.sum() == 0:
        return []
    examples = _expired_rows(columns)[:N_EXAMPLES]
    n_expired = int(coverage.n_expired.sum())
    memory = int(coverage.memory_expired.sum(dtype=np.uint64))
    per_group = coverage.n_expired
    top = np.argsort(-per_group, kind="stable")[:10]
    by_pattern = [{"db": int(groups.db[g]), "pattern": groups.pattern[g], "n_keys": int(per_group[g])}
                  for g in top if per_group[g]]
    oldest = coverage.oldest_expire_ms
    message = (f"{count(n_expired, 'key')} ({format_memory(memory, columns.memory_basis)}) had already "
               f"expired when the dump was written; most are {by_pattern[0]['pattern']} "
               f"({by_pattern[0]['n_keys']:,})")
    return [EXPIRED_AT_SAVE.finding(
        message, n_keys=n_expired, est_memory_bytes=memory,
        examples=columns.key_text(examples),
        details={"by_pattern": by_pattern, "ctime_ms": columns.ctime_ms,
                 "most_overdue_ms": columns.ctime_ms - oldest, "memory_basis": columns.memory_basis})]


def _overview(coverage, groups, columns):
    """Per db and for the whole dump, summed from the per-pattern counts."""
    selections = [(int(d), np.flatnonzero(groups.db == d)) for d in np.unique(groups.db)]
    selections.append((None, np.arange(groups.n)))
    data = {name: [] for name in OVERVIEW_COLUMNS}
    for d, chosen in selections:
        n = int(coverage.n_keys[chosen].sum())
        n_ttl = int(coverage.n_with_ttl[chosen].sum())
        total = int(coverage.memory[chosen].sum())
        persistent_memory = int(coverage.memory_without[chosen].sum())
        expired = int(coverage.n_expired[chosen].sum()) if coverage.has_expired else None
        for name, value in (("db", d), ("n_keys", n), ("n_with_ttl", n_ttl), ("n_persistent", n - n_ttl),
                            ("persistent_share", (n - n_ttl) / n if n else 0.0),
                            ("memory_bytes", total), ("memory_bytes_persistent", persistent_memory),
                            ("persistent_memory_share", persistent_memory / total if total else 0.0),
                            ("n_expired", expired), ("memory_basis", columns.memory_basis)):
            data[name].append(value)
    types = {"db": pa.int32(), "n_keys": pa.int64(), "n_with_ttl": pa.int64(), "n_persistent": pa.int64(),
             "persistent_share": pa.float64(), "memory_bytes": pa.uint64(),
             "memory_bytes_persistent": pa.uint64(), "persistent_memory_share": pa.float64(),
             "n_expired": pa.int64(), "memory_basis": pa.string()}
    return _table({name: pa.array(values, types[name]) for name, values in data.items()}, OVERVIEW_COLUMNS)


#: Labels of the rows of ``ttl_buckets``, one per bucket of ``KeyColumns.ttl_buckets``.
TTL_BUCKET_LABELS = ("expired at save", "< 1 h", "1-4 h", "4-12 h", "12-24 h", "1-7 d", "> 7 d", "never")

BUCKET_COLUMNS = {
    "expires": "TTL left when the dump was written (ctime; without one, from the first expiry), or never",
    "n_keys": "keys",
    "memory_bytes": "their memory",
    "memory_basis": "est_memory_bytes, or rdb_bytes when the dump has no estimates",
}


def _buckets(n_keys, memory, basis):
    data = {"expires": pa.array(TTL_BUCKET_LABELS, pa.string()), "n_keys": pa.array(n_keys, pa.int64()),
            "memory_bytes": pa.array(memory, pa.int64()),
            "memory_basis": pa.array([basis] * len(TTL_BUCKET_LABELS), pa.string())}
    return _table(data, BUCKET_COLUMNS)


def _table(data, docs):
    fields = [pa.field(name, data[name].type, metadata={"doc": docs[name]}) for name in docs]
    return pa.Table.from_arrays([data[name] for name in docs], schema=pa.schema(fields))
