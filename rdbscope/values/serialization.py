"""What re-serializing a pattern's values would save: estimates from its value profile (no I/O).

The thresholds come from the key-design seeds (shared/seeds in the project's workspace):
compress values over 10 KB, MessagePack is about half of JSON, no JSON over about 4 KB in a hash field.
Each estimate scales the share of the pattern's memory that the change touches by the size ratio the
sample measured, so the allocator's rounding of the values as they are is counted as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rdbscope.values.formats import JSON

if TYPE_CHECKING:
    from rdbscope.values.profile import ValueProfile

#: Values over this are worth compressing (seed 004, section 30.3.3: "For values exceeding 10 KB,
#: compress after serializing"; it is also its big-key threshold for strings, section 30.5.1).
LARGE_VALUE_BYTES = 10 * 1024
#: JSON over this should not be a hash field's value (seed 002, on attribute data: a hash should not hold
#: JSON over 4 KB as a field value, but the name of a key that holds it).
LARGE_FIELD_BYTES = 4 * 1024
#: What MessagePack takes of JSON (seed 004, section 30.3.1: "MessagePack ~1/2 of JSON").
MSGPACK_OF_JSON = 0.5
#: Re-encoding is worth a finding where the measured MessagePack ratio is at most this: halfway between
#: no gain and the seed's half (our choice; the seed gives the expectation, not a cut-off).
MSGPACK_WORTH_RATIO = (1 + MSGPACK_OF_JSON) / 2
#: Values "compress well" where zstd takes at most this of them (our choice: the seed's typical
#: result is a fifth, "10 KB JSON → 2 KB compressed (5x ratio)", section 30.3.3; we ask for half).
COMPRESS_WELL_RATIO = 0.5


#: What an allocation can hold beyond the bytes asked for: jemalloc's size classes, four per doubling, round a
#: request up by less than a quarter. The memory a change touches is at most its bytes times this.
ALLOCATION_SLACK = 1.25


@dataclass(frozen=True)
class Saving:
    """What one change would save on one pattern.

    Attributes:
        bytes_affected: memory now held by the values the change touches (estimated from the sample).
        bytes_saved: memory the change would free (estimated).
        ratio: new size over old size of the values touched, as measured on the sample.
    """

    bytes_affected: int
    bytes_saved: int
    ratio: float


def compression_saving(profile: ValueProfile, n_keys: int, memory_bytes: int) -> Saving | None:
    """Strings over ``LARGE_VALUE_BYTES`` stored as they are that zstd shrinks to ``COMPRESS_WELL_RATIO`` or
    less: what compressing them would save. None where the pattern has no such values."""
    ratio = profile.large_zstd_ratio
    if not n_keys or ratio is None or ratio > COMPRESS_WELL_RATIO:
        return None
    return _saving(_touched(memory_bytes * profile.large_bytes_share, profile.large_bytes_per_key, n_keys), ratio)


def msgpack_saving(profile: ValueProfile, n_keys: int, memory_bytes: int) -> Saving | None:
    """Values (or elements) that are JSON, which MessagePack would store in ``MSGPACK_WORTH_RATIO`` of the
    bytes or less: what re-encoding them would save. None where the values are not mostly JSON, or no whole
    JSON document was sampled to measure on."""
    ratio = profile.msgpack_ratio
    if not n_keys or profile.value_format != JSON or ratio is None or ratio > MSGPACK_WORTH_RATIO:
        return None
    return _saving(_touched(memory_bytes * profile.json_bytes_share, profile.json_bytes_per_key, n_keys), ratio)


def hash_json_saving(profile: ValueProfile, n_keys: int, memory_bytes: int) -> Saving | None:
    """Hash field values that are JSON over ``LARGE_FIELD_BYTES``: the memory they hold, and what storing them
    zstd-compressed would save. None where the sampled hashes hold none."""
    if not n_keys or not profile.hash_large_json_share or profile.hash_large_json_zstd_ratio is None:
        return None
    touched = _touched(memory_bytes * profile.hash_large_json_share, profile.hash_large_json_bytes_per_key, n_keys)
    return _saving(touched, profile.hash_large_json_zstd_ratio)


def _touched(share_of_memory, bytes_per_key, n_keys):
    """The memory a change touches: the pattern's memory in the share the values take, at most their bytes
    (with the allocator's rounding): key names and the server's structures are not touched."""
    return min(share_of_memory, n_keys * bytes_per_key * ALLOCATION_SLACK)


def _saving(affected, ratio):
    return Saving(bytes_affected=round(affected), bytes_saved=round(affected * (1 - ratio)), ratio=ratio)
