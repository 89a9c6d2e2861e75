"""RuleContext: what rules read, with per-key features computed once, on first use."""


import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import kernels
from ..cached import cached_property
from ..keyspace.columns import dictionary_codes
from ..keyspace.grouping import bincount, example_positions
from ..libraries import recognize
from ..patterns.text import PLACEHOLDER
from . import keybytes
from .base import NeedsEveryKey, PatternHit
from .cluster import node_slots, recorded_slots
from .hashtags import HashTags


class RuleContext:
    """The keys of one dump, grouped by pattern, as rules see them.

    Attributes:
        columns: the :class:`~rdbscope.keyspace.columns.KeyColumns` of the analysis.
        groups: the :class:`~rdbscope.passes.pattern_groups.PatternGroups` of
            the patterns pass: a group per (db, pattern), a group id per key.
        info: the :class:`~rdbscope.DumpInfo` of the dump (the first, for several).
        sources: a :class:`~rdbscope.sources.SourceSummary` per dump when the
            keys come from several (a cluster's nodes), else empty.
        n_examples: example keys per finding.
        source_index: of keys that are a chunk of one dump of several, that dump's position
            among them (they are told apart by ``sources`` once merged).
        sums: ``{rule code: pattern sums}`` of a bounded run (see ``Rule.bounded``), merged over
            its chunks; None: each rule's sums are taken from the keys here, when it asks.

    In a bounded run the context holds only some keys (``n_rows`` of ``n_keys``): what
    is per pattern or per slot counts every key, what is per row counts those kept.
    """

    def __init__(self, columns, groups, info, n_examples=3, sources=(), sums=None, source_index=None):
        self.columns = columns
        self.groups = groups
        self.info = info
        self.sources = tuple(sources) if len(sources) > 1 else ()
        self.n_examples = n_examples
        self._sums = sums
        self.source_index = source_index
        self._masks = {}
        self._codes = {}

    @property
    def n_keys(self):
        """Keys of the dump (of every dump, for several)."""
        return self.columns.n_keys

    @property
    def n_rows(self):
        """Keys held here: ``n_keys``, except in a bounded run."""
        return self.columns.n

    @property
    def memory_total(self):
        """Memory of every key (see ``memory_basis``)."""
        return self.columns.memory_total

    def sums(self, rule, options):
        """The ``pattern_sums`` of ``rule`` over every key."""
        if self._sums is None:
            return rule.pattern_sums(self, options)
        if rule.code not in self._sums:
            raise NeedsEveryKey
        return self._sums[rule.code]

    @property
    def memory_basis(self):
        return self.columns.memory_basis

    @property
    def memory(self):
        """Memory per key (uint64): estimates, or sizes in the dump (see ``memory_basis``)."""
        return self.columns.memory

    @cached_property
    def has_memory_estimates(self):
        return self.memory_basis == "est_memory_bytes"

    # ------------------------------------------------------------ per pattern

    @property
    def _stats(self):
        """The patterns pass's measures of the groups, when it ran (None in a lint-only run)."""
        return getattr(self.groups, "stats", None)

    @cached_property
    def pattern_n_keys(self):
        return np.asarray(self.groups.n_keys, np.int64)

    @cached_property
    def pattern_memory(self):
        if self._stats is not None:
            return self._stats.memory.sums.astype(np.int64)
        return np.rint(bincount(self.groups.group, self.groups.n, self.memory)).astype(np.int64)

    @cached_property
    def _pattern_examples(self):
        """Example rows of every pattern, from the first keys and an even sample of the rest;
        patterns the sample misses take theirs from one pass over the group ids."""
        if self._stats is not None:
            return self._stats.example_offsets, self._stats.example_rows
        group, n = self.groups.group, self.n_rows
        head = min(n, EXAMPLE_SAMPLE_ROWS)
        rows = np.concatenate((np.arange(head), np.arange(head, n, max(1, (n - head) // EXAMPLE_SAMPLE_ROWS))))
        seen = np.zeros(self.groups.n, bool)
        seen[group[rows]] = True
        if not seen.all():
            rows = np.union1d(rows, np.flatnonzero(~seen[group]))
        return example_positions(group[rows], self.groups.n, self.n_examples, positions=rows)

    def pattern_hit(self, g):
        """All keys of pattern group ``g`` as one :class:`PatternHit`."""
        offsets, rows = self._pattern_examples
        return PatternHit(
            group=int(g), db=int(self.groups.db[g]), pattern=self.groups.pattern[g],
            n_keys=int(self.pattern_n_keys[g]), memory_bytes=int(self.pattern_memory[g]),
            n_pattern_keys=int(self.pattern_n_keys[g]),
            examples=tuple(self.columns.key_text(rows[offsets[g]:offsets[g + 1]])),
        )

    def hits(self, rows):
        """The keys at ``rows`` (ascending positions, or a bool mask per key) grouped by pattern.

        Returns one :class:`PatternHit` per pattern that has any of them, in
        pattern-group order.
        """
        rows = np.asarray(rows)
        if rows.dtype == bool:
            rows = np.flatnonzero(rows)
        if len(rows) == 0:
            return []
        group = self.groups.group[rows]
        n_groups = self.groups.n
        n = np.bincount(group, minlength=n_groups)
        memory = _sums(group, self.memory[rows], n_groups)
        offsets, example_rows = example_positions(group, n_groups, self.n_examples, positions=rows)
        texts = self.columns.key_text(example_rows)
        hits = []
        for g in np.flatnonzero(n):
            hits.append(PatternHit(
                group=int(g), db=int(self.groups.db[g]), pattern=self.groups.pattern[g],
                n_keys=int(n[g]), memory_bytes=int(memory[g]), n_pattern_keys=int(self.pattern_n_keys[g]),
                examples=tuple(texts[offsets[g]:offsets[g + 1]]),
            ))
        return hits

    def per_pattern_max(self, rows, values):
        """The largest of ``values`` (one per row of ``rows``) in each pattern group (int64)."""
        out = np.zeros(self.groups.n, np.int64)
        if len(rows):
            group = self.groups.group[rows]
            order = np.lexsort((values, group))
            last = np.concatenate((np.flatnonzero(np.diff(group[order])), [len(order) - 1]))
            out[group[order][last]] = np.asarray(values)[order][last]
        return out

    def per_pattern_sum(self, rows, values):
        """The sum of ``values`` (one per row of ``rows``) in each pattern group (int64)."""
        return _sums(self.groups.group[rows], values, self.groups.n)

    # ------------------------------------------------------------ per key

    @cached_property
    def _buffers(self):
        return keybytes.key_buffers(self.columns.keys)

    @cached_property
    def key_bytes(self):
        """Length of each key in bytes (int32)."""
        offsets, _data = self._buffers
        return np.diff(offsets).astype(np.int32, copy=False)

    def rows_with_key_bytes_over(self, limit, chunk=1 << 20):
        """Rows of the keys longer than ``limit`` bytes (ascending), measured a chunk at a time
        unless every key's length is known: no column of lengths for every key."""
        if "key_bytes" in self.__dict__:
            return np.flatnonzero(self.key_bytes > limit)
        offsets, _data = self._buffers
        parts = [start + np.flatnonzero(np.diff(offsets[start:start + chunk + 1]) > limit)
                 for start in range(0, len(offsets) - 1, chunk)]
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)

    @property
    def key_offsets(self):
        """Where each key's bytes start, and the last one's end (int32, one more than the keys)."""
        return self._buffers[0]

    def key_bytes_at(self, rows):
        """Length in bytes (int32) of the keys at ``rows`` (``slice(None)``: every key), without measuring
        every key."""
        if "key_bytes" in self.__dict__:
            return self.key_bytes[rows]
        offsets, _data = self._buffers
        if isinstance(rows, slice):
            return np.diff(offsets).astype(np.int32)
        return (offsets[rows + 1] - offsets[rows]).astype(np.int32, copy=False)

    @cached_property
    def read_groups(self):
        """Pattern groups whose keys must be read byte by byte: their pattern has a placeholder
        of :data:`OPAQUE_PLACEHOLDERS`, or escaped non-UTF-8 bytes. Elsewhere the pattern's
        fixed text is every key's text, and its placeholders hold only digits, letters,
        ``-``, ``.`` and ``:`` (``{email}`` an ``@``)."""
        return np.array([any(p in pattern for p in OPAQUE_PLACEHOLDERS) or "\\" in pattern
                         for pattern in self.groups.pattern], bool)

    @cached_property
    def pattern_flags(self):
        """Per pattern group, the byte classes of its fixed text (``{email}`` counts as an ``@``)."""
        return np.array([keybytes.text_flags(PLACEHOLDER.sub(_stand_in, pattern))
                         for pattern in self.groups.pattern], np.uint8).reshape(-1)

    @cached_property
    def key_flags(self):
        """Per key, the OR of :mod:`~rdbscope.rules.keybytes` classes of its bytes.

        Taken from the pattern where the pattern fixes the key's characters, read
        from the key bytes for the groups of :attr:`read_groups`.
        """
        group = self.groups.group
        flags = self.pattern_flags[group] if self.groups.n else np.zeros(self.n_rows, np.uint8)
        rows = np.flatnonzero(self.read_groups[group]) if self.read_groups.any() else np.zeros(0, np.int64)
        if len(rows) > self.n_rows // 2:
            flags[rows] = keybytes.key_flags(*self._buffers)[rows]
        elif len(rows):
            flags[rows] = keybytes.flags_of_rows(*self._buffers, rows)
        return flags

    def rows_with(self, flag):
        """Positions of the keys having a byte of class ``flag``."""
        if not (self.pattern_flags & flag).any() and not self.read_groups.any():
            return np.zeros(0, np.int64)
        return np.flatnonzero(self.key_flags & flag)

    def not_utf8_text(self, rows):
        """For keys ``rows``: True where the bytes are not UTF-8 text (see keybytes)."""
        return keybytes.not_utf8_text(*self._buffers, rows)

    def spoofing_text(self, rows):
        """For keys ``rows``: True where a character reorders or hides text (see keybytes)."""
        return keybytes.spoofing_text(*self._buffers, rows)

    def match_keys(self, rows, regex):
        """For keys ``rows``: True where ``regex`` (RE2 syntax) matches somewhere in the key."""
        if len(rows) == 0:
            return np.zeros(0, bool)
        keys = self.columns.keys.take(pa.array(rows, pa.int64()))
        return pc.match_substring_regex(keys, regex).to_numpy(zero_copy_only=False)

    @cached_property
    def slots(self):
        """The Redis Cluster hash slot of each key (uint16 numpy)."""
        return self.columns.slots

    @property
    def slot_keys(self):
        """Keys per hash slot (16384 int64)."""
        return self.columns.slot_keys

    @property
    def slot_memory(self):
        """Memory per hash slot (16384 float64)."""
        return self.columns.slot_memory

    @cached_property
    def node_slots(self):
        """The :class:`~rdbscope.rules.cluster.NodeSlots` of the node the dump came from, or None
        (None for several dumps: see :attr:`source_node_slots`)."""
        if self.sources:
            return None
        return node_slots(self.info, self.slot_keys, self.columns.db)

    @cached_property
    def source_node_slots(self):
        """Per dump of several, its :class:`~rdbscope.rules.cluster.NodeSlots`, or None where it is not a node's."""
        return tuple(node_slots(s.info, s.slot_keys, s.dbs) for s in self.sources)

    @cached_property
    def source_of_row(self):
        """Per key, the index in :attr:`sources` of the dump it came from (zeros for one dump)."""
        if not self.sources:
            return np.zeros(self.n_rows, np.int16)
        codes, names = dictionary_codes(self.columns.table["source"])
        order = {s.path: i for i, s in enumerate(self.sources)}
        return np.array([order[name] for name in names], np.int16)[codes] if len(names) else codes

    @cached_property
    def recorded_slots(self):
        """``[(slot, keys, expires)]`` the dump (every dump, for several) records about its slots."""
        infos = [s.info for s in self.sources] or [self.info]
        return [record for info in infos for record in recorded_slots(info)]

    @cached_property
    def hash_tags(self):
        """The hash tags of the keys (see :class:`~rdbscope.rules.hashtags.HashTags`)."""
        return HashTags.find(*self._buffers, self.rows_with(keybytes.BRACE))

    def column(self, name, dtype):
        """A keys-table column as numpy of ``dtype``, nulls as 0."""
        column = self.columns.table[name]
        if column.null_count:
            column = pc.fill_null(column, 0)
        return np.asarray(column.to_numpy(), dtype)

    @cached_property
    def max_element_bytes(self):
        """Largest element per key (uint64; 0 where unknown)."""
        return self.column("max_element_bytes", np.uint64)

    @property
    def n_elements(self):
        """Elements per key (uint64; 0 where unknown)."""
        return self.columns.n_elements

    def has_any(self, type_name, *encodings):
        """Whether some key has type ``type_name`` and one of ``encodings``: read from the
        (type, encoding) pairs the dump holds, so rules skip what it does not."""
        return any(t == type_name and e in encodings for t, e in self.columns.type_encodings[1])

    def has_any_type(self, type_name):
        """Whether some key has type ``type_name``."""
        return any(t == type_name for t, _e in self.columns.type_encodings[1])

    def rows_of(self, type_name, encoding):
        """Rows of the keys of ``type_name`` in ``encoding`` (none read when the dump has none)."""
        if not self.has_any(type_name, encoding):
            return np.zeros(0, np.int64)
        return np.flatnonzero(self.type_mask(type_name) & self.encoding_mask(encoding))

    def type_mask(self, *names):
        """True for keys whose type is one of ``names``."""
        return self._mask("type", names)

    def encoding_mask(self, *names):
        """True for keys whose encoding is one of ``names``."""
        return self._mask("encoding", names)

    def type_codes(self, *names):
        """``(codes, wanted)``: a small-int code per key for its type, and per code whether it is one of
        ``names`` (for kernels that test each key's type themselves, with no mask of every key)."""
        codes, all_names = self._column_codes("type")
        return codes, np.array([name in names for name in all_names] or [False], bool)

    def _column_codes(self, column):
        if column not in self._codes:
            self._codes[column] = _small_codes(self.columns.table[column])
        return self._codes[column]

    def _mask(self, column, names):
        key = (column, tuple(sorted(names)))
        if key not in self._masks:
            codes, all_names = self._column_codes(column)
            chosen = [i for i, name in enumerate(all_names) if name in names]
            if not chosen:
                mask = np.zeros(len(codes), bool)
            elif len(chosen) == len(all_names):  # every key: a read-only view of one True, no pages
                mask = np.broadcast_to(np.True_, len(codes))
            else:  # a comparison per name beats np.isin on millions of small codes
                mask = codes == chosen[0]
                for code in chosen[1:]:
                    mask |= codes == code
            self._masks[key] = mask
        return self._masks[key]

    def pattern_count(self, mask):
        """How many keys of each pattern group ``mask`` (bool per key) selects (int64)."""
        selected = int(np.count_nonzero(mask))
        if self.n_rows != self.n_keys:
            raise NeedsEveryKey
        if selected == self.n_keys:
            return self.pattern_n_keys.copy()
        if selected == 0:
            return np.zeros(self.groups.n, np.int64)
        return kernels.count_where(self.groups.group, mask, self.groups.n)

    @cached_property
    def pattern_types(self):
        """The types present in each pattern group, as lists of names."""
        if self._stats is not None:  # counted per (type, encoding) for every key
            pairs = self.columns.type_encodings[1]
            types = [[] for _ in range(self.groups.n)]
            for g, j in zip(*np.nonzero(self._stats.kinds), strict=True):
                if pairs[j][0] not in types[g]:
                    types[g].append(pairs[j][0])
            return types
        codes, names = _small_codes(self.columns.table["type"])
        types = [[] for _ in range(self.groups.n)]
        if len(names):
            pairs = self.groups.group.astype(np.int64) * len(names) + codes
            for pair in np.flatnonzero(np.bincount(pairs, minlength=self.groups.n * len(names))).tolist():
                types[pair // len(names)].append(names[pair % len(names)])
        return types

    @cached_property
    def owners(self):
        """The library that owns each pattern group (:class:`~rdbscope.libraries.Recognized`), or None."""
        offsets, rows = self._pattern_examples
        texts = list(self.columns.key_text(rows))
        examples = [texts[offsets[g]:offsets[g + 1]] for g in range(self.groups.n)]
        return recognize([int(d) for d in self.groups.db], list(self.groups.pattern), self.pattern_types, examples)

    @cached_property
    def pattern_n_with_ttl(self):
        if self._stats is not None:
            return np.asarray(self._stats.n_with_ttl, np.int64)
        return self.pattern_count(self.columns.has_ttl)


#: Rows read for pattern examples: the first ones, and about as many spread over the rest.
EXAMPLE_SAMPLE_ROWS = 1 << 20

#: Placeholders whose values can hold characters the rules look for: anything ({*}),
#: "/" (base64, dates written 2024/05/01) or a space (date-times).
OPAQUE_PLACEHOLDERS = ("{*}", "{b64}", "{ts}", "{date}")


def _stand_in(match):
    return "@" if match.group(0) == "{email}" else ""


def _small_codes(column):
    """``(codes, names)`` of a dictionary (or string) column: a small integer code per row into ``names``.

    The scanner's batches share one dictionary, whose indices are the codes;
    chunks with other dictionaries are mapped onto one list of names.
    """
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    chunks = [c if pa.types.is_dictionary(c.type) else c.dictionary_encode() for c in chunks]
    if not chunks:
        return np.zeros(0, np.int16), ()
    indices = [(c.indices.fill_null(0) if c.indices.null_count else c.indices).to_numpy(zero_copy_only=False)
               for c in chunks]
    first = chunks[0].dictionary
    if all(c.dictionary is first or c.dictionary.equals(first) for c in chunks[1:]):
        return np.concatenate(indices), tuple(first.to_pylist())
    names = {}
    parts = []
    for chunk, local in zip(chunks, indices, strict=True):
        remap = np.array([names.setdefault(n, len(names)) for n in chunk.dictionary.to_pylist()] or [0], np.int16)
        parts.append(remap[local])
    return np.concatenate(parts), tuple(names)


def _sums(group, values, n_groups):
    """Sum of ``values`` per group as int64 (exact below 2**53 bytes per group)."""
    return np.rint(np.bincount(group, weights=np.asarray(values, np.float64), minlength=n_groups)).astype(np.int64)
