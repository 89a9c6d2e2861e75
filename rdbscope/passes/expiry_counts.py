"""The expiry pass's chunk contract: what it needs of the keys, counted chunk by chunk and merged.

Of the keys that expire after the dump's ctime, two tallies:

* per (group, second): keys and memory, in memory. The windows, the incidents (their keys,
  memory and bounds) and the timeline come from these exactly. They grow with the distinct
  (pattern, second) pairs, not with the keys.
* per (group, millisecond): the same, for the batches of EXP003. A batch is every key of
  one millisecond wherever it lies in the dump, and a uniform spread of expiries has about
  as many distinct milliseconds as keys, so the keys go to disk as records (group,
  millisecond, memory, place), cut into :data:`PARTITIONS` files by millisecond, and are
  counted at the end a partition at a time, only those of the seconds that hold a batch's
  worth of keys (see :class:`Spill`).

Examples (the first keys of an incident or a batch) are found at the end in the records, as
places in dump order (where each key's entry starts in its dump). Their keys are then read again
from a plain dump file (a few entries); from any other source, from a log of the expiring keys
that the spill writes beside the records.
"""

import os
import shutil
import tempfile
from dataclasses import dataclass, field, replace

import numpy as np

from .. import kernels
from ..errors import InputError
from ..keyspace.grouping import KEPT_SLOTS_PER_KEY, SlotCounter, merge_counted
from ..keyspace.sorting import stable_order
from ..rdb import keys_at
from ..rdb.cluster import offsets_and_data
from ..rdb.keytext import key_text
from .expiry import FAR_FUTURE_MS, Batches, Members, Runs

#: Examples kept per (group, second) and per (group, millisecond): the incidents' and batches'
#: examples are the first of their keys in dump order.
EXAMPLES = 3

#: Most (group, second) slots of the table that tells which seconds hold a batch's worth of keys
#: (one bit each; past it, a search per record), and most seconds of the one that tells which are
#: in an incident's span (see :func:`_seconds_of`).
DENSE_LOOKUP_SLOTS = 1 << 26

#: Files the millisecond tally is cut into: every key of one millisecond is in the same one.
PARTITIONS = 32

#: Most (group, second) slots a :class:`Spill` counts its keys per second in (16 bytes each), and most
#: per key it has counted: past either, a chunk's keys are tallied apart and the tallies merged.
SECOND_SLOTS = 1 << 22
SECOND_SLOTS_PER_KEY = KEPT_SLOTS_PER_KEY
#: Chunks' tallies kept apart before they are merged into one.
MERGE_APART = 8

#: An example: the entry it belongs to and its key's place.
EXAMPLE = np.dtype([("group", np.int64), ("value", np.int64), ("place", np.uint64)])
#: A spilled record: one per expiring key. ``place``: where the key's entry starts in its dump (its
#: ``offset``); with the segment's ``place_offset``, the order of the keys of several dumps.
RECORD = np.dtype([("group", np.int32), ("value", np.int64), ("memory", np.uint64), ("place", np.uint64)])


@dataclass(frozen=True)
class Tally:
    """Keys per (group, value), sorted by group then value, with the first places of each (when taken).

    Attributes:
        group, value: int64 per entry (value: an epoch second or millisecond).
        count: keys of each entry (int64); memory: their memory (uint64).
        examples: the first :data:`EXAMPLES` places of each entry (:data:`EXAMPLE`), sorted by
            group, value and place.
    """

    group: np.ndarray
    value: np.ndarray
    count: np.ndarray
    memory: np.ndarray
    examples: np.ndarray

    @classmethod
    def empty(cls):
        nothing = np.zeros(0, np.int64)
        return cls(nothing, nothing, nothing, np.zeros(0, np.uint64), np.zeros(0, EXAMPLE))

    @classmethod
    def of_keys(cls, group, value, memory, counter=None):
        """The tally of keys (a group, value and memory each), without examples; ``counter``: the
        :class:`~rdbscope.keyspace.grouping.SlotCounter` to count them with (one is made if None)."""
        if len(group) == 0:
            return cls.empty()
        low = int(value.min())
        span = int(value.max()) - low + 1
        n_groups = int(group.max()) + 1
        if n_groups * span <= KEPT_SLOTS_PER_KEY * len(group):  # a count per slot beats a sort
            counter = counter or SlotCounter()
            group, offset, count, memory = counter.counted_pairs(group, value, memory, n_groups, span, low=low)
            return cls(group, offset + low, count, memory, np.zeros(0, EXAMPLE))
        return cls._sorted(group, value, memory)

    @classmethod
    def _sorted(cls, group, value, memory):
        order = _order(group, value)
        group, value = group[order], value[order]
        starts = _starts(group, value)
        count = np.diff(np.append(starts, len(group)))
        summed = np.add.reduceat(np.asarray(memory, np.uint64)[order], starts)
        return cls(group[starts], value[starts], count, summed.astype(np.uint64), np.zeros(0, EXAMPLE))

    def __len__(self):
        return len(self.count)

    @classmethod
    def merge(cls, parts):
        """One tally of ``(tally, new group of each of its groups)`` parts, tallies without examples (the
        per-second ones); equal (group, value) entries add up."""
        parts = [(t, np.asarray(ids, np.int64)) for t, ids in parts if len(t)]
        if not parts:
            return cls.empty()
        assert not any(len(t.examples) for t, _ids in parts), "only tallies without examples merge"
        if len(parts) == 1 and np.array_equal(parts[0][1][parts[0][0].group], parts[0][0].group):
            return parts[0][0]
        low = min(int(t.value.min()) for t, _ids in parts)  # values as counted from 0
        n_groups = max(int(ids.max()) for _t, ids in parts) + 1
        group, value, count, memory = merge_counted(
            [(t.group, t.value - low, t.count, t.memory, ids) for t, ids in parts], n_groups)
        return cls(group, value.astype(np.int64) + low, count.astype(np.int64), memory, np.zeros(0, EXAMPLE))

    def renumbered(self, new_group):
        """The tally with group ``g`` called ``new_group[g]`` (groups given one number are added up)."""
        return Tally.merge([(self, new_group)])


def _first_examples(examples):
    """The first :data:`EXAMPLES` places of each (group, value) of ``examples``, sorted."""
    if len(examples) == 0:
        return examples
    group, value = examples["group"], examples["value"]
    order = np.lexsort((examples["place"], value, group))
    group, value = group[order], value[order]
    starts = _starts(group, value)
    rank = np.arange(len(group)) - np.repeat(starts, np.diff(np.append(starts, len(group))))
    return examples[order[rank < EXAMPLES]]


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
        return stable_order((group.astype(np.int64) << value_bits) | (value - low))
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
    """What one process spilled: the per-millisecond records, a file per partition, with the
    (db, pattern) of each group number in them (the chunks' patterns), and where its keys are.

    ``dump``: the plain dump file the keys are read again from, as it was when read (``stamp``: its
    size and modification time); else the log of the expiring keys (``keys``: their bytes, ``ends``:
    where each ends in them, int64; ``places``: their places, uint64). ``first``, ``end``: the
    places the records hold lie in ``[first, end)``.

    ``seconds``: the per-second :class:`Tally` of its keys, in its group numbers.

    ``buffers`` replace the files when the segment travels to another machine (see :meth:`inline`);
    ``place_offset`` is added to its places (a dump read after others).
    """

    paths: tuple
    keys: str
    ends: str
    places: str
    groups: tuple
    buffers: tuple = ()
    place_offset: int = 0
    dump: str | None = None
    stamp: tuple = ()
    first: int = 0
    end: int = 0
    seconds: Tally = field(default_factory=Tally.empty)

    def inline(self):
        """The segment with its files read into memory and removed: for a Dask worker whose disk the
        client may not reach."""
        if self.buffers:
            return self
        buffers = []
        for path in (*self.paths, self.keys, self.ends, self.places):
            with open(path, "rb") as file:
                buffers.append(file.read())
        shutil.rmtree(os.path.dirname(self.keys), ignore_errors=True)
        return replace(self, paths=(), keys="", ends="", places="", buffers=tuple(buffers))

    def landed(self, directory):
        """An inlined segment written back to files under ``directory`` (where it arrived), so that what
        the workers of many dumps spilled is not all held in memory at once."""
        if not self.buffers:
            return self
        os.makedirs(directory, exist_ok=True)
        here = tempfile.mkdtemp(prefix="landed-", dir=directory)
        names = [f"{i:02d}.records" for i in range(len(self.buffers) - 3)] + ["keys", "ends", "places"]
        paths = [os.path.join(here, name) for name in names]
        for path, buffer in zip(paths, self.buffers, strict=True):
            with open(path, "wb") as file:
                file.write(buffer)
        return replace(self, paths=tuple(paths[:-3]), keys=paths[-3], ends=paths[-2], places=paths[-1], buffers=())

    def records(self, index):
        """The records of partition ``index`` (:data:`RECORD`), their places counted from the first dump."""
        if self.buffers:
            records = np.frombuffer(self.buffers[index], RECORD)
        elif os.path.getsize(self.paths[index]):  # mapped, not copied: read straight from the page cache
            records = np.memmap(self.paths[index], RECORD, mode="r")
        else:
            return np.zeros(0, RECORD)
        if self.place_offset:
            records = records.copy()
            records["place"] += np.uint64(self.place_offset)
        return records

    def key_texts(self, places):
        """``{place: key text}`` of those of ``places`` (counted from the first dump) that are this segment's."""
        wanted = [place - self.place_offset for place in np.asarray(places).tolist()
                  if self.first <= place - self.place_offset < self.end]
        if not wanted:
            return {}
        if self.dump is not None:
            if _stamp(self.dump) != self.stamp:
                raise InputError(f"{self.dump}: the dump changed while rdbscope was reading it; run again")
            keys = keys_at(self.dump, wanted)
            return {place + self.place_offset: key_text(keys[place]) for place in wanted}
        return self._logged_texts(wanted)

    def _logged_texts(self, wanted):
        if self.buffers:
            keys, ends, logged = (np.frombuffer(b, t) for b, t in zip(self.buffers[-3:], (np.uint8, np.int64,
                                                                                          np.uint64), strict=True))
        else:
            keys, ends, logged = (np.memmap(p, t, "r") if os.path.getsize(p) else np.zeros(0, t)
                                  for p, t in ((self.keys, np.uint8), (self.ends, np.int64), (self.places, np.uint64)))
        found = {}
        if len(logged) == 0:
            return found
        at = np.minimum(np.searchsorted(logged, np.array(wanted, np.uint64)), len(logged) - 1)
        for place, position in zip(wanted, at.tolist(), strict=True):
            if int(logged[position]) == place:
                start = int(ends[position - 1]) if position else 0
                found[place + self.place_offset] = key_text(bytes(keys[start:int(ends[position])]))
        return found


def _stamp(path):
    """What tells a file rewritten since: its size and modification time."""
    status = os.stat(path)
    return status.st_size, status.st_mtime_ns


def places_end(segments):
    """A place after every place of ``segments``: where the places of the next dump's segments begin."""
    return max((s.place_offset + s.end for s in segments), default=0)


#: What one process's spill holds in memory before it writes it to files: a dump with fewer keys
#: with a TTL than this holds (about 2.8 million) never touches the disk.
IN_MEMORY_BYTES = 64 << 20


class SecondCounts:
    """The per-second :class:`Tally` of the keys a spill takes, by group number, counted as they come: in one
    slot per (number, second) of the range seen so far (its keys, then their memory), read back once at
    the end, where a tally per chunk would read back its slots and the chunks' tallies be merged. The
    keys of a chunk that would stretch the slots past :data:`SECOND_SLOTS` (or
    :data:`SECOND_SLOTS_PER_KEY` a key counted) are tallied apart, and those tallies merged."""

    def __init__(self):
        self._slots = np.zeros((0, 0, 2), np.uint64)
        self._low = 0
        self._keys = 0
        self._apart = []

    def add(self, number, group, value, memory, n_numbers):
        """Count keys of group number ``number[group[i]]``, epoch millisecond ``value[i]`` and memory
        ``memory[i]``; ``n_numbers``: the numbers given so far (every number is below it)."""
        self._keys += len(group)
        low, high = int(value.min()) // 1000, int(value.max()) // 1000 + 1
        if self._holds(low, high, n_numbers) or self._grown(low, high, n_numbers):
            kernels.records.count_seconds(number, group, value, memory, self._low, self._slots.shape[1],
                                          self._slots.reshape(-1))
            return
        self._apart.append(Tally.of_keys(number[group].astype(np.int64), value // 1000, memory))
        if len(self._apart) >= MERGE_APART:
            self._apart = [Tally.merge([(t, np.arange(n_numbers)) for t in self._apart])]

    def _holds(self, low, high, n_numbers):
        rows, width, _two = self._slots.shape
        return n_numbers <= rows and self._low <= low and high <= self._low + width

    def _grown(self, low, high, n_numbers):
        """Whether the slots were grown to hold ``n_numbers`` numbers from second ``low`` to ``high`` (with room
        to spare, so that chunks of about the same seconds fit without another copy)."""
        rows, width, _two = self._slots.shape
        if rows:
            low, high = min(low, self._low), max(high, self._low + width)
        most = min(SECOND_SLOTS, SECOND_SLOTS_PER_KEY * self._keys)
        spare = (high - low) // 8
        if max(n_numbers, 2 * rows) * (high - low + 2 * spare) <= most:
            rows, low, high = max(n_numbers, 2 * rows), low - spare, high + spare
        elif n_numbers * (high - low) <= most:
            rows = n_numbers
        else:
            return False
        slots = np.zeros((rows, high - low, 2), np.uint64)
        old_rows, width, _two = self._slots.shape
        slots[:old_rows, self._low - low:self._low - low + width] = self._slots
        self._slots, self._low = slots, low
        return True

    def tally(self):
        """The :class:`Tally` of every key counted."""
        number, offset = np.nonzero(self._slots[:, :, 0])
        found = self._slots[number, offset]
        counted = Tally(number.astype(np.int64), offset.astype(np.int64) + self._low, found[:, 0].astype(np.int64),
                        found[:, 1], np.zeros(0, EXAMPLE))
        if not self._apart:
            return counted if len(counted) else Tally.empty()
        n_numbers = max([len(self._slots), *(int(t.group.max()) + 1 for t in self._apart if len(t))])
        return Tally.merge([(t, np.arange(n_numbers)) for t in (counted, *self._apart)])


class Spill:
    """Gathers the per-millisecond tallies of one process's chunks, and their keys unless they can be
    read again from ``dump`` (a plain dump file's path): in memory up to ``IN_MEMORY_BYTES``, then in
    files under ``directory``.

    Each chunk's tally names its groups by number; the spill numbers (db, pattern) pairs once
    for all its chunks, so that the records of every chunk read back through one table.
    """

    def __init__(self, directory, dump=None):
        self._parent = directory
        self.directory = None
        self.dump = None if dump is None else os.path.abspath(dump)
        self.stamp = _stamp(self.dump) if self.dump is not None else ()
        self._numbers = {}
        # the partitions' records, then the keys, their ends and their places
        self._held = [[] for _ in range(PARTITIONS + 3)]  # the pieces written, not copied until they are joined
        self._held_bytes = 0
        self._in_memory_bytes = IN_MEMORY_BYTES
        self._files = None
        self._written = 0
        self._first, self._end = None, 0
        self._seconds = SecondCounts()

    @property
    def logs_keys(self):
        """Whether the keys are written here (the dump cannot be read again)."""
        return self.dump is None

    def log_keys(self, keys, places):
        """Keep ``keys`` (a BinaryArray), the keys at ``places`` (ascending, after every place logged before)."""
        offsets, data = offsets_and_data(keys)
        start, stop = int(offsets[0]), int(offsets[-1])
        self._add(PARTITIONS, data[start:stop])
        self._add(PARTITIONS + 1, (offsets[1:].astype(np.int64) - start + self._written).tobytes())
        self._add(PARTITIONS + 2, np.asarray(places, np.uint64).tobytes())
        self._written += stop - start

    def write(self, group, value, memory, places, groups):
        """Add a chunk's expiring keys: a group (``groups[g]`` is its (db, pattern)), epoch millisecond,
        memory and place each (places ascending). They are kept as they come, a record per key: a
        chunk holds few keys of one millisecond, so counting them here would save little."""
        if len(group) == 0:
            return
        if self._first is None:
            self._first = int(places[0])
        self._end = int(places[-1]) + 1
        number = np.array([self._numbers.setdefault(g, len(self._numbers)) for g in groups], np.int32)
        group, value = np.ascontiguousarray(group, np.int64), np.ascontiguousarray(value, np.int64)
        memory = np.ascontiguousarray(memory, np.uint64)
        self._seconds.add(number, group, value, memory, len(self._numbers))
        records = np.empty(len(group) * RECORD.itemsize, np.uint8)
        bounds = np.zeros(PARTITIONS + 1, np.int64)
        kernels.records.pack_records(number, group, value, memory, np.ascontiguousarray(places, np.uint64), bounds,
                                     np.empty(PARTITIONS, np.int64), records)
        bounds = (bounds * RECORD.itemsize).tolist()
        packed = memoryview(records)
        for i in range(PARTITIONS):
            if bounds[i + 1] > bounds[i]:
                self._add(i, packed[bounds[i]:bounds[i + 1]])

    def _add(self, index, data):
        try:
            if self._files is not None:
                self._files[index].write(data)
                return
            self._held[index].append(data)
            self._held_bytes += len(data)
            if self._held_bytes > self._in_memory_bytes:
                self._to_files()
        except OSError as exc:
            raise self._error(exc) from None

    def _to_files(self):
        """Go on in files: what is held is written there first."""
        os.makedirs(self._parent, exist_ok=True)
        self.directory = tempfile.mkdtemp(prefix="part-", dir=self._parent)
        names = [f"{i:02d}.records" for i in range(PARTITIONS)] + ["keys", "ends", "places"]
        self._files = [open(os.path.join(self.directory, name), "wb") for name in names]  # noqa: SIM115
        for file, held in zip(self._files, self._held, strict=True):
            file.writelines(held)
        self._held = []

    def _error(self, exc):
        return InputError(f"{self._parent}: cannot write the expiry counts spilled there "
                          f"({exc.strerror or exc}): give TMPDIR a disk with room")

    def close(self):
        """The :class:`SpillSegment` of what was kept."""
        common = {"groups": tuple(sorted(self._numbers, key=self._numbers.get)), "dump": self.dump,
                  "stamp": self.stamp, "first": self._first or 0, "end": self._end, "seconds": self._seconds.tally()}
        if self._files is None:
            return SpillSegment((), "", "", "", buffers=tuple(b"".join(held) for held in self._held), **common)
        try:
            for file in self._files:
                file.close()
        except OSError as exc:
            raise self._error(exc) from None
        paths = tuple(file.name for file in self._files)
        return SpillSegment(paths[:PARTITIONS], *paths[PARTITIONS:], **common)


def read_partition(segments, index, group_of, keep_second, min_keys):
    """The entries of at least ``min_keys`` keys of partition ``index`` of ``segments``, in final groups,
    as a :class:`Tally` with their first places.

    ``group_of``: per segment, the final group of each of its group numbers;
    ``keep_second(group, second)``: which records to count (a bool per record).
    """
    parts = []
    for segment, groups in zip(segments, group_of, strict=True):
        records = segment.records(index)
        if len(records):
            parts.append((records, np.ascontiguousarray(groups, np.int64)))
    if not parts:
        return Tally.empty()
    # Counted by a hash of (group, millisecond) first (kernels/_busy_buckets.py): nearly every record drops
    # out before the seconds are looked up and the rest sorted. About one bucket per record: the
    # counts stay small, and a uniform spread fills no bucket up to a batch.
    buckets = 1 << max(16, sum(len(r) for r, _g in parts).bit_length())
    per_bucket = np.zeros(buckets, np.uint16)
    raws = [records.view(np.uint8).reshape(-1) for records, _g in parts]
    for raw, (_records, groups) in zip(raws, parts, strict=True):
        kernels.busy_buckets.count_buckets(raw, RECORD.itemsize, groups, buckets - 1, per_bucket)
    kept = []
    for raw, (records, groups) in zip(raws, parts, strict=True):
        maybe = np.empty(len(records), np.int64)
        maybe = maybe[:kernels.busy_buckets.busy_records(raw, RECORD.itemsize, groups, buckets - 1, per_bucket,
                                                         min(min_keys, 65535), maybe)]
        records = records[maybe]
        group = groups[records["group"]]
        keep = keep_second(group, records["value"] // 1000)
        kept.append((records[keep], group[keep]))
    records = np.concatenate([r for r, _g in kept])
    group = np.concatenate([g for _r, g in kept])
    if len(records) == 0:
        return Tally.empty()
    value = records["value"]
    order = _order(group, value)
    starts = _starts(group[order], value[order])
    count = np.diff(np.append(starts, len(order)))
    big = np.flatnonzero(count >= min_keys)
    if len(big) == 0:
        return Tally.empty()
    memory = np.add.reduceat(records["memory"][order], starts)[big]
    # the records of the big entries only: their first places
    entry = np.repeat(np.arange(len(starts)), count)
    member = np.zeros(len(starts), bool)
    member[big] = True
    chosen = order[member[entry]]
    examples = np.empty(len(chosen), EXAMPLE)
    examples["group"], examples["value"], examples["place"] = group[chosen], value[chosen], records["place"][chosen]
    return Tally(group[order][starts][big], value[order][starts][big], count[big].astype(np.int64),
                 memory.astype(np.uint64), _first_examples(examples))


class ChunkSpill:
    """What one chunk writes to a :class:`Spill`, held until :meth:`commit` writes it there: chunks measured at
    once finish in any order, and a spill takes their keys in the order of the dump."""

    def __init__(self, spill):
        self.spill = spill
        self.logs_keys = spill.logs_keys
        self._writes = []

    def log_keys(self, keys, places):
        self._writes.append((self.spill.log_keys, (keys, places)))

    def write(self, group, value, memory, places, groups):
        self._writes.append((self.spill.write, (group, value, memory, places, groups)))

    def commit(self):
        for method, args in self._writes:
            method(*args)
        self._writes.clear()


def spill_expiring(columns, group, spill, groups):
    """Send a chunk's expiring keys (``columns``, a group per key) to ``spill``: their group, millisecond,
    memory, place, and the key unless the dump has it (``groups``: the chunk's (db, pattern) pairs). The
    spill counts them per second too (see :class:`SecondCounts`)."""
    expire, rows = columns.ttl_expire_ms, columns.ttl_rows
    ctime = columns.ctime_ms
    if ctime is not None and len(rows):
        keep = (expire >= ctime) & (expire - (ctime - ctime % 1000) < FAR_FUTURE_MS)
        expire, rows = expire[keep], rows[keep]
    if len(rows) == 0:
        return
    group = np.asarray(group, np.int64)[rows]
    memory = columns.memory[rows]
    places = columns.offset[rows]
    if spill.logs_keys:
        spill.log_keys(kernels.take_keys(columns.keys, rows), places)
    spill.write(group, expire, memory, places, groups)


class CountedExpiring:
    """The keys that expire after ctime, as the expiry pass reads them, from the chunks' merged tallies:
    ``n`` and ``n_per_group`` of them, ``base_ms``/``base_s`` (ctime, whole seconds) the instants are
    offsets from, the per-second ``seconds`` :class:`~rdbscope.passes.expiry.Runs`, and the methods below.

    ``seconds``: the per-second :class:`Tally` in final groups; ``segments``: the spilled
    per-millisecond tallies and keys, and ``group_of`` the final group of each of a segment's
    group numbers; ``ctime_ms``: when the dump was written (None when it does not say: the first
    expiry is the base then, and expiries 2**41 ms past it are left out by the second).
    ``threads``: partitions read at once (numpy lets go of the GIL in most of their work).
    """

    def __init__(self, seconds, segments, group_of, ctime_ms, n_groups, threads=1):
        self.threads = threads
        if ctime_ms is not None:
            self.base_ms = ctime_ms - ctime_ms % 1000
        else:
            self.base_ms = int(seconds.value.min()) * 1000 if len(seconds) else 0
            far = (seconds.value - self.base_ms // 1000) * 1000 >= FAR_FUTURE_MS
            if far.any():
                seconds = _where(seconds, ~far)
        self.base_s = self.base_ms // 1000
        self._tally = seconds
        self._segments, self._group_of = segments, group_of
        self.n_groups = n_groups
        self.n = int(seconds.count.sum())
        self.n_per_group = np.bincount(seconds.group, weights=seconds.count, minlength=n_groups).astype(np.int64)
        offset = seconds.value - self.base_s
        self.seconds = Runs(seconds.group, offset, seconds.count)
        self._code = (seconds.group << 32) | offset
        self._batch_examples = {}

    def members(self, spans, whole_dump=False):
        """The :class:`~rdbscope.passes.expiry.Members` of each span ``(group, start_s, end_s)`` (sorted, not
        overlapping; ``whole_dump``: the spans hold the keys of every group, their group is 0): counts from
        the per-second tally, examples from the spill."""
        tally = self._tally
        found = []
        for group, start_s, end_s in spans:
            if whole_dump:
                entries = np.flatnonzero((tally.value >= start_s) & (tally.value < end_s))
            else:
                low, high = ((group << 32) | (start_s - self.base_s)), ((group << 32) | (end_s - self.base_s))
                entries = np.arange(*np.searchsorted(self._code, [low, high]))
            seconds = tally.value[entries]
            found.append((int(tally.count[entries].sum()), int(tally.memory[entries].sum()), int(seconds.min()),
                          int(seconds.max()) + 1))
        places = self._first_places(spans, whole_dump)
        return [Members(*counted, self._texts(first)) for counted, first in zip(found, places, strict=True)]

    def _first_places(self, spans, whole_dump):
        """The first :data:`EXAMPLES` places of the keys in each span, read from the spilled records."""
        if not spans:
            return []
        starts = np.array([((0 if whole_dump else g) << 32) | (s - self.base_s) for g, s, _e in spans], np.int64)
        ends = np.array([((0 if whole_dump else g) << 32) | (e - self.base_s) for g, _s, e in spans], np.int64)
        near = _seconds_of(spans)

        def first_in(index):
            kept = []
            for segment, groups in zip(self._segments, self._group_of, strict=True):
                records = segment.records(index)
                records = records[near(records["value"])]  # a cheap test first
                if len(records) == 0:
                    continue
                group = np.zeros(len(records), np.int64) if whole_dump else groups[records["group"]]
                code = (group << 32) | (records["value"] // 1000 - self.base_s)
                span = np.searchsorted(starts, code, side="right") - 1
                inside = (span >= 0) & (code < ends[np.maximum(span, 0)])
                if inside.any():
                    kept.append(_first_per_span(span[inside], records["place"][inside]))
            return kept

        kept = [k for found in self._each_partition(first_in) for k in found]
        places = [np.zeros(0, np.uint64) for _span in spans]
        if kept:
            span, place = _first_per_span(np.concatenate([k[0] for k in kept]), np.concatenate([k[1] for k in kept]))
            for s in range(len(spans)):
                places[s] = place[span == s]
        return places

    def group_counts(self, start_s, end_s):
        """Keys of each group expiring from second ``start_s`` to ``end_s`` (exclusive)."""
        inside = (self._tally.value >= start_s) & (self._tally.value < end_s)
        return np.bincount(self._tally.group[inside], weights=self._tally.count[inside],
                           minlength=self.n_groups).astype(np.int64)

    def batches(self, min_keys):
        """The :class:`~rdbscope.passes.expiry.Batches` of at least ``min_keys`` keys: the spilled
        milliseconds are read a partition at a time, and only those of the seconds that hold ``min_keys``
        keys of a group."""
        busy = np.flatnonzero(self._tally.count >= min_keys)
        if len(busy) == 0:
            return Batches.empty()
        in_busy_second = self._lookup(self._tally.group[busy], self._tally.value[busy])

        parts, self._batch_examples = [], {}
        for tally in self._each_partition(
                lambda index: read_partition(self._segments, index, self._group_of, in_busy_second, min_keys)):
            batch = np.arange(len(tally))
            if len(batch) == 0:
                continue
            parts.append((tally.group[batch], tally.value[batch], tally.count[batch], tally.memory[batch]))
            examples = tally.examples  # sorted as the entries, each entry's first places
            entry = np.cumsum(_starts_mask(examples["group"], examples["value"])) - 1
            for b in batch.tolist():
                self._batch_examples[int(tally.group[b]), int(tally.value[b])] = examples["place"][entry == b]
        if not parts:
            return Batches.empty()
        group, value, count, memory = (np.concatenate(column) for column in zip(*parts, strict=True))
        order = np.lexsort((value, group))
        return Batches(group[order], value[order] - self.base_ms, count[order], memory[order].astype(np.int64))

    def _each_partition(self, read):
        """``read(index)`` of every partition, in order, ``threads`` at a time."""
        if self.threads <= 1:
            return map(read, range(PARTITIONS))
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(self.threads, thread_name_prefix="rdbscope-expiry") as pool:
            return list(pool.map(read, range(PARTITIONS)))

    def _lookup(self, group, second):
        """A function telling, per (group, second) given, whether it is one of these (sorted) pairs."""
        groups = np.unique(group)
        low, span = int(second.min()), int(second.max()) - int(second.min()) + 1
        if len(groups) * span <= DENSE_LOOKUP_SLOTS:  # a table of bits beats a search per record
            index = np.full(self.n_groups, -1, np.int64)
            index[groups] = np.arange(len(groups))
            table = np.zeros(len(groups) * span, bool)
            table[index[group] * span + (second - low)] = True

            def dense(g, s):
                slot = index[g] * span + (s - low)
                inside = (index[g] >= 0) & (s >= low) & (s < low + span)
                return inside & table[np.where(inside, slot, 0)]
            return dense
        code = (group << 32) | (second - self.base_s)

        def search(g, s):
            wanted = (g.astype(np.int64) << 32) | (s - self.base_s)
            at = np.minimum(np.searchsorted(code, wanted), len(code) - 1)
            return code[at] == wanted
        return search

    def batch_examples(self, group, instant, k=EXAMPLES):
        """The first keys of each batch (``group``, ``instant``, one batch per group, of those :meth:`batches`
        found), as ``{group: texts}``."""
        return {int(g): list(self._texts(self._batch_examples[int(g), int(i) + self.base_ms], k))
                for g, i in zip(group, instant, strict=True)}

    def _texts(self, places, k=EXAMPLES):
        """The keys of the ``k`` lowest of ``places``, as text (``\\xNN`` for bytes that are not UTF-8)."""
        places = np.sort(np.asarray(places, np.uint64))[:k].astype(np.int64)
        found = {}
        for segment in self._segments:
            found.update(segment.key_texts(places))
        return tuple(found[place] for place in places.tolist())


def _seconds_of(spans):
    """A function of epoch milliseconds giving which of them fall in one of ``spans`` (``(group, start_s,
    end_s)``, whatever their group), as positions: bursts are short and few, so nearly all keys drop
    out in one lookup per key before their group and span are searched."""
    low = min(s for _g, s, _e in spans)
    high = max(e for _g, _s, e in spans)
    if high - low > DENSE_LOOKUP_SLOTS:  # spans years apart: only their bounds
        return lambda ms: np.flatnonzero((ms >= low * 1000) & (ms < high * 1000))
    covered = np.zeros(high - low + 1, bool)  # the last slot stays False: past every span
    for _g, start_s, end_s in spans:
        covered[start_s - low:end_s - low] = True

    def near(ms):
        offset = np.clip(ms // 1000 - low, -1, high - low)
        return np.flatnonzero(covered[offset])
    return near


def _where(tally, keep):
    """The entries of ``tally`` (without examples) where ``keep`` holds."""
    return Tally(tally.group[keep], tally.value[keep], tally.count[keep], tally.memory[keep], tally.examples[:0])


def _first_per_span(span, place, k=EXAMPLES):
    """``(span, place)`` of the ``k`` lowest places of each span (few spans, many places)."""
    order = np.argsort(span.astype(np.int16) if span.max() < 1 << 15 else span, kind="stable")  # 16 bits: radix
    span, place = span[order], place[order]
    bounds = np.flatnonzero(np.concatenate(([True], span[1:] != span[:-1], [True])))
    spans, places = [], []
    for start, stop in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        lowest = np.sort(np.partition(place[start:stop], min(k, stop - start) - 1)[:k])
        spans.append(np.full(len(lowest), span[start]))
        places.append(lowest)
    return np.concatenate(spans), np.concatenate(places)
