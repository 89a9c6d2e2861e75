"""A keys table in memory, measured as a dump is read: chunk by chunk, through the same measures."""

from dataclasses import dataclass, replace

import numpy as np

from ..passes.expiry_counts import places_end
from ..sources import SOURCE_FIELD
from .chunks import partial_of_tables
from .partial import merge, shift_rows


@dataclass(frozen=True)
class _Read:
    """What the chunks of a table need of the scan that read them: the dump's info."""

    info: object


def partial_of_keys(keys, plan, chunk_keys):
    """The merged :class:`~.partial.Partial` of a :class:`~rdbscope.KeyTable`'s keys, each key's group kept.

    The keys of each dump of a table of several are measured as that dump alone would be (its own
    rows and sample ranks), then numbered on from the dumps before, as several dumps read by path are.
    """
    plan = replace(plan, key_groups=True)
    if plan.rules is not None and keys.n_sources > 1:
        plan = replace(plan, rules=replace(plan.rules, several_sources=True))
    table = keys.to_arrow()
    total = None
    for salt, start, stop in _dumps(table):
        part = table.slice(start, stop - start)
        chunks = (part.slice(first, chunk_keys) for first in range(0, part.num_rows, chunk_keys))
        partial, _info, _summary = partial_of_tables(chunks, _Read(keys.info), plan, salt)
        if total is not None:
            partial = shift_rows(partial, total.n_keys, places_end(total.spilled))
        total = partial if total is None else merge([total, partial], plan.sample_keys)
    return total


def _dumps(table):
    """``(dump's index, first row, end)`` of each run of rows from one dump (a table of several has a
    ``source`` column), or of the whole table."""
    if SOURCE_FIELD.name not in table.column_names or table.num_rows == 0:
        return [(0, 0, table.num_rows)]
    source = table[SOURCE_FIELD.name].combine_chunks()
    codes = source.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    starts = np.concatenate(([0], np.flatnonzero(np.diff(codes)) + 1))
    ends = np.append(starts[1:], len(codes))
    return [(int(codes[s]), int(s), int(e)) for s, e in zip(starts, ends, strict=True)]
