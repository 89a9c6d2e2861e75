"""Several dumps read as one keyspace: which files an input names, and each dump's summary.

A cluster's dumps (or any set of dumps) are loaded one by one and joined; the
figures the per-node table and the cluster rules need are taken from each dump
on its own, as a :class:`SourceSummary`, small enough for a worker to return
in place of its keys.
"""

import dataclasses
import glob
import os
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .errors import InputError
from .rdb.cluster import N_SLOTS, key_slots
from .summary import estimate_memory

#: Names of the dumps a directory holds: a dump, or a compressed backup of one.
DUMP_SUFFIXES = (".rdb", ".rdb.gz", ".rdb.zst", ".rdb.lz4", ".rdb.bz2", ".rdb.xz")

#: The column a keys table of several dumps gets: which dump each key came from.
SOURCE_FIELD = pa.field(
    "source", pa.dictionary(pa.int16(), pa.string()), nullable=False,
    metadata={"doc": "the dump (path as given) the key was read from; only in a table of several dumps"})


@dataclass(frozen=True)
class SourceSummary:
    """What one dump of several contributes, summed over its keys.

    Attributes:
        path: the dump's path as given.
        info: its :class:`~rdbscope.rdb.DumpInfo`.
        n_keys, n_with_ttl: keys; keys with a TTL.
        rdb_bytes: bytes of its key entries.
        est_memory_bytes: estimated memory of its keys (``rdb_bytes`` for keys without an estimate).
        dbs: the databases its keys are in.
        slot_keys: keys per hash slot (16384 int64).
        slot_memory: estimated memory per hash slot (16384 float64).
        est_total_memory_bytes: estimated memory of its keys and key tables (its
            own memory model); None without one.
        used_mem_bytes: its writer's ``used-mem`` AUX field, or None.
    """

    path: str
    info: object
    n_keys: int
    n_with_ttl: int
    rdb_bytes: int
    est_memory_bytes: int
    dbs: tuple
    slot_keys: np.ndarray
    slot_memory: np.ndarray
    est_total_memory_bytes: int | None = None
    used_mem_bytes: int | None = None

    def memory_bytes(self, basis):
        """Memory of the dump's keys in ``basis`` (``est_memory_bytes`` or ``rdb_bytes``)."""
        return self.rdb_bytes if basis == "rdb_bytes" else self.est_memory_bytes


def summarize_source(path, keys):
    """The :class:`SourceSummary` of one dump's :class:`~rdbscope.KeyTable`."""
    table, info = keys.to_arrow(), keys.info
    estimate = estimate_memory(keys)
    memory = pc.coalesce(table["est_memory_bytes"], table["rdb_bytes"]) if table.num_rows else table["rdb_bytes"]
    slots = key_slots(table["key"])
    slot_numbers = np.concatenate([c.to_numpy(zero_copy_only=False) for c in slots.chunks]) \
        if slots.num_chunks else np.zeros(0, np.uint16)
    memory_values = np.asarray(memory.to_numpy(), np.float64) if table.num_rows else np.zeros(0)
    return SourceSummary(
        path=str(path),
        info=info,
        n_keys=table.num_rows,
        n_with_ttl=table.num_rows - table["expire_at"].null_count,
        rdb_bytes=int(pc.sum(table["rdb_bytes"]).as_py() or 0),
        est_memory_bytes=int(pc.sum(memory).as_py() or 0),
        dbs=tuple(sorted(pc.unique(table["db"]).to_pylist())),
        slot_keys=np.bincount(slot_numbers, minlength=N_SLOTS).astype(np.int64),
        slot_memory=np.bincount(slot_numbers, weights=memory_values, minlength=N_SLOTS),
        est_total_memory_bytes=estimate.total_bytes if estimate.model else None,
        used_mem_bytes=estimate.used_mem_bytes,
    )


def add_summaries(a, b):
    """The summary of two parts of one dump (its chunks): counts and sums added."""
    return dataclasses.replace(
        a, n_keys=a.n_keys + b.n_keys, n_with_ttl=a.n_with_ttl + b.n_with_ttl, rdb_bytes=a.rdb_bytes + b.rdb_bytes,
        est_memory_bytes=a.est_memory_bytes + b.est_memory_bytes, dbs=tuple(sorted(set(a.dbs) | set(b.dbs))),
        slot_keys=a.slot_keys + b.slot_keys, slot_memory=a.slot_memory + b.slot_memory)


def source_column(lengths, paths):
    """The ``source`` column of tables of ``lengths`` rows read from ``paths``: one chunk per dump,
    all sharing one dictionary of the paths."""
    dictionary = pa.array([str(p) for p in paths], pa.string())
    chunks = [pa.DictionaryArray.from_arrays(pa.array(np.full(n, i, np.int16), pa.int16()), dictionary)
              for i, n in enumerate(lengths)]
    return pa.chunked_array(chunks, SOURCE_FIELD.type)


def input_paths(source):
    """The files a source names: a list of them (each expanded), a directory (its dumps, by name),
    a glob (``node-*.rdb``, matched here) or one file.

    Raises:
        InputError: a path that does not exist, a directory without dumps, a glob matching nothing,
            or more dumps than a ``source`` column can name.
    """
    if isinstance(source, (list, tuple)):
        paths = [path for one in source for path in input_paths(one)]
        if not paths:
            raise InputError("no dumps given")
    else:
        paths = _expand(os.fspath(source))
    if len(paths) > np.iinfo(np.int16).max:
        raise InputError(f"{len(paths)} dumps: at most {np.iinfo(np.int16).max} can be read as one keyspace")
    return paths


def _expand(path):
    if os.path.isdir(path):
        found = sorted(os.path.join(path, name) for name in os.listdir(path)
                       if name.endswith(DUMP_SUFFIXES) and os.path.isfile(os.path.join(path, name)))
        if not found:
            raise InputError(f"{path}: a directory without dumps (*.rdb, or *.rdb.gz/.zst/.lz4/.bz2/.xz)")
        return found
    if os.path.exists(path):
        return [path]
    if glob.has_magic(path):
        found = sorted(p for p in glob.glob(path) if os.path.isfile(p))
        if not found:
            raise InputError(f"{path}: no file matches")
        return found
    raise InputError(f"{path}: no such file")
