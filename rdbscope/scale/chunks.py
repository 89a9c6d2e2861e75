"""Chunks measured in turn into one merged partial aggregate: the loop every run goes through, whether
its chunks come from a dump's scan (:mod:`.bounded`) or from a table in memory (:mod:`.tables`)."""

import collections
import concurrent.futures
import threading
from dataclasses import replace

from ..keys import KeyTable
from ..keyspace.grouping import SlotCounter
from ..passes.expiry_counts import ChunkSpill, Spill
from ..rdb import KEYS_SCHEMA, ReadPast
from ..sources import add_summaries, summarize_source
from .partial import chunk_partial, merge, union_cutoff

#: Chunk partials merged at once into the running total: merging each into a large total would
#: cost the total's size every chunk.
MERGE_EVERY = 8


def partial_of_tables(tables, result, plan, salt=0, measured_as=None, summarize=False, stop_when_past=False,
                      dump=None, name=None):
    """:func:`~.bounded.partial_of_source` of the chunks ``tables`` (``pyarrow.Table`` chunks of a dump's keys, in
    order, or a :class:`~rdbscope.rdb.ReadPast` for the chunks of other shares) that the scan ``result``
    reads; see there. ``stop_when_past``: stop at the first chunk read past after one measured;
    ``dump``: the path ``result`` reads, when its keys can be read again (a plain file: see :class:`Spill`);
    ``name``: the input as given (a URL; default: the file the scan names), the path of the chunks' info."""
    total, pending, summary = None, [], None
    first_row = 0
    measured = False
    spill = None
    with InTurn(plan.threads) as measuring:
        for table in tables:
            if isinstance(table, ReadPast):
                if stop_when_past and measured:
                    break
                first_row += table.num_rows
                continue
            measured = True
            if spill is None and plan.spill_dir is not None:  # the scan has opened the dump: is it compressed?
                spill = Spill(plan.spill_dir, dump=dump if result.info.compression is None else None)
            cutoff = union_cutoff([p for p in (total, *pending) if p is not None], plan.sample_keys)
            measuring.submit(table, _measured_info(measured_as, result.info, name), first_row,
                             _without_dropped(plan, total), salt, cutoff, spill)
            if summarize:
                part = summarize_source(result.info.path, KeyTable(table, result.info))
                summary = part if summary is None else add_summaries(summary, part)
            first_row += table.num_rows
            del table
            for partial in measuring.finished():
                pending.append(partial)
                if len(pending) == MERGE_EVERY or _rule_rows(pending) > plan.rules_max_rows:
                    total = merge([p for p in (total,) if p is not None] + [merge(pending, plan.sample_keys)],
                                  plan.sample_keys)
                    pending = []
        pending.extend(measuring.finished(every=True))
    if pending:
        total = merge([p for p in (total,) if p is not None] + [merge(pending, plan.sample_keys)], plan.sample_keys)
    if total is None:  # no keys (or none in this share)
        empty = KEYS_SCHEMA.empty_table()
        total = chunk_partial(empty, result.info, 0, plan, salt)
        if summarize:
            summary = summarize_source(result.info.path, KeyTable(empty, result.info))
    if summary is not None:
        summary = replace(summary, info=result.info, used_mem_bytes=_used_mem(result.info),
                          est_total_memory_bytes=None)
    segment = spill.close() if spill is not None else None
    if segment is not None:
        total = replace(total, spilled=(*total.spilled, segment))
    return total, result.info, summary


def _measured_info(measured_as, info, name=None):
    """The info a chunk of the dump ``info`` describes is measured with: ``measured_as`` (the first of several
    dumps, whose ctime TTLs count from; default: ``info``) naming this dump by ``name`` or its own path: where
    the chunk's keys may be read again."""
    measured = measured_as or info
    path = name if name is not None else info.path
    return measured if measured.path == path else replace(measured, path=path)


def _without_dropped(plan, total):
    """``plan`` without the rules ``total`` has dropped (their keys outgrew the budget): the next chunks
    need not keep keys for them."""
    if plan.rules is None or total is None or not total.rules.dropped:
        return plan
    rules = tuple((rule, options) for rule, options in plan.rules.rules if rule.code not in total.rules.dropped)
    return replace(plan, rules=replace(plan.rules, rules=rules))


def _rule_rows(partials):
    """Keys the rules' candidates hold in ``partials``: past the budget's share, they merge at once, and
    the rules with the most are dropped (see :func:`~rdbscope.rules.chunk_rows.within`)."""
    return sum(p.rules.n_rows for p in partials if p.rules is not None)


def _used_mem(info):
    try:
        return int(info.aux["used-mem"])
    except (KeyError, TypeError, ValueError):
        return None


class InTurn:
    """Chunks measured in ``threads`` threads at once (in this one, for one), their partials handed back in
    the order the chunks came: numpy, pyarrow and the compiled kernels let go of the GIL for most of a
    chunk's measures, so a second thread keeps a second core busy. Each thread counts with a
    :class:`SlotCounter` of its own; a chunk's expiring keys reach the spill in the order of the chunks."""

    def __init__(self, threads):
        self.threads = max(1, threads)
        self.pool = None
        self.local = threading.local()
        self.running = collections.deque()

    def __enter__(self):
        if self.threads > 1:
            self.pool = concurrent.futures.ThreadPoolExecutor(self.threads, thread_name_prefix="rdbscope-measure")
        return self

    def __exit__(self, *_exc):
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)

    def submit(self, table, info, first_row, plan, salt, cutoff, spill):
        """Measure a chunk (see :func:`chunk_partial`)."""
        held = ChunkSpill(spill) if spill is not None else None
        args = (table, info, first_row, plan, salt, cutoff, held)
        if self.pool is None:
            self.running.append((self._measure(*args), held))
        else:
            self.running.append((self.pool.submit(self._measure, *args), held))

    def finished(self, every=False):
        """The partials of the chunks measured, in order, until fewer than ``threads`` are running (none
        with ``every``)."""
        while self.running and (every or len(self.running) >= self.threads):
            measured, held = self.running.popleft()
            partial = measured.result() if isinstance(measured, concurrent.futures.Future) else measured
            if held is not None:
                held.commit()
            yield partial

    def _measure(self, *args):
        counter = getattr(self.local, "counter", None)
        if counter is None:
            counter = self.local.counter = SlotCounter()
        return chunk_partial(*args, counter=counter)
