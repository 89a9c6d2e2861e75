"""Instants a dump records (AUX ``ctime``, key expiry times): which the analysis can reckon with, and how
to print any of them.

An expiry is any int64 of milliseconds: ``EXPIREAT k 253402300799`` (9999-12-31T23:59:59Z) is a common
"never", and a server accepts ``PEXPIREAT`` up to 2**63-1. Python's datetime ends with the year 9999 and
pandas' nanoseconds with 2262, so these helpers work on the integers and saturate instead of wrapping.
"""

import datetime

import numpy as np

#: 9999-12-31T23:59:59Z, the last second a datetime holds.
LAST_SECOND = 253402300799
INT64_MIN = -(1 << 63)
#: How far apart two instants may be told: differences saturate here (146 million years), never wrap.
SPAN_MS = 1 << 62
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def ctime_seconds(aux):
    """AUX ``ctime`` in seconds since the epoch, or None when it is absent, not a number, or outside the
    years 1970-9999: Redis writes ``time(NULL)`` there, so anything else was not written by a clock, and
    the analysis goes on as for a dump without a ctime (``info`` shows the raw value)."""
    try:
        seconds = int(aux["ctime"])
    except (KeyError, TypeError, ValueError):
        return None
    return seconds if 0 <= seconds <= LAST_SECOND else None


def ms_after(expire_ms, now_ms):
    """``expire_ms - now_ms`` (an int64 array and an int) saturated at ±:data:`SPAN_MS`, never wrapped
    around: an expiry at 2**63-1 stays in the future and one at -2**63 in the past. A ``now_ms`` itself
    beyond ±2**62 (the earliest of such expiries, in a dump without ctime) counts as ±2**62."""
    now_ms = min(max(int(now_ms), -SPAN_MS), SPAN_MS - 1)
    return np.clip(np.asarray(expire_ms, np.int64), now_ms - SPAN_MS, now_ms + SPAN_MS) - np.int64(now_ms)


def datetime_ms(ms):
    """Milliseconds since the epoch as an aware UTC datetime, or None outside the years 1-9999."""
    try:
        return _EPOCH + datetime.timedelta(milliseconds=int(ms))
    except OverflowError:
        return None


def iso_ms(ms):
    """Milliseconds since the epoch as ISO 8601 UTC text, for any int64: ``9999-12-31T23:59:59Z``,
    ``146140482-04-24T15:36:27.904Z`` (numpy's calendar reaches past the year 9999 and before the year 1)."""
    moment = datetime_ms(ms)
    if moment is not None:
        timespec = "seconds" if moment.microsecond == 0 else "milliseconds"
        return moment.replace(tzinfo=None).isoformat(timespec=timespec) + "Z"
    if int(ms) == INT64_MIN:  # numpy's NaT
        return f"{INT64_MIN} ms since the epoch"
    return str(np.datetime_as_string(np.datetime64(int(ms), "ms"), unit="ms")) + "Z"


def expiry_values(column):
    """An ``expire_at`` column (timestamp[ms]) as Python values: a datetime where one can hold the instant,
    else its ISO text (:func:`iso_ms`); None without expiry."""
    values = column.cast("int64").to_pylist()
    return [None if ms is None else datetime_ms(ms) or iso_ms(ms) for ms in values]
