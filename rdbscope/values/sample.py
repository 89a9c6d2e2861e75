"""One sampled value: the first bytes of one key's value as the dump holds it."""

from dataclasses import dataclass

#: Bytes kept of a string value, and of each element of a collection.
HEAD_BYTES = 4096
#: Elements kept of a collection (hash fields, list items, set or zset members): enough for the fields a job
#: queue writes into each job (RQ's ``result_ttl`` is its seventeenth).
HEAD_ELEMENTS = 32


@dataclass(frozen=True)
class ValueSample:
    """The first bytes of one key's value, read from the dump. Never printed.

    Attributes:
        type: the key's type, as in the keys table (``string``, ``hash``, ``list``, ...).
        encoding: the key's encoding, as in the keys table.
        length: a string's length in bytes; a collection's element count.
        head: a string's first ``HEAD_BYTES`` bytes (LZF decompressed; an integer-encoded string as
            its decimal digits); ``b""`` for a collection.
        fields: a hash's first ``HEAD_ELEMENTS`` field names; ``()`` for other types.
        elements: a collection's first ``HEAD_ELEMENTS`` elements, each cut to ``HEAD_BYTES``: a hash's
            values (in the order of ``fields``), list items, set members, zset members; ``()`` for a string.
        element_lengths: the full length of each of ``elements`` (before the cut).
    """

    type: str
    encoding: str
    length: int
    head: bytes = b""
    fields: tuple = ()
    elements: tuple = ()
    element_lengths: tuple = ()

    def __repr__(self):  # sizes only: a sample logged or shown in a traceback must not show what it holds
        return (f"ValueSample(type={self.type!r}, encoding={self.encoding!r}, length={self.length}, "
                f"head_bytes={len(self.head)}, fields={len(self.fields)}, element_lengths={self.element_lengths})")
