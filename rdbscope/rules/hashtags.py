"""Redis Cluster hash tags of keys, found for all keys at once.

A key's hash tag is what lies between its first ``{`` and the first ``}``
after it, when that is not empty (src/cluster.c keyHashSlot): ``{user:1000}:cart``
has the tag ``user:1000``; ``foo{}{bar}`` has none.
"""

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..rdb.keytext import key_text
from .keybytes import gather

_OPEN, _CLOSE = ord("{"), ord("}")


@dataclass(frozen=True)
class HashTags:
    """The keys that have a hash tag, and which tag.

    Attributes:
        rows: positions of the keys with a tag (ascending).
        tag: per row, the index of its tag into ``texts`` and ``n_keys``.
        texts: the distinct tags, as text (non-UTF-8 bytes escaped ``\\xNN``, a backslash as ``\\\\``).
        n_keys: keys per distinct tag.
    """

    rows: np.ndarray
    tag: np.ndarray
    texts: tuple
    n_keys: np.ndarray

    @classmethod
    def find(cls, offsets, data, candidates):
        """Tags of the keys ``candidates`` (positions of keys holding a ``{``)."""
        candidates = np.asarray(candidates, np.int64)
        empty = cls(np.zeros(0, np.int64), np.zeros(0, np.int64), (), np.zeros(0, np.int64))
        if len(candidates) == 0:
            return empty
        b, owner = gather(offsets, data, candidates)
        opens = np.flatnonzero(b == _OPEN)
        owners_with_open, first = np.unique(owner[opens], return_index=True)
        first_open = opens[first]
        closes = np.flatnonzero(b == _CLOSE)
        after = np.searchsorted(closes, first_open, side="right")
        has_close = after < len(closes)
        close = np.full(len(first_open), -1, np.int64)
        close[has_close] = closes[after[has_close]]
        has_close[has_close] = owner[close[has_close]] == owners_with_open[has_close]
        tagged = has_close & (close > first_open + 1)
        if not tagged.any():
            return empty
        starts, ends = first_open[tagged] + 1, close[tagged]
        lengths = ends - starts
        index = np.repeat(starts - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths) \
            + np.arange(int(lengths.sum()))
        tag_offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int32)
        tags = pa.Array.from_buffers(pa.binary(), len(lengths),
                                     [None, pa.py_buffer(tag_offsets), pa.py_buffer(b[index].tobytes())])
        encoded = tags.dictionary_encode()
        tag = encoded.indices.to_numpy().astype(np.int64)
        texts = tuple(key_text(t) for t in encoded.dictionary.to_pylist())
        return cls(candidates[owners_with_open[tagged]], tag, texts, np.bincount(tag, minlength=len(texts)))
