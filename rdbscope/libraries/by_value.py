"""Libraries told by the values they write, where the application chose the keys' names.

redis-py's ``Lock`` stores, under whatever name the application gives the lock, a token of its own making:
``uuid.uuid1().hex`` (redis/lock.py), 32 hexadecimal digits whose 13th is the UUID version, 1, and whose
17th holds the variant bits (8, 9, a or b). Every sampled value of a pattern having that shape tells the
pattern's keys are such locks.

Flask-Caching's Redis backends (and werkzeug's cache before them) write an integer as its digits and
anything else as ``!`` and a pickle (``RedisCache.dump_object``): with a ``CACHE_KEY_PREFIX`` of the
application's, its entries are told by that mark. Django's ``RedisCache`` (django/core/cache/backends/redis.py
``RedisSerializer``) writes an integer as its digits and anything else as a bare pickle, under
``<KEY_PREFIX>:<VERSION>:`` (``default_key_func``): pickles under such a name are its entries.

RQ keeps a job in a hash whose ``data``
field is the zlib-compressed pickle of the call (rq/job.py ``Job.to_dict``), beside ``status`` and
``created_at``, whatever id the application gave the job. Redis OM saves each model in a hash (or JSON
document) with its primary key in a ``pk`` field (redis_om/model/model.py), a ULID unless the model's
``primary_key_creator_cls`` makes another id.

BullMQ writes into each queue's ``<prefix>:<queue>:meta`` hash the settings of the queue and the library's
version (``version``: ``bullmq:<version>``; classes/queue.js ``metaValues``): a queue under a ``prefix`` of
the application's is told by it, and so are the queue's other keys.

Only shapes are looked at (the first bytes of a zlib stream are inflated to see a pickle's protocol; no
pickle is ever loaded); nothing of a value is kept or shown.
"""

import re
import zlib
from collections import Counter

from ..values.formats import value_format
from .evidence import hash_field
from .recognize import Recognized, match_schema
from .schemas import (
    BULL_OR_BULLMQ,
    BULLMQ,
    CACHE,
    DJANGO_CACHE,
    FLASK_CACHING,
    JOB,
    LOCK,
    RECORD,
    REDIS_OM,
    RQ,
    KeySchema,
    Library,
)

REDIS_PY_LOCK = Library(
    "redis-py Lock", "4.x-6.x", "none: the application names each lock",
    {LOCK: "timeout= on Redis.lock() / Lock() (None holds the lock until it is released, forever if its holder "
           "dies)"})
REDIS_PY_LOCK_KEYS = KeySchema(REDIS_PY_LOCK, "<the lock's name>", r"(?!)", ("string",), "lock", LOCK)

_UUID1_HEX = re.compile(rb"[0-9a-f]{12}1[0-9a-f]{3}[89ab][0-9a-f]{15}")

FLASK_CACHING_ENTRIES = KeySchema(FLASK_CACHING, "<CACHE_KEY_PREFIX><key>", r"(?!)", ("string",), "cache entry",
                                  CACHE)
_MARKED_PICKLE = re.compile(rb"!\x80[\x02-\x05]", re.S)
_DIGITS = re.compile(rb"-?[0-9]+")

DJANGO_CACHE_ENTRIES = KeySchema(DJANGO_CACHE, "<KEY_PREFIX>:<VERSION>:<key>", r"(?!)", ("string",), "cache entry",
                                 CACHE)
#: django/core/cache/backends/base.py default_key_func: '<KEY_PREFIX>:<VERSION>:<key>', VERSION an integer.
_DJANGO_KEY = re.compile(r"(?P<prefix>(?:[^:{}]*:)*?[0-9]+:).+", re.S)


RQ_JOBS = KeySchema(RQ, "<RQ_KEY_PREFIX>:job:<job id>", r"(?!)", ("hash",), "job", JOB)
_RQ_JOB_FIELDS = (b"data", b"status", b"created_at")
#: Bytes inflated from the start of a job's data: enough for pickletools to read the pickle's opening.
_INFLATED_BYTES = 256

REDIS_OM_MODELS = KeySchema(REDIS_OM, "<global prefix>:<model prefix>:<pk>", r"(?!)", ("hash",), "model", RECORD)
#: A ULID (Crockford base32, 26 characters: Redis OM's default primary key) or a UUID, with or without dashes.
_PRIMARY_KEY = re.compile(rb"[0-7][0-9A-HJKMNP-TV-Z]{25}|[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?"
                          rb"[0-9a-f]{12}", re.I)

#: A BullMQ queue's meta hash: its ``version`` field names the library, and the settings beside it.
_BULLMQ_VERSION = re.compile(rb"bullmq:[0-9][0-9A-Za-z.+-]{0,40}")
#: Settings BullMQ keeps in a queue's meta hash (classes/queue.js metaValues, setGlobalConcurrency,
#: setGlobalRateLimit; pause.lua's 'paused'), all numbers but the version.
BULLMQ_META_SETTINGS = ("version", "opts.maxLenEvents", "paused", "concurrency", "max", "duration")
_NUMBER = re.compile(rb"[0-9]{1,15}")

#: Sampled values a pattern needs before its values tell its library: one token could be chance.
MIN_SAMPLES = 2


def owner_by_values(samples, pattern=""):
    """The :class:`~.recognize.Recognized` owner that ``samples`` (a pattern's sampled
    :class:`~rdbscope.values.sample.ValueSample` values) show, or None. ``pattern``: the pattern's text, for
    the stores whose values tell only beside the form of their names (Django's cache)."""
    if len(samples) < MIN_SAMPLES:
        return None
    if all(s.type == "string" and s.length == 32 and _UUID1_HEX.fullmatch(s.head) for s in samples):
        return Recognized(REDIS_PY_LOCK_KEYS, REDIS_PY_LOCK, "", "values: uuid1 tokens, as redis-py's Lock makes")
    strings = all(s.type == "string" for s in samples)
    if strings and _pickles_or_digits(samples, _MARKED_PICKLE, 1):
        return Recognized(FLASK_CACHING_ENTRIES, FLASK_CACHING, "", "values: '!' and a pickle, as Flask-Caching "
                                                                    "writes them")
    django = _DJANGO_KEY.fullmatch(pattern)
    if strings and django and _pickles_or_digits(samples, None, 0):
        return Recognized(DJANGO_CACHE_ENTRIES, DJANGO_CACHE, django.group("prefix"),
                          f"values: pickles ({_protocols(_pickle_protocol(s.head) for s in samples)}) under "
                          f"'<KEY_PREFIX>:<VERSION>:' "
                          f"({django.group('prefix')}), as Django's RedisCache writes them")
    jobs = [_rq_job_pickle(s) for s in samples]
    if all(jobs):
        return Recognized(RQ_JOBS, RQ, "", f"values: job hashes whose data field is a zlib-compressed pickle "
                                           f"({_protocols(jobs)}), as RQ writes them")
    if all(_primary_key(s) for s in samples):
        return Recognized(REDIS_OM_MODELS, REDIS_OM, "", "values: hashes holding their primary key in a pk field, "
                                                         "as Redis OM saves models")
    return None


def _pickle_protocol(data):
    """``pickle-<protocol>`` when ``data`` opens a pickle (read by its opcodes, never loaded), else None."""
    found = value_format(data, cut=True)
    return found if found.startswith("pickle-") else None


def _pickles_or_digits(samples, mark, skip):
    """Every sample is an integer's digits or a pickle (after ``mark``, ``skip`` bytes long), and at least
    MIN_SAMPLES are pickles."""
    n_pickles = 0
    for s in samples:
        if _DIGITS.fullmatch(s.head):
            continue
        if (mark is not None and not mark.match(s.head)) or not _pickle_protocol(s.head[skip:]):
            return False
        n_pickles += 1
    return n_pickles >= MIN_SAMPLES


def _protocols(formats):
    """Pickle formats (``pickle-5``, or None for a value that is no pickle) as a message says them, the most
    common first: ``protocol 5``."""
    found = Counter(f for f in formats if f)
    return "protocol " + ", ".join(f.removeprefix("pickle-") for f, _n in found.most_common())


def _rq_job_pickle(sample):
    """``pickle-<protocol>`` of an RQ job hash's data, or None when ``sample`` is no such hash."""
    if sample.type != "hash" or not all(field in sample.fields for field in _RQ_JOB_FIELDS):
        return None
    data = hash_field(sample, b"data", whole=False)
    # RFC 1950: CM 8 (deflate), CINFO at most 7, and the two header bytes a multiple of 31.
    if data is None or len(data) < 2 or data[0] & 0x0F != 8 or data[0] >> 4 > 7 or (data[0] << 8 | data[1]) % 31:
        return None
    try:
        opening = zlib.decompressobj().decompress(data, _INFLATED_BYTES)
    except zlib.error:
        return None
    return _pickle_protocol(opening)


def _primary_key(sample):
    pk = hash_field(sample, b"pk")
    return pk is not None and _PRIMARY_KEY.fullmatch(pk) is not None


def bullmq_meta(samples):
    """The settings a BullMQ queue's meta hash holds, ``{field: value}`` of :data:`BULLMQ_META_SETTINGS`
    (``samples``: the sample of a ``<prefix>:<queue>:meta`` key); empty when it holds none. A queue that only a
    FlowProducer or a Worker opened has ``opts.maxLenEvents`` alone: only ``Queue`` writes the version."""
    if len(samples) != 1 or samples[0].type != "hash":
        return {}
    settings = {}
    for name in BULLMQ_META_SETTINGS:
        value = hash_field(samples[0], name.encode())
        if value is not None and (_BULLMQ_VERSION if name == "version" else _NUMBER).fullmatch(value):
            settings[name] = value.decode("ascii")
    return settings


def meta_text(settings):
    """A BullMQ queue's stored settings as a finding's details say them."""
    text = "; ".join(f"{name}: {value}" for name, value in settings.items())
    if "opts.maxLenEvents" in settings:
        text += f" (the events stream is trimmed to about {settings['opts.maxLenEvents']} entries)"
    return text


def owners_with_values(dbs, patterns, types, owners, samples):
    """The owners of a pattern table's groups (``owners``: by name, :func:`~.recognize.recognize`), with those
    their sampled values tell (``samples``: per group): by :func:`owner_by_values`, and the keys of each
    BullMQ queue whose meta hash names BullMQ under a prefix of the application's."""
    owners = [owner or owner_by_values(samples[g], patterns[g]) for g, owner in enumerate(owners)]
    queues = {}
    for db, pattern, owner, sampled in zip(dbs, patterns, owners, samples, strict=True):
        if owner is None and pattern.endswith(":meta"):
            settings = bullmq_meta(sampled)
            if "version" in settings:
                queues[(db, pattern[:-len(":meta")])] = settings["version"]
    if not queues:
        return owners
    for g, (db, pattern) in enumerate(zip(dbs, patterns, strict=True)):
        if owners[g] is not None:
            continue
        queue = next((q for (d, q) in queues if d == db and pattern.startswith(q + ":")), None)
        if queue is None:
            continue
        prefix, _, name = queue.rpartition(":")
        found = match_schema("bull:" + name + pattern[len(queue):], types[g], ())
        if found is not None and found[0].library is BULL_OR_BULLMQ:
            owners[g] = Recognized(found[0], BULLMQ, prefix + ":",
                                   f"values: the queue's meta hash ({queues[(db, queue)]}) under the prefix "
                                   f"'{prefix}'")
    return owners
