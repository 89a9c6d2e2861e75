"""A dump whose size is not known before it is read: standard input, a live server's snapshot.

It is read in memory while its keys table, analysed, would fit the budget. From the batch that
would not, the run is bounded: the keys read so far become its first chunks, and the rest of
the stream is read chunk by chunk (see :mod:`.bounded`). Nothing is read twice, and a stream
that fits gives the table :func:`rdbscope.load` gives.
"""

import collections
import contextlib

import pyarrow as pa

from ..errors import RdbError
from ..keys import KeyTable
from ..rdb import KEYS_SCHEMA, scan
from ..sources import error_naming, name_by_url, opened
from .budget import MEMORY_PER_TABLE_BYTE

#: Rows read between two looks at the size of the table held so far.
STEP_ROWS = 65536


class Overflow:
    """A stream that did not fit its budget, part read.

    Attributes:
        result: its scan, whose ``info`` is complete once :meth:`tables` is exhausted.
        held_bytes: the bytes of the keys table read before the run turned bounded.
    """

    def __init__(self, source, result, batches, held, chunk_keys, closing):
        self.source = source
        self.result = result
        self._batches = batches
        self._held = held
        self.held_bytes = sum(batch.nbytes for batch in held)
        self._chunk_keys = chunk_keys
        self._closing = closing

    def close(self):
        """Stop reading the stream (when its keys are not wanted after all)."""
        self._batches.close()
        self._closing.close()

    def tables(self):
        """The stream's keys in tables of about ``chunk_keys`` rows: those held, then the rest as read.
        The stream is closed when they are exhausted (or the iteration is dropped)."""
        with self._closing:
            pending, rows = [], 0
            held, self._held = collections.deque(self._held), []
            try:
                for batch in _chain(held, self._batches):
                    pending.append(batch)
                    rows += batch.num_rows
                    if rows >= self._chunk_keys:
                        yield pa.Table.from_batches(pending, schema=KEYS_SCHEMA)
                        pending, rows = [], 0
            except RdbError as exc:
                raise error_naming(exc, self.source) from None
            if pending:
                yield pa.Table.from_batches(pending, schema=KEYS_SCHEMA)
            name_by_url(self.result.info, self.source)


def _chain(held, rest):
    while held:  # handed on one by one, so that each chunk's keys are let go of once measured
        yield held.popleft()
    yield from rest


def read_within(source, limit, chunk_keys, **scan_options):
    """Read the stream ``source`` while its in-memory analysis fits ``limit`` bytes.

    Returns ``(keys, None)``, the whole :class:`~rdbscope.KeyTable`, or ``(None, overflow)``, an
    :class:`Overflow` to go on with in bounded memory, in chunks of ``chunk_keys`` rows.

    Raises:
        RdbError, InputError: as :func:`rdbscope.load`.
    """
    closing = contextlib.ExitStack()
    try:
        readable = closing.enter_context(opened(source))
        result = scan(readable, batch_rows=STEP_ROWS, **scan_options)
        batches = iter(result)
        held, held_bytes = [], 0
        for batch in batches:
            held.append(batch)
            held_bytes += batch.nbytes
            if held_bytes * MEMORY_PER_TABLE_BYTE > limit:
                overflow = Overflow(source, result, batches, held, chunk_keys, closing.pop_all())
                return None, overflow
    except RdbError as exc:
        raise error_naming(exc, source) from None
    finally:
        closing.close()
    name_by_url(result.info, source)
    table = pa.Table.from_batches(held, schema=KEYS_SCHEMA).combine_chunks()
    return KeyTable(table, result.info), None
