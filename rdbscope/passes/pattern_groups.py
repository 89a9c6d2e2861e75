"""The pattern_groups pass: each key's inferred pattern, and the keys grouped by (db, pattern)."""

import pyarrow as pa

from ..keyspace.columns import dictionary_codes
from ..keyspace.groups import PatternGroups
from ..patterns import infer_patterns
from .base import PassOutput


class PatternGroupsPass:
    """Infer a pattern per key and group the keys by (db, pattern); what the rules need.

    Columns added to the keys table: ``pattern``. Shares: the :class:`PatternGroups`
    (without measures; the patterns pass measures them).
    """

    id = "pattern_groups"
    requires = ()
    Options = None
    checks = ()

    def run(self, ctx):
        columns = ctx.columns
        inferred = infer_patterns(columns.keys)
        if isinstance(inferred, pa.ChunkedArray):
            inferred = inferred.combine_chunks()
        codes, names = dictionary_codes(inferred)
        return PassOutput(columns={"pattern": inferred}, shared=PatternGroups.build(columns.db, codes, names))
