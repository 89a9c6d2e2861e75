"""Which (db, pattern) group each key belongs to: what the patterns pass shares."""

from dataclasses import dataclass

import numpy as np

from .grouping import SortedGroups, dense_ids


@dataclass(frozen=True)
class PatternGroups:
    """Keys grouped by database and inferred pattern.

    Attributes:
        group: int32 per key, the index of its group.
        db: int32 per group.
        pattern: the pattern text of each group (a tuple).
        memory: each group's memory values sorted (a
            :class:`~rdbscope.passes.grouping.SortedGroups`), once measured.
    """

    group: np.ndarray
    db: np.ndarray
    pattern: tuple
    memory: SortedGroups = None

    @property
    def n(self):
        return len(self.pattern)

    def label(self, g):
        """``"db0 user:{id}"``: how messages name group ``g``."""
        return f"db{self.db[g]} {self.pattern[g]}"

    @classmethod
    def build(cls, db, pattern_codes, pattern_names):
        """Group keys from their db (per key) and a pattern code per key into ``pattern_names``."""
        db = np.asarray(db)
        if len(db) == 0:
            return cls(np.zeros(0, np.int32), np.zeros(0, np.int32), ())
        db_low = int(db.min())
        group, combos = dense_ids(db - db_low, np.asarray(pattern_codes))
        return cls(
            group=group,
            db=(combos[:, 0] + db_low).astype(np.int32),
            pattern=tuple(pattern_names[c] for c in combos[:, 1]),
        )
