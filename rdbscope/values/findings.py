"""Serialization findings (SER001-SER003): what a pattern's values would save stored otherwise.

Read from each pattern's :class:`~.profile.ValueProfile` and its measures (keys, memory); the savings are
the estimates of :mod:`.serialization`. A message says formats, sizes and ratios, never what a value holds.
"""

from dataclasses import dataclass

from ..findings import Check, Severity, count, format_bytes, format_memory, format_share
from .serialization import (
    COMPRESS_WELL_RATIO,
    LARGE_FIELD_BYTES,
    LARGE_VALUE_BYTES,
    MSGPACK_WORTH_RATIO,
    compression_saving,
    hash_json_saving,
    msgpack_saving,
)

LARGE_UNCOMPRESSED = Check(
    "SER001", "large-values-uncompressed", Severity.WARNING,
    f"Values over {LARGE_VALUE_BYTES // 1024} KB stored uncompressed that zstd shrinks to "
    f"{COMPRESS_WELL_RATIO:.0%} or less (estimated on the pattern's sampled values), saving at least "
    "`min_saving_bytes`.",
    "The key-design guides say to compress values over 10 KB after serializing them: JSON and text of that "
    "size usually compress four to five times, and every read and write moves fewer bytes. Compress in the "
    "client (zstd, LZ4, gzip) and mark the format, e.g. in the key's name or a leading byte. The saving is "
    "estimated from up to 32 sampled values per pattern, each compressed alone.")
JSON_IN_HASH_FIELDS = Check(
    "SER002", "large-json-in-hash-fields", Severity.WARNING,
    f"Hash field values that are JSON documents over {LARGE_FIELD_BYTES // 1024} KB, saving at least "
    "`min_saving_bytes` if stored compressed.",
    "A hash is for flat attributes: a field value that is a large JSON document is read and rewritten whole "
    "on every change, and leaves the hash's compact encoding for good. Store the document under a key of its "
    "own (compressed), or split it into fields. The saving priced is storing those values compressed.")
TEXT_SERIALIZATION = Check(
    "SER003", "text-serialization-in-big-pattern", Severity.INFO,
    "A pattern of at least `big_pattern_bytes` whose values are mostly JSON that MessagePack stores in "
    f"{MSGPACK_WORTH_RATIO:.0%} of the bytes or less (measured on its sampled whole documents).",
    "MessagePack takes about half the bytes of JSON for the same document (Protobuf about a third) and "
    "decodes faster; in a large family of keys that is memory worth having. The ratio is measured by "
    "re-encoding the sampled documents.")

CHECKS = (LARGE_UNCOMPRESSED, JSON_IN_HASH_FIELDS, TEXT_SERIALIZATION)


@dataclass(frozen=True)
class SerializationOptions:
    """Thresholds of the serialization findings."""

    min_saving_bytes: int = 1 << 20
    big_pattern_bytes: int = 64 << 20


def serialization_findings(rows, profiles, memory_basis, options=SerializationOptions()):
    """The SER findings of pattern ``rows`` (dicts with ``db``, ``pattern``, ``n_keys``, ``memory_bytes_sum``
    and ``examples``), given ``{(db, pattern): ValueProfile}``."""
    findings = []
    for row in rows:
        profile = profiles.get((row["db"], row["pattern"]))
        if profile is None or not profile.n_samples:
            continue
        n_keys, memory = row["n_keys"], row["memory_bytes_sum"]
        for check, saving in ((LARGE_UNCOMPRESSED, compression_saving(profile, n_keys, memory)),
                              (JSON_IN_HASH_FIELDS, hash_json_saving(profile, n_keys, memory)),
                              (TEXT_SERIALIZATION, msgpack_saving(profile, n_keys, memory))):
            if saving is None or saving.bytes_saved < options.min_saving_bytes:
                continue
            if check is TEXT_SERIALIZATION and memory < options.big_pattern_bytes:
                continue
            findings.append(check.finding(
                _message(check, row["pattern"], n_keys, profile, saving, memory_basis),
                db=row["db"], pattern=row["pattern"], n_keys=n_keys, est_memory_bytes=saving.bytes_saved,
                examples=row["examples"][:3],
                details={"bytes_affected": saving.bytes_affected, "bytes_saved": saving.bytes_saved,
                         "ratio": round(saving.ratio, 3), "value_format": profile.value_format,
                         "element_format": profile.element_format, "sampled_keys": profile.n_samples,
                         "memory_basis": memory_basis}))
    return findings


def _message(check, pattern, n_keys, profile, saving, memory_basis):
    saved = format_memory(saving.bytes_saved, memory_basis)
    sampled = f"{count(profile.n_samples, 'sampled key')} of {n_keys:,}"
    if check is LARGE_UNCOMPRESSED:
        return (f"{pattern}: values over {format_bytes(LARGE_VALUE_BYTES)} stored uncompressed "
                f"({profile.value_format}); zstd takes them to {format_share(saving.ratio)} ({sampled}): "
                f"compressing them would save about {saved}")
    if check is JSON_IN_HASH_FIELDS:
        return (f"{pattern}: hash fields hold JSON documents over {format_bytes(LARGE_FIELD_BYTES)} ({sampled}); "
                f"stored compressed (zstd: {format_share(saving.ratio)}) they would save about {saved}")
    return (f"{pattern}: values are JSON, which MessagePack stores in {format_share(saving.ratio)} of the bytes "
            f"({sampled}): re-encoding would save about {saved}")
