"""Leaks in the keys a library owns, with the library's setting that causes them (LIB001-LIB005).

Read from the pattern table alone (its ``library``/``key_kind`` columns and TTL
counts), so a bounded run reports the same as an in-memory one.
"""

from ..findings import Check, Severity, count, format_memory
from .by_value import bullmq_meta, meta_text
from .evidence import retention_of
from .schemas import BULLMQ, CACHE, FAILED, JOB, LOCK, RATE_LIMIT, REGISTRY, RESULT, SESSION

JOBS_KEPT = Check(
    "LIB001", "library-jobs-kept", Severity.WARNING,
    "A job queue's jobs or results kept without a TTL (at least `library_min_keys` keys, or a finished/dead "
    "job set or a failed-job list of at least `library_min_set_bytes`).",
    "BullMQ, Bull and Bee-Queue keep every job unless removeOnComplete/removeOnFail (removeOnSuccess/"
    "removeOnFailure) are set; RQ keeps jobs enqueued with result_ttl=-1 or failure_ttl=-1; Celery keeps "
    "results forever with result_expires=None; Sidekiq's dead set holds up to dead_max_jobs; Resque's "
    "default failure backend pushes every failed job onto resque:failed and never trims it. Such keys pile "
    "up until maxmemory. The message names the library's setting.")
SESSION_WITHOUT_TTL = Check(
    "LIB002", "library-session-without-ttl", Severity.ERROR,
    "Sessions of a session store (express-session, Django, Spring Session) without a TTL.",
    "A session store gives every session the cookie's lifetime as TTL; a session without one is never "
    "removed, and with it whatever it holds about the user. The message names the store's setting.")
CACHE_WITHOUT_TTL = Check(
    "LIB003", "library-cache-without-ttl", Severity.WARNING,
    "Entries of a cache library (Django, Flask-Caching, Laravel, Rails' view fragments) without a TTL.",
    "Flask-Caching's timeout=0, Django's TIMEOUT=None, Laravel's Cache::forever and Rails' cache without "
    "expires_in keep entries forever: the cache grows until maxmemory and then relies on eviction. The message "
    "names the setting.")
RATE_LIMIT_WITHOUT_TTL = Check(
    "LIB004", "library-rate-limit-without-ttl", Severity.ERROR,
    "Rate-limit keys (limits, Flask-Limiter, express-rate-limit) without a TTL.",
    "A rate-limit window expires with its window; a window key without a TTL never resets, so its "
    "client stays limited and the key stays forever.")

LOCK_WITHOUT_TTL = Check(
    "LIB005", "library-lock-without-ttl", Severity.WARNING,
    "Locks of a lock library (python-redis-lock) without a TTL.",
    "A lock taken without an expiry (python-redis-lock's expire=None) is held until its holder releases it: "
    "a holder that crashes or is killed first leaves it held forever, and every later taker waits on it. "
    "The message names the setting.")

CHECKS = (JOBS_KEPT, SESSION_WITHOUT_TTL, CACHE_WITHOUT_TTL, RATE_LIMIT_WITHOUT_TTL, LOCK_WITHOUT_TTL)

_CHECK_OF_ROLE = {JOB: JOBS_KEPT, RESULT: JOBS_KEPT, REGISTRY: JOBS_KEPT, FAILED: JOBS_KEPT,
                  SESSION: SESSION_WITHOUT_TTL, CACHE: CACHE_WITHOUT_TTL, RATE_LIMIT: RATE_LIMIT_WITHOUT_TTL,
                  LOCK: LOCK_WITHOUT_TTL}


def _fires(role, n_without, memory_without, options, kept_by_options=False):
    """``kept_by_options``: the jobs' own stored options keep them forever, which no count need confirm."""
    if n_without == 0:
        return False
    if role in (JOB, RESULT):
        return n_without >= options.library_min_keys or kept_by_options
    if role in (REGISTRY, FAILED):
        return memory_without >= options.library_min_set_bytes
    return role in (SESSION, CACHE, RATE_LIMIT, LOCK)


def _message(role, library, pattern, key_kind, n_without, memory, setting):
    if role == REGISTRY:
        return f"{pattern} ({library}: {key_kind}) has no TTL and holds {memory}; setting: {setting}"
    if role == FAILED:
        return f"{pattern} ({library}: {key_kind}) only grows: nothing trims it, and it holds {memory}; " \
               f"setting: {setting}"
    one = n_without == 1
    removed, expires, resets = ("is never removed", "never expires", "never resets") if one else \
        ("are never removed", "never expire", "never reset")
    held = "is held until released" if one else "are held until released"
    what = {JOB: removed, RESULT: removed, SESSION: expires, CACHE: expires, RATE_LIMIT: resets, LOCK: held}
    return f"{count(n_without, 'key')} of {pattern} ({library}: {key_kind}) {'has' if one else 'have'} no TTL and " \
           f"{what[role]} ({memory}); setting: {setting}"


def library_findings(patterns, owners, memory_basis, options, samples=None):
    """The LIB findings of a pattern table (``n_with_ttl``, ``memory_bytes_without_ttl``, ``examples``).

    ``owners``: ``(db, pattern, Recognized or None)`` of each pattern group; ``samples``: the sampled
    values of each pattern, ``{(db, pattern): samples}``, when they were read. A job queue's jobs whose
    own stored options bound their retention (:mod:`.evidence`) are no leak; when the options keep
    them, the message says so. The details say how values told an owner (``told_by``) and, for a BullMQ
    queue, what its meta hash stores (``queue_meta``).
    """
    owned = {}
    for db, pattern, owner in owners:
        if owner is not None:
            owned[(db, pattern)] = owner
    rows = patterns.select(["db", "pattern", "n_keys", "n_with_ttl", "memory_bytes_without_ttl",
                            "examples"]).to_pylist()
    retentions = {}
    for (db, pattern), owner in owned.items():
        found = retention_of(owner.library, owner.schema.role, (samples or {}).get((db, pattern), ()))
        if found is not None:
            retentions[(db, pattern)] = found
    findings = []
    for row in rows:
        owner = owned.get((row["db"], row["pattern"]))
        if owner is None:
            continue
        role, library = owner.schema.role, owner.library
        n_without = row["n_keys"] - row["n_with_ttl"]
        memory_without = row["memory_bytes_without_ttl"]
        retention = retentions.get((row["db"], row["pattern"]))
        if not _fires(role, n_without, memory_without, options, retention is not None and not retention.bounded):
            continue
        # a queue that removes its own jobs leaves them without TTL; a cache entry past its expires_in but
        # without TTL stays until it is read again, which is still a leak
        if (role != CACHE and retention is not None and retention.bounded) or _set_bounded(
                row["db"], row["pattern"], owner, retentions):
            continue
        setting = library.ttl_setting.get(role) or next(iter(library.ttl_setting.values()))
        memory = format_memory(memory_without, memory_basis)
        message = _message(role, library.name, row["pattern"], owner.key_kind, n_without, memory, setting)
        details = {"library": library.name, "key_kind": owner.key_kind, "setting": setting,
                   "evidence": library.evidence, "memory_basis": memory_basis}
        if retention is not None:
            message += f"; their own data: {retention.text()}"
            details["stored_options"] = retention.text()
        if owner.told_by:
            details["told_by"] = owner.told_by
        meta = _queue_meta(row["db"], row["pattern"], owner, samples or {})
        if meta:
            details["queue_meta"] = meta
        findings.append(_CHECK_OF_ROLE[role].finding(
            message, db=row["db"], pattern=row["pattern"], n_keys=n_without, est_memory_bytes=memory_without,
            examples=row["examples"][:3], details=details))
    return findings


def _queue_meta(db, pattern, owner, samples):
    """The settings stored in the meta hash of the BullMQ queue that ``pattern`` belongs to, as text; "" when
    its meta hash was not read."""
    if owner.library is not BULLMQ:
        return ""
    segments = pattern.split(":")
    for n in range(len(segments) - 1, 0, -1):
        settings = bullmq_meta(samples.get((db, ":".join(segments[:n]) + ":meta")) or ())
        if settings:
            return meta_text(settings)
    return ""


#: A Bull or BullMQ queue's sets of finished jobs, and the job option that bounds each.
_FINISHED_SETS = {"completed": "removeOnComplete", "failed": "removeOnFail"}


def _set_bounded(db, pattern, owner, retentions):
    """Whether ``pattern`` is a queue's set of completed (or failed) jobs whose jobs, read in the same
    queue's job pattern, all bound it by their removeOnComplete (removeOnFail) option."""
    queue, _, name = pattern.rpartition(":")
    setting = _FINISHED_SETS.get(name)
    if setting is None or owner.schema.role != REGISTRY:
        return False
    of_queue = [r for (d, p), r in retentions.items()
                if d == db and p.rpartition(":")[0] == queue and any(s.setting == setting for s in r.settings)]
    return bool(of_queue) and all(r.bounds(setting) for r in of_queue)
