"""Which form each key has, kept as the slices of keys the forms were numbered in.

:func:`~rdbscope.patterns.forms.encode_forms` numbers the forms of each slice
of keys on its own; a slice keeps those local numbers and the global number
of each. Per-key results are read through the slices (one gather per slice
from a small per-form table), so the local numbers are never rewritten as
global ones.
"""

from dataclasses import dataclass

import numpy as np

from .. import kernels


@dataclass(frozen=True)
class KeyForms:
    """The form of every key.

    Attributes:
        n_forms: how many forms there are (numbered ``0..n_forms-1``).
        slices: ``(first row, local number per key, global number per local number)``
            for consecutive slices of the keys, in order.
        known_counts: the keys per form where they were counted as the forms were numbered, else None.
    """

    n_forms: int
    slices: tuple
    known_counts: np.ndarray | None = None

    @classmethod
    def of(cls, form_of_key, n_forms, counts=None):
        """One slice: ``form_of_key`` holds the global numbers (``counts``: the keys per form, if known)."""
        return cls(n_forms, ((0, form_of_key, np.arange(n_forms, dtype=np.int64)),), counts)

    @property
    def n_keys(self):
        return sum(len(local) for _row, local, _numbers in self.slices)

    def counts(self):
        """Keys per form (int64)."""
        if self.known_counts is not None:
            return self.known_counts.copy()
        counts = np.zeros(self.n_forms, np.int64)
        for _row, local, numbers in self.slices:
            counts[numbers] += kernels.count_ids(local, len(numbers))  # numbers are distinct within a slice
        return counts

    def per_key(self, table):
        """``table[form of each key]``: a value per form spread to the keys."""
        table = np.asarray(table)
        out = np.empty(self.n_keys, table.dtype)
        for row, local, numbers in self.slices:
            part = table[numbers]
            if part.dtype in (np.int32, np.int64):
                kernels.ids.take_into(part, kernels.as_ids(local), out[row:row + len(local)])
            else:
                np.take(part, local, out=out[row:row + len(local)])
        return out

    def first_and_last(self, wanted):
        """Row of the first and of the last key of each form ``wanted`` (bool per form); -1 for the others."""
        first = np.full(self.n_forms, -1, np.int64)
        last = np.full(self.n_forms, -1, np.int64)
        for ends, order, side in ((first, self.slices, 0), (last, self.slices[::-1], 1)):
            for row, local, numbers in order:
                missing = wanted & (ends < 0)
                if not missing.any():
                    break
                local_ends = first_and_last(local, missing[numbers])[side]
                found = np.flatnonzero(local_ends >= 0)
                ends[numbers[found]] = row + local_ends[found]
        return first, last


def first_and_last(groups, wanted):
    """Row of the first and of the last occurrence of each group number ``wanted`` (bool per
    group); -1 for the others.

    Read from the front until every wanted group is seen, and from the back the same.
    """
    first = np.full(len(wanted), -1, dtype=np.int64)
    last = np.full(len(wanted), -1, dtype=np.int64)
    n_wanted = int(np.count_nonzero(wanted))
    if len(groups) and n_wanted:
        wanted_bytes = np.ascontiguousarray(wanted, np.bool_).view(np.uint8)
        kernels.ids.ends_into(kernels.as_ids(groups), wanted_bytes, first, last, n_wanted)
    return first, last
