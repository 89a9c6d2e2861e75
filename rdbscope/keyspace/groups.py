"""Which (db, pattern) group each key belongs to."""

from dataclasses import dataclass, field

import numpy as np

from .grouping import dense_ids


@dataclass(frozen=True)
class PatternGroups:
    """Keys grouped by database and inferred pattern.

    Attributes:
        group: int32 or int64 per key, the index of its group.
        db: int32 per group.
        pattern: the pattern text of each group (a tuple).
        n_keys: keys per group.
        stats: the groups' :class:`~rdbscope.keyspace.measures.GroupStats`, once measured.
        unwritten: ``{pattern: the same with {id} for its constant numbers}`` of the patterns that show one.
    """

    group: np.ndarray
    db: np.ndarray
    pattern: tuple
    n_keys: np.ndarray
    stats: object = None
    unwritten: dict = field(default_factory=dict)

    @property
    def n(self):
        return len(self.pattern)

    @classmethod
    def build(cls, db, pattern_codes, pattern_names):
        """Group keys by their db (per key) and pattern code (per key, into ``pattern_names``)."""
        db = np.asarray(db)
        if len(db) == 0:
            return cls(np.zeros(0, np.int64), np.zeros(0, np.int32), (), np.zeros(0, np.int64))
        db_low, db_high = int(db.min()), int(db.max())
        if db_low == db_high:
            group, combos, n_keys = dense_ids(pattern_codes)
            dbs = np.full(len(combos), db_low, np.int32)
            patterns = tuple(pattern_names[c] for c in combos[:, 0])
        else:
            group, combos, n_keys = dense_ids(db - db_low, pattern_codes)
            dbs = (combos[:, 0] + db_low).astype(np.int32)
            patterns = tuple(pattern_names[c] for c in combos[:, 1])
        return cls(group, dbs, patterns, n_keys.astype(np.int64))
