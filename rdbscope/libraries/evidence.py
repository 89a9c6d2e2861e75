"""What a library's own data says about how long it keeps its jobs: the settings stored beside each job.

A job queue writes the options a job was added with into the job itself (BullMQ and Bull: the job hash's
``opts`` field, JSON; RQ: the job hash's ``result_ttl`` and ``failure_ttl`` fields). Read from the sampled
values of a pattern (:class:`~rdbscope.values.sample.ValueSample`), they tell a queue that keeps every job
from one whose retention is bounded by count or age, which the key names and TTLs cannot: BullMQ removes
old jobs when newer ones finish, and leaves no TTL on any of them. Celery's result documents say their
status: a result without TTL was written with ``result_expires=None``, whatever its status, and the message
says which statuses are kept so.

Only setting names and counts come out of here, never what a job holds.
"""

import json
from collections import Counter
from dataclasses import dataclass

from .schemas import BEE_QUEUE, BULL, BULL_OR_BULLMQ, BULLMQ, CACHE, CELERY, JOB, RAILS_CACHE, REGISTRY, RESULT, RQ

#: Job options that bound how many finished jobs a Bull or BullMQ queue keeps (``removeOnComplete`` for those
#: that succeed, ``removeOnFail`` for those that fail): true, a count, or ``{age, count}``; unset or false keeps
#: every job.
BULL_RETENTION = ("removeOnComplete", "removeOnFail")

#: RQ's job fields that keep a finished job forever when they hold -1.
RQ_RETENTION = ("result_ttl", "failure_ttl")

#: Bee-Queue's queue settings that remove a job once it succeeded (failed), and the status a job still
#: held in the queue's jobs hash has when the setting is off.
BEE_QUEUE_RETENTION = (("removeOnSuccess", "succeeded"), ("removeOnFailure", "failed"))


@dataclass(frozen=True)
class SettingCount:
    """How many of the jobs read keep every job by one setting.

    Attributes:
        setting: the library's option (``removeOnComplete``).
        n_keep_forever: jobs read whose setting keeps them forever (unset, false, or -1).
        n_read: jobs whose stored options could be read.
        forever_text: how the setting keeps jobs forever, in the message (``not set``, ``-1``).
        noun: what was read (``jobs``, ``entries``).
    """

    setting: str
    n_keep_forever: int
    n_read: int
    forever_text: str
    noun: str = "jobs"

    def text(self):
        return (f"{self.setting}: {self.forever_text} on {self.n_keep_forever:,} of {self.n_read:,} "
                f"sampled {self.noun}")


@dataclass(frozen=True)
class Retention:
    """What the sampled jobs of one pattern say about its retention.

    Attributes:
        settings: a :class:`SettingCount` per retention setting, the one for jobs that succeed first.
    """

    settings: tuple

    @property
    def bounded(self):
        """Every job read bounds how many succeeded jobs are kept (the bulk of a queue's jobs): keeping
        them is no leak. Failed jobs kept forever are the failed-job set's finding."""
        return self.settings[0].n_keep_forever == 0

    def bounds(self, setting):
        """Whether every job read bounds its retention by ``setting``."""
        return all(s.n_keep_forever == 0 for s in self.settings if s.setting == setting)

    def text(self):
        """The settings that keep jobs forever, as the message says them (all of them when none does)."""
        unbounded = [s for s in self.settings if s.n_keep_forever] or list(self.settings)
        return "; ".join(s.text() for s in unbounded)


def retention_of(library, role, samples):
    """The :class:`Retention` the sampled values of a pattern that ``library`` owns show, or None when
    they show none (not a job, not that library, or no job's options could be read)."""
    if library is BEE_QUEUE and role == REGISTRY:
        return _bee_queue_retention(samples)
    if library is CELERY and role == RESULT:
        return _celery_statuses(samples)
    if library is RAILS_CACHE and role == CACHE:
        return _counted(samples, _rails_entry, ("expires_in",), lambda value: value is None, "not set", "entries")
    if role != JOB:
        return None
    if library in (BULLMQ, BULL, BULL_OR_BULLMQ):
        return _counted(samples, _bull_options, BULL_RETENTION, _bull_keeps_forever, "not set")
    if library is RQ:
        return _counted(samples, _rq_options, RQ_RETENTION, lambda value: value == "-1", "-1")
    return None


def _counted(samples, options_of, settings, keeps_forever, forever_text, noun="jobs"):
    read = [o for o in (options_of(s) for s in samples) if o is not None]
    if not read:
        return None
    return Retention(tuple(SettingCount(setting, sum(keeps_forever(o.get(setting)) for o in read), len(read),
                                        forever_text, noun) for setting in settings))


def hash_field(sample, name, whole=True):
    """The value of hash field ``name`` in a sample; with ``whole``, only when the sample holds it whole
    (else its first bytes)."""
    if sample.type != "hash":
        return None
    for field, value, length in zip(sample.fields, sample.elements, sample.element_lengths, strict=False):
        if field == name:
            return value if len(value) == length or not whole else None
    return None


def _bull_options(sample):
    raw = hash_field(sample, b"opts")
    return None if raw is None else json_object(raw)


def _bull_keeps_forever(value):
    if value is None or value is False:
        return True
    if isinstance(value, dict):
        return not any(isinstance(value.get(bound), (int, float)) and not isinstance(value.get(bound), bool)
                       for bound in ("age", "count"))
    return False  # true, or a count to keep


def _rq_options(sample):
    """RQ's retention fields of a job hash (absent: RQ's defaults, 500 s and a year)."""
    if sample.type != "hash" or b"status" not in sample.fields:
        return None
    options = {}
    for setting in RQ_RETENTION:
        raw = hash_field(sample, setting.encode())
        try:
            options[setting] = None if raw is None else raw.decode("ascii").strip()
        except UnicodeDecodeError:
            return None
    return options


def _bee_queue_retention(samples):
    """Bee-Queue keeps every job in one hash (``bq:<queue>:jobs``, id -> JSON with its ``status``) and
    stores no setting: a job still held once it succeeded (failed) shows removeOnSuccess (removeOnFailure)
    is off."""
    statuses = []
    for sample in samples:
        if sample.type != "hash":
            continue
        for value, length in zip(sample.elements, sample.element_lengths, strict=False):
            job = json_object(value) if len(value) == length else None
            if job is not None and isinstance(job.get("status"), str):
                statuses.append(job["status"])
    if not statuses:
        return None
    return Retention(tuple(SettingCount(setting, statuses.count(status), len(statuses), f"off ({status} jobs held)")
                           for setting, status in BEE_QUEUE_RETENTION))


def json_object(raw):
    """``raw`` parsed as a JSON object, or None."""
    try:
        found = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        return None
    return found if isinstance(found, dict) else None


#: The fields of every result document Celery writes (celery/backends/base.py _get_result_meta).
CELERY_RESULT_FIELDS = frozenset(("status", "result", "traceback", "children", "date_done", "task_id"))


#: Celery's own states (celery/states.py); a task's update_state() may store any other name, which is the
#: application's and is not repeated.
CELERY_STATES = frozenset(("PENDING", "RECEIVED", "STARTED", "SUCCESS", "FAILURE", "REVOKED", "REJECTED", "RETRY",
                           "IGNORED"))


def celery_status(sample):
    """The status of the Celery result document ``sample`` holds whole (``a custom state`` for one not of
    :data:`CELERY_STATES`), or None when it holds none."""
    if sample.type != "string" or len(sample.head) != sample.length:
        return None
    document = json_object(sample.head)
    if document is None or not CELERY_RESULT_FIELDS <= document.keys() or not isinstance(document["status"], str):
        return None
    return document["status"] if document["status"] in CELERY_STATES else "a custom state"


def _celery_statuses(samples):
    """Celery writes a result with the TTL of result_expires, and none with result_expires=None: its results
    without TTL are kept forever whatever their status, which the documents tell (SUCCESS, FAILURE, ...)."""
    statuses = Counter(status for status in map(celery_status, samples) if status is not None)
    if not statuses:
        return None
    n_read = sum(statuses.values())
    return Retention(tuple(SettingCount("status", n, n_read, status, "results")
                           for status, n in statuses.most_common()))


#: How Ruby's Marshal writes the instance variable ``@expires_in`` of an ``ActiveSupport::Cache::Entry``
#: (a symbol of 11 bytes) where it first appears; ``0`` after it is nil.
_EXPIRES_IN = b":\x10@expires_in"


def _rails_entry(sample):
    """The ``expires_in`` a Rails cache entry was written with (Marshal, Rails 6.1's format): None when it
    holds nil, ``True`` when it holds a time; None as a whole (not read) where the entry's head does not say."""
    if sample.type != "string" or not sample.head.startswith(b"\x04\x08o:"):
        return None
    at = sample.head.find(_EXPIRES_IN)
    if at < 0 or at + len(_EXPIRES_IN) >= len(sample.head):
        return None
    return {"expires_in": None if sample.head[at + len(_EXPIRES_IN)] == ord("0") else True}
