"""The plan of a run: its inputs expanded once, their sizes read once, and how they are read."""

import os
from dataclasses import dataclass

from . import budget

#: How a run reads its inputs (see :class:`RunPlan`).
TABLE, STREAM, BOUNDED = "table", "stream", "bounded"


@dataclass(frozen=True)
class RunPlan:
    """What :func:`plan_run` decided; :func:`rdbscope.analyze` takes it in place of the inputs.

    Attributes:
        paths: the inputs, expanded once (see :func:`rdbscope.sources.input_paths`).
        mode: ``"bounded"``: chunk by chunk, as every dump is read; ``"table"``: every key read into
            memory (a keys Parquet file, or dumps that fit the budget when a check needs every key);
            ``"stream"``: one dump whose size is known only once read (standard input, a live server,
            a compressed dump) when a check needs every key: in memory while it fits, chunk by chunk
            from there on.
        budget: the memory budget, in bytes.
        peak: the estimated peak of reading every key into memory; None when not known before reading.
        chunk_keys: keys per chunk (of the table, in a table run: it is measured chunk by chunk too).
        sample_keys: keys in the sample the patterns are learned from, in a chunked run.
        jobs: processes a bounded run reads on.
        threads: chunks each process measures at once (see :func:`~.budget.measure_threads`).
        in_memory_up_to: of a stream, the memory its keys may take before it is read chunk by chunk.
    """

    paths: tuple
    mode: str
    budget: int
    peak: int | None
    chunk_keys: int | None = None
    sample_keys: int = 0
    jobs: int = 1
    in_memory_up_to: int = 0
    threads: int = 1

    @property
    def source(self):
        """The one input, or the list of several."""
        return self.paths[0] if len(self.paths) == 1 else list(self.paths)


#: A single dump larger than this is measured on several processes when jobs allow (smaller ones
#: finish before the processes would have started).
LARGE_DUMP_BYTES = 256 << 20


def splits_one_dump(paths, jobs, client=None):
    """Whether the one dump of ``paths`` is measured in stretches on ``jobs`` local processes: a local file
    larger than LARGE_DUMP_BYTES (a stream's stretches cannot be found without reading what comes before
    them; a Dask client reads whole dumps)."""
    from ..sources import is_local

    return (len(paths) == 1 and jobs > 1 and client is None and is_local(paths[0])
            and os.path.getsize(paths[0]) > LARGE_DUMP_BYTES)


def plan_run(source, memory_budget=None, chunk_keys=None, jobs=1, client=None, every_key=False) -> RunPlan:
    """The :class:`RunPlan` of reading ``source`` (a dump's path or URL, or several: a list, a directory,
    a glob) within ``memory_budget`` (default: see :func:`~.budget.default_budget`).

    Every dump is read chunk by chunk, through the same measures whatever its size; a keys Parquet
    file is read whole. ``every_key``: the run holds a check that needs every key in memory (GRO001):
    dumps that fit the budget are then read whole. ``chunk_keys`` sets the chunks' size (default: from
    the budget); ``jobs``/``client``: the processes or Dask workers a chunked run may use (each holds
    a chunk of its own: a budget too small for several is spent on one).

    Raises:
        InputError: as :func:`rdbscope.sources.input_paths`.
    """
    from ..keys import is_parquet
    from ..sources import input_paths

    paths = tuple(input_paths(source))
    jobs = max(1, jobs or 1)
    limit = budget.budget_of(memory_budget)
    sample_keys = budget.sample_keys_for(limit)
    threads = budget.measure_threads()
    if len(paths) == 1 and is_parquet(paths[0]):  # a keys table written before: read as it is
        return RunPlan(paths, TABLE, limit, None, chunk_keys or budget.chunk_keys_for(limit, 1, threads), sample_keys,
                       threads=threads)
    peak = budget.in_memory_peak(paths)
    if every_key and chunk_keys is None:
        if peak is None and len(paths) == 1:
            # in memory while it fits; the keys held when it turns out too large are measured beside
            # the budget's chunks
            chunks = budget.chunk_keys_for(int(limit * (1 - 1 / budget.MEMORY_PER_TABLE_BYTE)), 1, threads)
            return RunPlan(paths, STREAM, limit, None, chunks, sample_keys, in_memory_up_to=limit, threads=threads)
        if peak is not None and peak <= limit:
            return RunPlan(paths, TABLE, limit, peak, budget.chunk_keys_for(limit, 1, threads), sample_keys,
                           threads=threads)
    if peak is None or (jobs > 1 and client is None and chunk_keys is None and
                        budget.chunk_keys_for(limit, jobs) < budget.MIN_SHARED_CHUNK_KEYS):
        jobs = 1  # a stream's stretches cannot be found without reading what comes before them
    processes = jobs if len(paths) > 1 or splits_one_dump(paths, jobs, client) else 1
    threads = 1 if client is not None else budget.measure_threads(processes)
    return RunPlan(paths, BOUNDED, limit, peak, chunk_keys or budget.chunk_keys_for(limit, processes, threads),
                   sample_keys, jobs, threads=threads)
