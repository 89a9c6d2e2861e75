"""The values pass: a bounded sample of each pattern's values, read again from the dump after the scan.

Each pattern's sampled keys are those whose key bytes hash lowest (up to ``keys_per_pattern``): a choice
that depends on the keys alone, so any chunking of the dump picks the same ones. Once the chunks are
merged, the values of the chosen keys of the largest patterns are read at their entries' offsets (see
:mod:`rdbscope.values.read`). Nothing a value holds is printed or put in a table: the samples are for
the passes that judge formats and sizes.
"""

import logging
from dataclasses import dataclass
from functools import partial

import numpy as np
import pyarrow as pa

from .. import kernels
from ..options import option, require_positive
from ..rdb.format import ENCODING_NAMES, TYPE_NAMES
from ..sources import is_url, open_ranged, reread_failure, storage_errors
from ..values.read import Wanted, keys_read, read_samples, reread_reason, sample_bytes
from .base import PassOutput

log = logging.getLogger(__name__)

#: The types whose values are sampled.
SAMPLED_TYPES = ("string", "list", "set", "zset", "hash")


@dataclass(frozen=True)
class ValuesOptions:
    """Options of the ``values`` pass (the bounded value sample)."""

    keys_per_pattern: int = option(32, "keys whose values are read per pattern")
    max_patterns: int = option(1000, "patterns sampled at most: the largest by memory")

    def __post_init__(self):
        require_positive(self, "keys_per_pattern", "max_patterns")


@dataclass(frozen=True)
class ChosenKeys:
    """The keys chosen per group: the ``keys_per_pattern`` of each with the lowest hash of their bytes, of the
    types whose values are sampled (``SAMPLED_TYPES``).

    Attributes (one per chosen key):
        group: its group.
        hash: the hash of its bytes (ties: the lower input, then offset).
        offset: where its entry starts in its dump.
        source: its dump, an index into ``sources``.
        kind: its (type, encoding), an index into ``TYPE_NAMES`` times ``len(ENCODING_NAMES)`` plus one into
            ``ENCODING_NAMES``.
        length: its ``n_elements``.
        sources: the dumps' paths (None: a dump with no path, not read again).
        keep: keys kept per group.
    """

    group: np.ndarray
    hash: np.ndarray
    offset: np.ndarray
    source: np.ndarray
    kind: np.ndarray
    length: np.ndarray
    sources: tuple
    keep: int

    @classmethod
    def empty(cls, keep):
        return cls(*(np.zeros(0, dtype) for dtype in (np.int64, np.uint64, np.uint64, np.int32, np.int32,
                                                       np.uint64)), (), keep)

    def take(self, rows):
        return ChosenKeys(self.group[rows], self.hash[rows], self.offset[rows], self.source[rows],
                          self.kind[rows], self.length[rows], self.sources, self.keep)

    def lowest(self, n_groups):
        """These keys without those past the ``keep`` lowest of their group."""
        return self.take(lowest_per_group(self, n_groups, self.keep))


@dataclass(frozen=True)
class ValueSamples:
    """What the values pass shares: the samples of each final pattern group.

    Attributes:
        by_group: per group, a tuple of :class:`~rdbscope.values.sample.ValueSample` (empty for a group
            not sampled: too small in memory, or of types not sampled).
        not_read: why no value was read (an input that cannot be read again), or None when they were.
    """

    by_group: tuple
    not_read: str | None = None


def _buffers(keys):
    """The offsets and data buffers of a binary Arrow array, as numpy arrays the kernels read."""
    _validity, offsets, data = keys.buffers()
    offsets = np.frombuffer(offsets, np.int32, len(keys) + 1, keys.offset * 4)
    data = np.frombuffer(data, np.uint8) if data is not None and data.size else np.zeros(1, np.uint8)
    return offsets, data


def _arrays(keys):
    """The binary arrays of ``keys`` (an array or a chunked array) and the row each starts at."""
    chunks = keys.chunks if isinstance(keys, pa.ChunkedArray) else [keys]
    starts = np.cumsum([0] + [len(chunk) for chunk in chunks])
    return [(chunk.cast(pa.binary()), int(start)) for chunk, start in zip(chunks, starts, strict=False)]


def key_hashes(keys):
    """The hash of every key of a binary Arrow array or chunked array (see ``kernels/_key_hashes.py``)."""
    out = np.empty(len(keys), np.uint64)
    for chunk, start in _arrays(keys):
        if len(chunk):
            kernels.key_hashes.fill_key_hashes(*_buffers(chunk), out[start:start + len(chunk)])
    return out


def keys_under_cut(keys, group, cut):
    """``(rows, hashes)`` of the keys whose hash is at most their group's ``cut``, ascending."""
    group = np.ascontiguousarray(group, np.int32)
    rows, hashes = np.empty(len(keys), np.int64), np.empty(len(keys), np.uint64)
    found = 0
    for chunk, start in _arrays(keys):
        if len(chunk):
            n = kernels.key_hashes.keys_under_cut(*_buffers(chunk), group[start:start + len(chunk)], cut,
                                                  rows[found:], hashes[found:])
            rows[found:found + n] += start
            found += n
    return rows[:found].copy(), hashes[:found].copy()


def _source_ranks(chosen):
    """The rank of each key's source path among the paths (chunk-invariant, where source numbers are not)."""
    names = np.array([path or "" for path in chosen.sources] or [""], object)
    return np.argsort(np.argsort(names, kind="stable"))[chosen.source]


def ordered(chosen, rows=None):
    """``rows`` of ``chosen`` (default: all) ordered by group, then hash, source path and offset."""
    rows = np.arange(len(chosen.group)) if rows is None else rows
    order = np.lexsort((chosen.offset[rows], _source_ranks(chosen)[rows], chosen.hash[rows], chosen.group[rows]))
    return rows[order]


def lowest_per_group(chosen, n_groups, k):
    """The rows of ``chosen`` with the ``k`` lowest (hash, source path, offset) of each group, ascending: only
    the groups with more than ``k`` are sorted."""
    crowded = (np.bincount(chosen.group, minlength=n_groups) > k)[chosen.group]
    rows = ordered(chosen, np.flatnonzero(crowded))
    group = chosen.group[rows]
    first = np.searchsorted(group, group)  # the first row of each one's group, in sorted order
    kept = rows[np.arange(len(rows)) - first < k]
    return np.sort(np.concatenate([np.flatnonzero(~crowded), kept]))


def _candidates(keys, group, n_groups, k, sampled):
    """``(rows, hashes)`` of the keys of a sampled type (``sampled``: the rows' type codes and whether each code
    is sampled, or None for all)
    that may be among the ``k`` lowest hashes of their group: all of a small group, and of a larger one
    those below a cut that leaves about ``4 k`` (all of it again in the rare group where fewer than ``k``
    fall below)."""
    if sampled is None:
        n_keys = kernels.count_ids(group, n_groups)
    else:
        n_keys = kernels.count_of_codes(group, *sampled, n_groups)
    share = np.minimum(1.0, 4.0 * k / np.maximum(n_keys, 1))
    everything = np.uint64(2**64 - 1)
    cut = np.where(share >= 1.0, everything, (np.minimum(share, 0.5) * 2.0**64).astype(np.uint64))
    cut[n_keys == 0] = 0  # groups of streams and modules only: none of their keys is read

    def under(cut):
        rows, hashes = keys_under_cut(keys, group, cut)
        if sampled is None:
            return rows, hashes
        codes, wanted = sampled
        of_type = wanted[codes[rows]]
        return rows[of_type], hashes[of_type]

    rows, hashes = under(cut)
    short = np.bincount(group[rows], minlength=n_groups) < np.minimum(n_keys, k)
    if short.any():
        rows, hashes = under(np.where(short, everything, cut))
    return rows, hashes


def _sampled_rows(columns):
    """``(type codes, whether each code is sampled)`` of the rows, or None when every row is of a sampled type."""
    type_codes, type_names = columns.types
    of_type = np.array([name in SAMPLED_TYPES for name in type_names] or [True], bool)
    return None if of_type.all() else (type_codes, of_type)


def _kinds(columns, rows):
    """The (type, encoding) code of ``rows`` (see :attr:`ChosenKeys.kind`)."""
    type_codes, type_names = columns.types
    encoding_codes, encoding_names = columns.encodings
    type_ids = np.array([TYPE_NAMES.index(name) for name in type_names] or [0], np.int32)
    encoding_ids = np.array([ENCODING_NAMES.index(name) for name in encoding_names] or [0], np.int32)
    return type_ids[type_codes[rows]] * len(ENCODING_NAMES) + encoding_ids[encoding_codes[rows]]


def _sources(columns, rows):
    """``(source of each of rows, paths)``: the dump of each row (a table of several has their paths in its
    ``source`` column)."""
    table = columns.table
    if "source" in table.column_names:
        column = table["source"].combine_chunks()
        if isinstance(column, pa.DictionaryArray):
            codes = column.indices.to_numpy(zero_copy_only=False)[rows].astype(np.int32)
            return codes, tuple(column.dictionary.to_pylist())
        paths, codes = np.unique(np.asarray(column.to_pylist(), object)[rows], return_inverse=True)
        return codes.astype(np.int32), tuple(paths.tolist())
    return np.zeros(len(rows), np.int32), (columns.info.path,)


def _largest_first(chosen, largest):
    """The rows of ``chosen`` in the groups ``largest`` (by memory, largest first), in that order, each group's
    by hash: a budget too small for every sample reads those of the largest patterns."""
    rank = np.full(int(max(chosen.group.max(initial=0), largest.max(initial=0))) + 1, len(largest))
    rank[largest] = np.arange(len(largest))
    rows = ordered(chosen, np.flatnonzero(rank[chosen.group] < len(largest)))
    return rows[np.argsort(rank[chosen.group[rows]], kind="stable")]


class ValuesPass:
    """Reads the first bytes of a few values of each pattern (see the module); its ``shared`` output is a
    :class:`ValueSamples`. No table, no finding."""

    id = "values"
    requires = ("pattern_groups",)
    Options = ValuesOptions
    checks = ()

    @staticmethod
    def measure_groups(columns, groups, options) -> ChosenKeys:
        """The keys of each group of a chunk with the lowest hashes."""
        group = groups.group
        rows, hashes = _candidates(columns.keys, group, groups.n, options.keys_per_pattern, _sampled_rows(columns))
        source, sources = _sources(columns, rows)
        candidates = ChosenKeys(group[rows].astype(np.int64), hashes, columns.offset[rows].astype(np.uint64), source,
                                _kinds(columns, rows).astype(np.int32),
                                columns.n_elements[rows].astype(np.uint64), sources, options.keys_per_pattern)
        return candidates.lowest(groups.n)

    @staticmethod
    def merge_groups(parts, n_groups) -> ChosenKeys:
        keep = parts[0][0].keep
        parts = [(chosen, ids) for chosen, ids in parts if len(chosen.group)]
        if not parts:
            return ChosenKeys.empty(keep)
        sources: dict = {}
        for chosen, _ids in parts:
            for path in chosen.sources:
                sources.setdefault(path, len(sources))

        def joined(name):
            return np.concatenate([getattr(chosen, name) for chosen, _ids in parts])

        merged = ChosenKeys(
            group=np.concatenate([np.asarray(ids, np.int64)[chosen.group] for chosen, ids in parts]),
            hash=joined("hash"), offset=joined("offset"),
            source=np.concatenate([np.array([sources[path] for path in chosen.sources], np.int32)[chosen.source]
                                   for chosen, _ids in parts]),
            kind=joined("kind"), length=joined("length"), sources=tuple(sources), keep=keep)
        return merged.lowest(n_groups)

    def finish(self, chosen, ctx):
        groups = ctx.output("pattern_groups").shared
        options = ctx.options
        memory = np.asarray(groups.stats.memory.sums)
        largest = np.argsort(-memory.astype(np.float64), kind="stable")[:options.max_patterns]
        rows = _largest_first(chosen, largest)[:keys_read(ctx.memory_budget)]
        keep_bytes = sample_bytes(ctx.memory_budget, len(rows))
        found, reasons = {}, []
        for source in np.unique(chosen.source[rows]).tolist():
            path = chosen.sources[source]
            reason = reread_reason(path)
            if reason is not None:
                reasons.append(reason)
                continue
            mine = rows[chosen.source[rows] == source]
            wanted = [Wanted(int(offset), TYPE_NAMES[kind // len(ENCODING_NAMES)],
                             ENCODING_NAMES[kind % len(ENCODING_NAMES)], int(length), int(key_hash))
                      for offset, kind, length, key_hash in zip(
                          chosen.offset[mine].tolist(), chosen.kind[mine].tolist(), chosen.length[mine].tolist(),
                          chosen.hash[mine].tolist(), strict=True)]
            try:
                samples = read_samples(path, wanted, partial(open_ranged, path) if is_url(path) else None,
                                       keep_bytes)
            except (OSError, ValueError, EOFError, *storage_errors()) as exc:  # changed or gone since the scan
                reasons.append(reread_failure(path, exc))
                continue
            for row, want in zip(mine.tolist(), wanted, strict=True):
                if want.offset in samples:
                    found[row] = samples[want.offset]
        by_group = [[] for _ in range(groups.n)]
        for row in rows.tolist():  # each group's samples in the order of their keys' hashes
            if row in found:
                by_group[chosen.group[row]].append(found[row])
        not_read = "; ".join(dict.fromkeys(reasons)) or None
        if not_read is not None:
            log.info("values not read: %s", not_read)
        return PassOutput(shared=ValueSamples(tuple(tuple(samples) for samples in by_group), not_read))

