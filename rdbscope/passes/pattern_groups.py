"""The pattern_groups pass: each key's inferred pattern, and the keys grouped by (db, pattern)."""

from dataclasses import replace

import pyarrow as pa

from ..keyspace.columns import dictionary_codes
from ..keyspace.groups import PatternGroups
from ..patterns.infer import infer_patterns_unwritten


class PatternGroupsPass:
    """Infer a pattern per key and group the keys by (db, pattern); what the rules need.

    The engine makes its output: each chunk's keys grouped by :func:`group_by_pattern`, the chunks'
    groups mapped onto the patterns of the whole (see :mod:`rdbscope.scale.bounded`).

    Columns added to the keys table: ``pattern``. Shares: the :class:`PatternGroups`, with the
    merged measures of every key (``PatternGroups.stats``).
    """

    id = "pattern_groups"
    requires = ()
    Options = None
    checks = ()


def group_by_pattern(columns):
    """``(pattern per key, PatternGroups)`` of the keys of ``columns`` (a chunk's
    :class:`~rdbscope.keyspace.columns.KeyColumns`), their patterns inferred from them alone.

    The groups' ``unwritten`` maps each pattern that shows a constant number to the same with ``{id}``:
    whether a number is constant depends on how many keys a chunk holds (see :mod:`rdbscope.scale.bounded`)."""
    inferred, unwritten = infer_patterns_unwritten(columns.keys)
    if isinstance(inferred, pa.ChunkedArray):
        inferred = inferred.combine_chunks()
    codes, names = dictionary_codes(inferred)
    return inferred, replace(PatternGroups.build(columns.db, codes, names), unwritten=unwritten)
