"""RuleContext: what rules read, with per-key features computed once, on first use."""

import functools

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..passes.grouping import example_positions
from ..rdb.cluster import key_slots
from . import keybytes
from .base import PatternHit
from .hashtags import HashTags


class RuleContext:
    """The keys of one dump, grouped by pattern, as rules see them.

    Attributes:
        columns: the :class:`~rdbscope.passes.columns.KeyColumns` of the analysis.
        groups: the :class:`~rdbscope.passes.pattern_groups.PatternGroups` of
            the patterns pass: a group per (db, pattern), a group id per key.
        info: the :class:`~rdbscope.DumpInfo` of the dump.
        n_examples: example keys per finding.
    """

    def __init__(self, columns, groups, info, n_examples=3):
        self.columns = columns
        self.groups = groups
        self.info = info
        self.n_examples = n_examples

    @property
    def n_keys(self):
        return self.columns.n

    @property
    def memory_basis(self):
        return self.columns.memory_basis

    @property
    def memory(self):
        """Memory per key (uint64): estimates, or sizes in the dump (see ``memory_basis``)."""
        return self.columns.memory

    @functools.cached_property
    def has_memory_estimates(self):
        return self.memory_basis == "est_memory_bytes"

    # ------------------------------------------------------------ per pattern

    @functools.cached_property
    def pattern_n_keys(self):
        return np.bincount(self.groups.group, minlength=self.groups.n).astype(np.int64)

    @functools.cached_property
    def pattern_memory(self):
        if self.groups.memory is not None:
            return self.groups.memory.sums().astype(np.int64)
        return _sums(self.groups.group, self.memory, self.groups.n)

    @functools.cached_property
    def _pattern_examples(self):
        return example_positions(self.groups.group, self.groups.n, self.n_examples)

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

    @functools.cached_property
    def _buffers(self):
        return keybytes.key_buffers(self.columns.keys)

    @functools.cached_property
    def key_bytes(self):
        """Length of each key in bytes (int64)."""
        return np.diff(self._buffers[0])

    @functools.cached_property
    def key_flags(self):
        """Per key, the OR of :mod:`~rdbscope.rules.keybytes` classes of its bytes."""
        return keybytes.key_flags(*self._buffers)

    def rows_with(self, flag):
        """Positions of the keys having a byte of class ``flag``."""
        return np.flatnonzero(self.key_flags & flag)

    def not_utf8_text(self, rows):
        """For keys ``rows``: True where the bytes are not UTF-8 text (see keybytes)."""
        return keybytes.not_utf8_text(*self._buffers, rows)

    def match_keys(self, rows, regex):
        """For keys ``rows``: True where ``regex`` (RE2 syntax) matches somewhere in the key."""
        if len(rows) == 0:
            return np.zeros(0, bool)
        keys = self.columns.keys.take(pa.array(rows, pa.int64()))
        return pc.match_substring_regex(keys, regex).to_numpy(zero_copy_only=False)

    @functools.cached_property
    def slots(self):
        """The Redis Cluster hash slot of each key (uint16 numpy)."""
        return np.asarray(key_slots(self.columns.keys).to_numpy(zero_copy_only=False), np.uint16)

    @functools.cached_property
    def hash_tags(self):
        """The hash tags of the keys (see :class:`~rdbscope.rules.hashtags.HashTags`)."""
        return HashTags.find(*self._buffers, self.rows_with(keybytes.BRACE))

    def column(self, name, dtype):
        """A keys-table column as numpy of ``dtype``, nulls as 0."""
        column = self.columns.table[name]
        if column.null_count:
            column = pc.fill_null(column, 0)
        return np.asarray(column.to_numpy(), dtype)

    @functools.cached_property
    def max_element_bytes(self):
        return self.column("max_element_bytes", np.int64)

    @functools.cached_property
    def n_elements(self):
        return self.columns.n_elements.astype(np.int64)

    def type_mask(self, *names):
        """True for keys whose type is one of ``names``."""
        return _code_mask(self.columns.types, names)

    def encoding_mask(self, *names):
        """True for keys whose encoding is one of ``names``."""
        return _code_mask(self.columns.encodings, names)


def _code_mask(codes_and_names, wanted):
    codes, names = codes_and_names
    chosen = [i for i, name in enumerate(names) if name in wanted]
    if not chosen:
        return np.zeros(len(codes), bool)
    return np.isin(codes, chosen)


def _sums(group, values, n_groups):
    """Sum of ``values`` per group as int64 (exact below 2**53 bytes per group)."""
    return np.rint(np.bincount(group, weights=np.asarray(values, np.float64), minlength=n_groups)).astype(np.int64)
