"""What a pattern's sampled values are: their format, typical size, and how well they compress."""

import json
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import msgpack
import zstandard

from rdbscope.values.formats import JSON, value_format
from rdbscope.values.sample import ValueSample
from rdbscope.values.serialization import LARGE_FIELD_BYTES, LARGE_VALUE_BYTES

#: The zstd level the ratio is measured at (zstd's own default).
ZSTD_LEVEL = 3
#: Values (or elements) shorter than this are left out of the zstd ratio: a frame's own header and
#: checksum-free block headers alone are a large part of them.
ZSTD_MIN_BYTES = 256


@dataclass(frozen=True)
class ValueProfile:
    """What the sampled values of one pattern are. Holds formats, sizes and ratios only, never a value.

    Attributes:
        value_format: the most common format of the sampled strings, or of the collections' elements
            (each key votes once, with its elements' most common format); None without samples.
        element_format: for collections, the format of their elements (a hash whose field values are
            JSON: ``json``); None for strings.
        typical_bytes: median length of a value (strings) or of an element (collections).
        zstd_ratio: zstd-compressed size over original size of the sampled bytes (values, or elements, of at
            least ``ZSTD_MIN_BYTES``); None where no sample is that big.
        format_share: share of the samples whose format is ``value_format``.
        n_samples: how many keys were sampled.
        large_bytes_share: share of the sampled strings' bytes (full lengths) held in strings over
            ``LARGE_VALUE_BYTES``.
        large_zstd_ratio: zstd-compressed size over size of those large strings alone, whole (see
            :func:`whole_zstd_ratio`).
        json_bytes_share: share of the sampled bytes (full lengths of strings, or of elements) held in JSON.
        msgpack_ratio: MessagePack size over JSON size of the sampled JSON documents that were read whole;
            None where none was.
        hash_large_json_share: share of the sampled hashes' bytes (field names and full value lengths of the
            fields read) held in field values that are JSON over ``LARGE_FIELD_BYTES``; 0 without hashes.
        hash_large_json_zstd_ratio: the same ratio of those field values, whole.
        large_bytes_per_key, json_bytes_per_key, hash_large_json_bytes_per_key: the bytes of the large strings,
            of the JSON, of the hashes' large JSON field values, per sampled key: what the pattern's memory
            share of them cannot exceed (a pattern of long key names holds its memory in its names).
    """

    value_format: str | None
    element_format: str | None
    typical_bytes: int | None
    zstd_ratio: float | None
    format_share: float | None
    n_samples: int
    large_bytes_share: float = 0.0
    large_zstd_ratio: float | None = None
    json_bytes_share: float = 0.0
    msgpack_ratio: float | None = None
    hash_large_json_share: float = 0.0
    hash_large_json_zstd_ratio: float | None = None
    large_bytes_per_key: float = 0.0
    json_bytes_per_key: float = 0.0
    hash_large_json_bytes_per_key: float = 0.0


@dataclass(frozen=True)
class _Part:
    """One value judged: a string, or one element of a collection."""

    head: bytes
    length: int
    format: str

    @property
    def whole(self):
        return len(self.head) == self.length


def describe(samples: Sequence[ValueSample]) -> ValueProfile:
    """The profile of one pattern's ``samples`` (empty: a profile with no format)."""
    if not samples:
        return ValueProfile(None, None, None, None, None, 0)
    per_key = [_parts(sample) for sample in samples]
    votes = Counter(_majority(parts) for parts in per_key if parts)
    if not votes:
        return ValueProfile(None, None, None, None, None, len(samples))
    value_format, votes_for = _most_common(votes)
    collections = sum(sample.type != "string" for sample in samples)
    parts = [part for key_parts in per_key for part in key_parts]
    strings = [part for sample, key_parts in zip(samples, per_key, strict=True) if sample.type == "string"
               for part in key_parts]
    large = [part for part in strings if part.length > LARGE_VALUE_BYTES]
    total = sum(part.length for part in parts)
    hashes = [(sample, key_parts) for sample, key_parts in zip(samples, per_key, strict=True) if sample.type == "hash"]
    hash_json = [part for _, key_parts in hashes for part in key_parts
                 if part.format == JSON and part.length > LARGE_FIELD_BYTES]
    hash_bytes = sum(len(field) for sample, _ in hashes for field in sample.fields) + sum(
        part.length for _, key_parts in hashes for part in key_parts)
    return ValueProfile(
        value_format=value_format,
        element_format=value_format if 2 * collections > len(samples) else None,
        typical_bytes=int(statistics.median(part.length for part in parts)),
        zstd_ratio=zstd_ratio(part.head for part in parts),
        format_share=votes_for / len(samples),
        n_samples=len(samples),
        large_bytes_share=_share(sum(part.length for part in large), sum(part.length for part in strings)),
        large_zstd_ratio=whole_zstd_ratio(large),
        json_bytes_share=_share(sum(part.length for part in parts if part.format == JSON), total),
        msgpack_ratio=msgpack_ratio(part.head for part in parts if part.format == JSON and part.whole),
        hash_large_json_share=_share(sum(part.length for part in hash_json), hash_bytes),
        hash_large_json_zstd_ratio=whole_zstd_ratio(hash_json),
        large_bytes_per_key=sum(part.length for part in large) / len(samples),
        json_bytes_per_key=sum(part.length for part in parts if part.format == JSON) / len(samples),
        hash_large_json_bytes_per_key=sum(part.length for part in hash_json) / len(samples),
    )


def zstd_ratio(heads) -> float | None:
    """Compressed over original size of ``heads`` (each compressed alone, as each would be stored), counting
    only those of at least ``ZSTD_MIN_BYTES``; None where there is none."""
    compressor = zstandard.ZstdCompressor(level=ZSTD_LEVEL)
    original = compressed = 0
    for head in heads:
        if len(head) >= ZSTD_MIN_BYTES:
            original += len(head)
            compressed += len(compressor.compress(head))
    return compressed / original if original else None


def whole_zstd_ratio(parts) -> float | None:
    """Compressed over original size of the whole values whose first bytes were sampled; None without any.

    A value cut at its head is extrapolated: past the head, each byte is taken to compress as the second half
    of the head did (zstd learns from what it has seen, so the head's first bytes compress worst: the
    head's own ratio would understate the saving on a value many times its size).
    """
    compressor = zstandard.ZstdCompressor(level=ZSTD_LEVEL)
    original = compressed = 0.0
    for part in parts:
        head = part.head
        if not head:
            continue
        whole = len(compressor.compress(head))
        if part.length > len(head) and len(head) >= 2 * ZSTD_MIN_BYTES:
            half = len(head) // 2
            second_half = max(0, whole - len(compressor.compress(head[:half])))
            whole += (part.length - len(head)) * second_half / (len(head) - half)
        elif part.length > len(head):  # too short a head to see a trend: as the head did
            whole *= part.length / len(head)
        original += part.length
        compressed += whole
    return compressed / original if original else None


def msgpack_ratio(documents) -> float | None:
    """MessagePack size over JSON size of whole JSON ``documents``; None where there is none."""
    original = packed = 0
    for document in documents:
        try:
            packed += len(msgpack.packb(json.loads(document)))
        except (ValueError, OverflowError, RecursionError):  # numbers msgpack cannot hold, absurd nesting
            continue
        original += len(document)
    return packed / original if original else None


def _parts(sample):
    if sample.type == "string":
        return [_Part(sample.head, sample.length, value_format(sample.head, cut=len(sample.head) < sample.length))]
    return [_Part(element, length, value_format(element, cut=len(element) < length))
            for element, length in zip(sample.elements, sample.element_lengths, strict=True)]


def _majority(parts):
    return _most_common(Counter(part.format for part in parts))[0]


def _most_common(counts):
    """The most common name and its count; a tie goes to the first name in sorted order, so any order of
    the samples gives the same answer."""
    name = min(counts, key=lambda name: (-counts[name], name))
    return name, counts[name]


def _share(part, whole):
    return part / whole if whole else 0.0
