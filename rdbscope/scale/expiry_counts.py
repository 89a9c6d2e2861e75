"""What the expiry pass needs of a bounded run's keys, counted chunk by chunk and merged.

Of the keys that expire after the dump's ctime, two tallies:

* per (group, second): keys, memory and the first rows with their keys. The windows, the
  incidents (their keys, memory, bounds and examples) and the timeline come from these
  exactly. They grow with the distinct (pattern, second) pairs, as the in-memory pass's
  counts do, not with the keys.
* per (group, millisecond): the same, for the batches of EXP003. A batch is every key of
  one millisecond wherever it lies in the dump, and a uniform spread of expiries has about
  as many distinct milliseconds as keys, so this tally goes to disk: each chunk's, cut into
  :data:`PARTITIONS` files by millisecond, read back a partition at a time at the end and
  only for the seconds that hold a batch's worth of keys (see :class:`Spill`).
"""

import os
import shutil
import tempfile
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..passes.expiry import FAR_FUTURE_MS, Batches, Members, Runs

#: Example rows kept per (group, second) and per (group, millisecond): the incidents' and
#: batches' examples are the first rows of their keys.
EXAMPLES = 3

#: Files the millisecond tally is cut into: every key of one millisecond is in the same one.
PARTITIONS = 32

_EXAMPLE_SCHEMA = pa.schema([("group", pa.int64()), ("value", pa.int64()), ("row", pa.uint64()),
                             ("key", pa.binary())])
_SPILL_SCHEMA = pa.schema([("group", pa.int32()), ("value", pa.int64()), ("count", pa.int64()),
                           ("memory", pa.uint64()), ("row", pa.uint64()), ("key", pa.binary())])


@dataclass(frozen=True)
class Tally:
    """Keys per (group, value), sorted by group then value, with the first rows of each.

    Attributes:
        group, value: int64 per entry (value: an epoch second or millisecond).
        count: keys of each entry (int64); memory: their memory (uint64).
        examples: ``group, value, row, key`` of the first :data:`EXAMPLES` rows of each entry,
            sorted by group, value and row.
    """

    group: np.ndarray
    value: np.ndarray
    count: np.ndarray
    memory: np.ndarray
    examples: pa.Table

    @classmethod
    def empty(cls):
        nothing = np.zeros(0, np.int64)
        return cls(nothing, nothing, nothing, np.zeros(0, np.uint64), _EXAMPLE_SCHEMA.empty_table())

    @classmethod
    def of_keys(cls, group, value, memory, rows, keys, first_row=0, held=None):
        """The tally of keys: a group, value, memory and row (ascending) each; ``keys`` holds the key at
        each row (a BinaryArray), and the rows are numbered from ``first_row`` in the tally.

        ``held``: per key, how many example rows of its entry a tally of earlier rows holds
        already; only the rest are taken.
        """
        if len(group) == 0:
            return cls.empty()
        order = _order(group, value)
        group, value = group[order], value[order]
        starts = _starts(group, value)
        count = np.diff(np.append(starts, len(group)))
        rank = np.arange(len(group)) - np.repeat(starts, count)
        wanted = rank < (EXAMPLES if held is None else EXAMPLES - held[order])
        first = order[wanted]
        examples = pa.table([pa.array(group[wanted]), pa.array(value[wanted]),
                             pa.array(np.asarray(rows, np.uint64)[first] + np.uint64(first_row)),
                             keys.take(pa.array(np.asarray(rows)[first], pa.int64()))], schema=_EXAMPLE_SCHEMA)
        summed = np.add.reduceat(np.asarray(memory, np.uint64)[order], starts)
        return cls(group[starts], value[starts], count, summed.astype(np.uint64), examples)

    def __len__(self):
        return len(self.count)

    @classmethod
    def merge(cls, parts, in_row_order=True):
        """One tally of ``(tally, new group of each of its groups)`` parts; equal (group, value) entries add up.

        ``in_row_order``: every row of a part comes before the rows of the parts after it (chunks
        read one after another), so the first rows of an entry are those of its first parts.
        """
        parts = [(t, np.asarray(ids, np.int64)) for t, ids in parts if len(t)]
        if not parts:
            return cls.empty()
        if len(parts) == 1 and np.array_equal(parts[0][1][parts[0][0].group], parts[0][0].group):
            return parts[0][0]
        group = np.concatenate([ids[t.group] for t, ids in parts])
        value = np.concatenate([t.value for t, _ids in parts])
        order = _order(group, value)
        group, value = group[order], value[order]
        starts = _starts(group, value)
        count = np.add.reduceat(np.concatenate([t.count for t, _ids in parts])[order], starts)
        memory = np.add.reduceat(np.concatenate([t.memory for t, _ids in parts])[order], starts)
        examples = _first_examples(pa.concat_tables([_renumbered(t.examples, ids) for t, ids in parts]),
                                   in_row_order)
        return cls(group[starts], value[starts], count.astype(np.int64), memory.astype(np.uint64), examples)

    def renumbered(self, new_group, in_row_order=True):
        """The tally with group ``g`` called ``new_group[g]`` (groups given one number are added up)."""
        return Tally.merge([(self, new_group)], in_row_order)

    def with_rows_from(self, offset):
        """The tally with its example rows numbered from ``offset`` on (a dump read after others)."""
        row = self.examples["row"].to_numpy() + np.uint64(offset)
        return Tally(self.group, self.value, self.count, self.memory,
                     self.examples.set_column(2, "row", pa.array(row, pa.uint64())))


def _renumbered(examples, ids):
    group = ids[examples["group"].to_numpy()] if examples.num_rows else np.zeros(0, np.int64)
    return examples.set_column(0, "group", pa.array(group, pa.int64()))


def _first_examples(examples, in_row_order):
    """The first :data:`EXAMPLES` rows of each (group, value) of ``examples``, sorted."""
    if examples.num_rows == 0:
        return examples
    group, value = examples["group"].to_numpy(), examples["value"].to_numpy()
    row = examples["row"].to_numpy()
    order = _order(group, value) if in_row_order else np.lexsort((row, value, group))
    group, value = group[order], value[order]
    starts = _starts(group, value)
    rank = np.arange(len(group)) - np.repeat(starts, np.diff(np.append(starts, len(group))))
    return examples.take(pa.array(order[rank < EXAMPLES], pa.int64()))


def _order(group, value):
    """The order that sorts entries by group, then value, keeping the given order of equal ones.

    Parts that are sorted already make a stable sort of their concatenation fast.
    """
    if len(group) == 0:
        return np.zeros(0, np.int64)
    low = int(value.min())
    value_bits = max(1, (int(value.max()) - low).bit_length())
    group_bits = max(1, int(group.max()).bit_length())
    if value_bits + group_bits <= 63:
        combined = (group.astype(np.int64) << value_bits) | (value - low)
        return np.argsort(combined, kind="stable")
    return np.lexsort((value, group))


def _starts(group, value):
    """Where each run of equal (group, value) begins in sorted arrays."""
    return np.flatnonzero(_starts_mask(group, value))


def _starts_mask(group, value):
    change = np.empty(len(group), bool)
    change[:1] = True
    np.not_equal(group[1:], group[:-1], out=change[1:])
    change[1:] |= value[1:] != value[:-1]
    return change


@dataclass(frozen=True)
class SpillSegment:
    """The millisecond tallies one process wrote: a file per partition, and the (db, pattern) of
    each group number in them (the chunks' patterns). ``buffers`` replace the files when the
    segment travels to another machine (see :meth:`inline`)."""

    paths: tuple
    groups: tuple
    buffers: tuple = ()
    row_offset: int = 0

    def inline(self):
        """The segment with its files read into memory and removed: for a Dask worker whose disk the
        client may not reach."""
        buffers = []
        for path in self.paths:
            with open(path, "rb") as file:
                buffers.append(file.read())
            os.unlink(path)
        shutil.rmtree(os.path.dirname(self.paths[0]), ignore_errors=True) if self.paths else None
        return SpillSegment((), self.groups, tuple(buffers), self.row_offset)

    def partition(self, index):
        """The record batches of partition ``index``."""
        if self.buffers:
            source = pa.BufferReader(self.buffers[index])
        elif self.paths:
            source = pa.memory_map(self.paths[index])
        else:
            return []
        with pa.ipc.open_stream(source) as reader:
            return list(reader)


class Spill:
    """Writes the millisecond tallies of one process's chunks under ``directory``.

    Each chunk's tally names its groups by number; the spill numbers (db, pattern) pairs once
    for all its chunks, so that the records of every chunk read back through one table.
    """

    def __init__(self, directory):
        os.makedirs(directory, exist_ok=True)
        self.directory = tempfile.mkdtemp(prefix="part-", dir=directory)
        self._numbers = {}
        self._writers = None
        self.paths = tuple(os.path.join(self.directory, f"{i:02d}.arrows") for i in range(PARTITIONS))

    def write(self, tally, groups):
        """Add a chunk's millisecond ``tally``, whose group ``g`` is ``groups[g]`` = (db, pattern)."""
        if len(tally) == 0:
            return
        number = np.array([self._numbers.setdefault(g, len(self._numbers)) for g in groups], np.int32)
        examples = tally.examples
        # one record per example row (examples and entries are sorted alike); the entry's count
        # and memory go with its first
        first = _starts_mask(examples["group"].to_numpy(), examples["value"].to_numpy())
        entry = np.cumsum(first) - 1
        records = pa.table([
            pa.array(number[tally.group[entry]], pa.int32()), pa.array(tally.value[entry], pa.int64()),
            pa.array(np.where(first, tally.count[entry], 0), pa.int64()),
            pa.array(np.where(first, tally.memory[entry], np.uint64(0)), pa.uint64()),
            examples["row"], examples["key"]], schema=_SPILL_SCHEMA)
        part = tally.value[entry] % PARTITIONS
        order = np.argsort(part, kind="stable")
        bounds = np.searchsorted(part[order], np.arange(PARTITIONS + 1))
        records = records.take(pa.array(order, pa.int64()))
        if self._writers is None:
            self._writers = [pa.ipc.new_stream(path, _SPILL_SCHEMA) for path in self.paths]
        for i, writer in enumerate(self._writers):
            if bounds[i + 1] > bounds[i]:
                writer.write_table(records.slice(bounds[i], bounds[i + 1] - bounds[i]))

    def close(self):
        """The :class:`SpillSegment` of what was written (none when nothing was)."""
        if self._writers is None:
            shutil.rmtree(self.directory, ignore_errors=True)
            return None
        for writer in self._writers:
            writer.close()
        self._writers = None
        return SpillSegment(self.paths, tuple(sorted(self._numbers, key=self._numbers.get)))


def read_partition(segments, index, group_of, keep_second):
    """The millisecond tally of partition ``index`` of ``segments`` in final groups.

    ``group_of``: per segment, the final group of each of its group numbers;
    ``keep_second(group, second)``: which records to read on (a bool per record).
    """
    parts = []
    for segment, groups in zip(segments, group_of, strict=True):
        for batch in segment.partition(index):
            group = groups[batch["group"].to_numpy()]
            value = batch["value"].to_numpy()
            keep = keep_second(group, value // 1000)
            if not keep.any():
                continue
            batch = pa.Table.from_batches([batch]).filter(pa.array(keep))
            if segment.row_offset:
                row = batch["row"].to_numpy() + np.uint64(segment.row_offset)
                batch = batch.set_column(4, "row", pa.array(row, pa.uint64()))
            parts.append(_records_tally(batch, group[keep]))
    if not parts:
        return Tally.empty()
    n_groups = max(int(t.group.max()) for t in parts) + 1
    return Tally.merge([(t, np.arange(n_groups)) for t in parts], in_row_order=False)


def _records_tally(records, group):
    """A :class:`Tally` of spilled records (an example row each; count and memory on an entry's first)."""
    value = records["value"].to_numpy()
    count, memory = records["count"].to_numpy(), records["memory"].to_numpy()
    order = _order(group, value)
    starts = _starts(group[order], value[order])
    examples = pa.table([pa.array(group, pa.int64()), records["value"], records["row"], records["key"]],
                        schema=_EXAMPLE_SCHEMA)
    return Tally(group[order][starts], value[order][starts],
                 np.add.reduceat(count[order], starts).astype(np.int64),
                 np.add.reduceat(memory[order], starts).astype(np.uint64),
                 _first_examples(examples, in_row_order=False))


class HeldExamples:
    """How many example rows the per-second tally of a partial holds per (db, pattern, second): a chunk
    read after that partial's rows need not offer more than the rest (its keys come later)."""

    def __init__(self, groups, tally):
        self._number = {pair: i for i, pair in enumerate(groups)}
        usable = len(tally) and tally.value.min() >= 0 and tally.value.max() < 1 << 34
        self._code = (tally.group << 34) | tally.value if usable else np.zeros(0, np.int64)
        self._held = np.minimum(tally.count, EXAMPLES)

    def of_keys(self, pairs, group, second):
        """Examples held for each key of a chunk (its group ``group`` of the chunk's ``pairs``, ``second``)."""
        if len(self._code) == 0 or len(group) == 0 or second.min() < 0 or second.max() >= 1 << 34:
            return None
        number = np.array([self._number.get(pair, -1) for pair in pairs], np.int64)[group]
        code = (number << 34) | second
        at = np.minimum(np.searchsorted(self._code, code), len(self._code) - 1)
        return np.where((number >= 0) & (self._code[at] == code), self._held[at], 0)


def tally_chunk(columns, group, first_row, spill=None, groups=(), held=None):
    """The per-second :class:`Tally` of a chunk's expiring keys (``columns``, a group per key, rows from
    ``first_row``); their per-millisecond tally goes to ``spill`` (``groups``: the chunk's (db, pattern)
    pairs). ``held``: the :class:`HeldExamples` of the rows before."""
    expire, rows = columns.ttl_expire_ms, columns.ttl_rows
    ctime = columns.ctime_ms
    if ctime is not None and len(rows):
        keep = (expire >= ctime) & (expire - (ctime - ctime % 1000) < FAR_FUTURE_MS)
        expire, rows = expire[keep], rows[keep]
    if len(rows) == 0:
        return Tally.empty()
    group = np.asarray(group, np.int64)[rows]
    memory = columns.memory[rows]
    keys = columns.keys
    if spill is not None:
        spill.write(Tally.of_keys(group, expire, memory, rows, keys, first_row), groups)
    second = expire // 1000
    taken = held.of_keys(groups, group, second) if held is not None else None
    return Tally.of_keys(group, second, memory, rows, keys, first_row, taken)


class CountedExpiring:
    """The expiring keys as the expiry pass reads them (see ``_Expiring`` in
    :mod:`rdbscope.passes.expiry`), from the merged tallies of a bounded run.

    ``seconds``: the per-second :class:`Tally` in final groups; ``segments``: the spilled
    per-millisecond tallies, and ``group_of`` the final group of each of a segment's group
    numbers; ``ctime_ms``: when the dump was written (None when it does not say: the first
    expiry is the base then, and expiries 2**41 ms past it are left out by the second).
    """

    def __init__(self, seconds, segments, group_of, ctime_ms, n_groups):
        if ctime_ms is not None:
            self.base_ms = ctime_ms - ctime_ms % 1000
        else:
            self.base_ms = int(seconds.value.min()) * 1000 if len(seconds) else 0
            far = (seconds.value - self.base_ms // 1000) * 1000 >= FAR_FUTURE_MS
            if far.any():
                seconds = Tally.merge([(_where(seconds, ~far), np.arange(n_groups))])
        self.base_s = self.base_ms // 1000
        self._tally = seconds
        self._segments, self._group_of = segments, group_of
        self.n_groups = n_groups
        self.n = int(seconds.count.sum())
        self.n_per_group = np.bincount(seconds.group, weights=seconds.count, minlength=n_groups).astype(np.int64)
        offset = seconds.value - self.base_s
        self.seconds = Runs(seconds.group, offset, seconds.count)
        self._code = (seconds.group << 32) | offset
        examples = seconds.examples
        self._example_code = (examples["group"].to_numpy() << 32) | (examples["value"].to_numpy() - self.base_s)
        self._batch_examples = {}

    def members(self, spans, whole_dump=False):
        """See ``_Expiring.members``."""
        tally, examples = self._tally, self._tally.examples
        found = []
        for group, start_s, end_s in spans:
            if whole_dump:
                entries = np.flatnonzero((tally.value >= start_s) & (tally.value < end_s))
                value = examples["value"].to_numpy()
                rows = np.flatnonzero((value >= start_s) & (value < end_s))
            else:
                low, high = ((group << 32) | (start_s - self.base_s)), ((group << 32) | (end_s - self.base_s))
                entries = np.arange(*np.searchsorted(self._code, [low, high]))
                rows = np.arange(*np.searchsorted(self._example_code, [low, high]))
            seconds = tally.value[entries]
            found.append(Members(int(tally.count[entries].sum()), int(tally.memory[entries].sum()),
                                 int(seconds.min()), int(seconds.max()) + 1, _first_texts(examples, rows)))
        return found

    def group_counts(self, start_s, end_s):
        """See ``_Expiring.group_counts``."""
        inside = (self._tally.value >= start_s) & (self._tally.value < end_s)
        return np.bincount(self._tally.group[inside], weights=self._tally.count[inside],
                           minlength=self.n_groups).astype(np.int64)

    def batches(self, min_keys):
        """See ``_Expiring.batches``: the spilled milliseconds are read a partition at a time, and
        only those of the seconds that hold ``min_keys`` keys of a group."""
        busy = np.flatnonzero(self._tally.count >= min_keys)
        if len(busy) == 0:
            return Batches.empty()
        busy_code = self._code[busy]

        def in_busy_second(group, second):
            code = (group.astype(np.int64) << 32) | (second - self.base_s)
            at = np.minimum(np.searchsorted(busy_code, code), len(busy_code) - 1)
            return busy_code[at] == code

        parts, self._batch_examples = [], {}
        for index in range(PARTITIONS):
            tally = read_partition(self._segments, index, self._group_of, in_busy_second)
            batch = np.flatnonzero(tally.count >= min_keys)
            if len(batch) == 0:
                continue
            parts.append((tally.group[batch], tally.value[batch], tally.count[batch], tally.memory[batch]))
            examples = tally.examples
            value = examples["value"].to_numpy()
            code = examples["group"].to_numpy()
            for g, v in zip(tally.group[batch].tolist(), tally.value[batch].tolist(), strict=True):
                self._batch_examples[g, v] = _first_texts(examples, np.flatnonzero((code == g) & (value == v)))
        if not parts:
            return Batches.empty()
        group, value, count, memory = (np.concatenate(column) for column in zip(*parts, strict=True))
        order = np.lexsort((value, group))
        return Batches(group[order], value[order] - self.base_ms, count[order], memory[order].astype(np.int64))

    def batch_examples(self, group, instant, k=EXAMPLES):
        """See ``_Expiring.batch_examples`` (of batches :meth:`batches` found)."""
        return {int(g): list(self._batch_examples[int(g), int(i) + self.base_ms][:k])
                for g, i in zip(group, instant, strict=True)}


def _where(tally, keep):
    """The entries of ``tally`` where ``keep`` holds, with their examples."""
    code = tally.group[keep] << 32 | (tally.value[keep] - int(tally.value.min()))
    examples = tally.examples
    example_code = examples["group"].to_numpy() << 32 | (examples["value"].to_numpy() - int(tally.value.min()))
    at = np.minimum(np.searchsorted(code, example_code), max(len(code) - 1, 0))
    kept = examples.filter(pa.array(code[at] == example_code)) if len(code) else examples.slice(0, 0)
    return Tally(tally.group[keep], tally.value[keep], tally.count[keep], tally.memory[keep], kept)


def _first_texts(examples, rows, k=EXAMPLES):
    """The keys of the ``k`` lowest rows among ``examples`` at ``rows``, as text (``\\xNN`` for non-UTF-8)."""
    if len(rows) == 0:
        return ()
    row = examples["row"].to_numpy()[rows]
    chosen = rows[np.argsort(row, kind="stable")[:k]]
    return tuple(key.decode("utf-8", "backslashreplace")
                 for key in examples["key"].take(pa.array(chosen, pa.int64())).to_pylist())
