"""Libraries told by the values they write, where the application chose the keys' names.

redis-py's ``Lock`` stores, under whatever name the application gives the lock, a token of its own making:
``uuid.uuid1().hex`` (redis/lock.py), 32 hexadecimal digits whose 13th is the UUID version, 1, and whose
17th holds the variant bits (8, 9, a or b). Every sampled value of a pattern having that shape tells the
pattern's keys are such locks.

Flask-Caching's Redis backends (and werkzeug's cache before them) write an integer as its digits and
anything else as ``!`` and a pickle (``RedisCache.dump_object``): with a ``CACHE_KEY_PREFIX`` of the
application's, its entries are told by that mark. Only the shape is looked at; nothing of a value is
kept or shown.
"""

import re

from .recognize import Recognized
from .schemas import CACHE, FLASK_CACHING, LOCK, KeySchema, Library

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

#: Sampled values a pattern needs before its values tell its library: one token could be chance.
MIN_SAMPLES = 2


def owner_by_values(samples):
    """The :class:`~.recognize.Recognized` owner that ``samples`` (a pattern's sampled
    :class:`~rdbscope.values.sample.ValueSample` values) show, or None."""
    if len(samples) < MIN_SAMPLES:
        return None
    if all(s.type == "string" and s.length == 32 and _UUID1_HEX.fullmatch(s.head) for s in samples):
        return Recognized(REDIS_PY_LOCK_KEYS, REDIS_PY_LOCK, "")
    if (all(s.type == "string" and (_MARKED_PICKLE.match(s.head) or _DIGITS.fullmatch(s.head)) for s in samples)
            and sum(bool(_MARKED_PICKLE.match(s.head)) for s in samples) >= MIN_SAMPLES):
        return Recognized(FLASK_CACHING_ENTRIES, FLASK_CACHING, "")
    return None
