"""Values as people read them: human units chosen by the column's name, control characters escaped.

Columns carry units in their names (``*_bytes``, ``*share*``, ``*_s``), so one
set of rules formats every table, in the terminal and in the HTML report.
``plain`` gives the raw value for JSON and CSV.
"""

import datetime
import math
from typing import Any

import numpy as np
import pandas as pd

from ..findings import format_bytes, format_share
from ..rdb.instants import iso_ms
from ..rdb.keytext import SHOWN_CHARS, printable

__all__ = ["LABELS", "cell_text", "human_seconds", "is_numeric_column", "label", "plain", "printable"]

#: Column headers people see; a column not listed shows its own name.
LABELS = {
    "n_keys": "keys", "share": "keys %", "memory_bytes_sum": "memory", "memory_share": "memory %",
    "value_format": "values", "element_format": "elements", "value_bytes_typical": "value size",
    "value_zstd_ratio": "zstd", "values_sampled": "values read",
    "memory_bytes_p50": "p50", "memory_bytes_max": "max", "rdb_bytes_sum": "in dump", "n_with_ttl": "with TTL",
    "ttl_share": "TTL %", "ttl_s_p50": "TTL p50", "ttl_s_p90": "TTL p90", "ttl_s_max": "TTL max",
    "memory_bytes": "memory", "rdb_bytes": "in dump", "n_elements": "length", "expire_at": "expires",
    "n_without_ttl": "no TTL", "share_without_ttl": "no TTL %", "memory_bytes_without_ttl": "memory no TTL",
    "memory_share_without_ttl": "memory no TTL %", "n_expired": "expired", "volatile_name": "volatile name",
    "n_persistent": "no TTL", "persistent_share": "no TTL %", "memory_bytes_persistent": "memory no TTL",
    "persistent_memory_share": "memory no TTL %", "window_s": "window", "for_s": "for", "start": "starts",
    "expected_keys": "expected", "ratio": "× expected", "share_of_ttl_keys": "of TTL keys", "end": "ends",
    "keys_in_batches": "same ms", "avg_bytes": "avg", "largest_key": "largest key", "largest_bytes": "its size",
    "expires": "TTL left", "lfu_mean": "LFU mean", "lfu_max": "LFU max", "memory_bytes_lfu_zero": "memory at LFU 0",
    "n_lfu_zero": "keys at LFU 0", "n_with_idle": "with idle time", "n_with_lfu": "with LFU",
    "memory_bytes_cold_without_ttl": "cold, no TTL", "min_idle_s": "least idle", "max_idle_s": "most idle",
    **{f"memory_bytes_idle_over_{t}": f"idle > {t}" for t in ("1h", "1d", "7d")},
    **{f"n_idle_over_{t}": f"keys idle > {t}" for t in ("1h", "1d", "7d")},
    "est_memory_bytes": "memory", "bucket_start": "from", "bucket_end": "to", "n_keys_cumulative": "expired so far",
    "bucket_s": "bucket", "memory_bytes_old": "memory before", "memory_bytes_new": "memory after",
    "memory_bytes_delta": "memory Δ", "n_keys_old": "keys before", "n_keys_new": "keys after",
    "n_keys_delta": "keys Δ", "memory_change_share": "memory Δ %", "change bytes": "change",
    "key_kind": "key kind", "grew_each_date": "grew each date",
}


def label(column) -> str:
    """The header people see for a column (a trailing `` bytes`` unit marker is dropped)."""
    return LABELS.get(column) or column.removesuffix(" bytes")



def cell_text(column, value) -> str:
    """One value as a terminal or HTML report shows it: human units by the column's name, control characters
    escaped, text cut at :data:`~rdbscope.rdb.keytext.SHOWN_CHARS` characters."""
    if _missing(value):
        return ""
    if isinstance(value, (list, tuple, np.ndarray)):
        return ", ".join(cell_text(column, v) for v in value)
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else ""
    if isinstance(value, (datetime.datetime, pd.Timestamp)):
        return _iso(value).replace("T", " ")
    if isinstance(value, (int, float, np.integer, np.floating)):
        return _number(column, value)
    return printable(str(value), SHOWN_CHARS)


def human_seconds(seconds) -> str:
    """``93784`` -> ``"1d 2h"``: the two largest units."""
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    parts: list[str] = []
    for unit, size in (("y", 365 * 86400), ("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if seconds >= size or parts:
            count, seconds = divmod(seconds, size)
            if count or parts:
                parts.append(f"{count}{unit}")
        if len(parts) == 2:
            break
    return " ".join(p for p in parts if not p.startswith("0")) or "0s"


def plain(value) -> Any:
    """A value as plain JSON: numpy scalars unwrapped, NaN/NA as null, times as ISO 8601 (Z)."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if _missing(value):
        return None
    if isinstance(value, (datetime.datetime, pd.Timestamp)):
        return _iso(value)
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, np.generic):
        return value.item()
    return value


def _number(column, value):
    if isinstance(value, (float, np.floating)) and not math.isfinite(value):
        return str(value)
    if value > 0 and _is_change(column):
        return "+" + _magnitude(column, value)
    return _magnitude(column, value)


def _is_change(column):
    return column.endswith("_delta") or column.startswith("change") or column == "memory_change_share"


def _magnitude(column, value):
    if "bytes" in column:
        return format_bytes(value)
    if "share" in column:
        return format_share(float(value))
    if column.startswith("ttl_s") or column.endswith("_s"):
        return human_seconds(value)
    if column == "ratio":
        return f"{value:,.0f}×" if value >= 10 else f"{value:.1f}×"
    if isinstance(value, (float, np.floating)):
        return f"{value:,.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    return f"{int(value):,}" if column != "db" else str(int(value))


def is_numeric_column(series) -> bool:
    """True for numeric columns (right-aligned); booleans are not."""
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def _missing(value):
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, (float, np.floating)) and math.isnan(value)


def _iso(value):
    if isinstance(value, pd.Timestamp):
        if not 1 <= value.year <= 9999:  # past what a datetime holds (an expiry of 2**62 ms, say)
            return iso_ms(int(value.as_unit("ms").asm8.view("i8")))
        value = value.to_pydatetime()
    if value.tzinfo is not None:
        value = value.astimezone(datetime.timezone.utc)
        return value.replace(tzinfo=None).isoformat() + "Z"
    return value.isoformat()
