"""The column buffers of a batch: typed arrays the scanner writes row by row, which Arrow takes.

``Columns`` is the scanner's base class: it holds the buffers and how they are
made, and no per-key state. The buffers are handed to Arrow without a copy
(``batches.py``), so each batch gets fresh ones. Big contiguous batches are
lazily mapped zero pages (``_pages.lazy_zeros``): only the rows written cost
memory. While every row's largest element is its element count (strings), the
``max_element_bytes`` column is not written and shares the count column.
"""

try:
    import cython
except ImportError:  # running as Python without Cython installed
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython

import numpy as np

from ._pages import empty_bytes, lazy_zeros, zero_bytes

#: Bytes per row of the columns every row writes, in _new_columns order: db, key
#: offsets, type, encoding, rdb_bytes, n_elements, max_element_bytes, offset, estimate.
DENSE_WIDTHS = (4, 4, 1, 1, 8, 8, 8, 8, 8)
MAX_COLUMN = 6


class Columns:
    """The buffers of the batch being filled; ``rows`` rows and ``klen`` key bytes are written."""

    def __init__(self, contiguous):
        # Contiguous batches hold as many rows as the database announces (RESIZEDB),
        # so a whole-dump table comes in a chunk or a few.
        self.contiguous = contiguous
        self.cap = 0
        self.full = False
        self.kcap = 1 << 20
        self.estimating = True
        # A batch only read past is never handed to Arrow: the next one read past writes its buffers again.
        self.reading_past = False
        self.reusable = False
        self.max_is_n = True
        self.rows = 0
        self.klen = 0

    def new_batch(self):
        """Start a new batch after the caller took the full one."""
        self.reusable = self.reading_past and not self.contiguous
        self.cap = 0
        self.rows = 0
        self.klen = 0
        self.full = False

    def _reuse_columns(self):
        """Write the next batch over the buffers of the last one, which was only read past (its
        validity bits stay as they were: such a batch is never built)."""
        self.cap = len(self.a_db)
        self._empty_batch()

    def _new_columns(self, alloc, key_bytes):
        """The buffers every row of a batch of ``cap`` rows writes, from ``alloc(nbytes)``: db, key
        offsets (one more than rows), type, encoding, sizes, counts, offset, estimate, and
        ``key_bytes`` of keys (the other columns are written only for rows that have a value)."""
        return [alloc(self.cap * width + (4 if i == 1 else 0)) for i, width in enumerate(DENSE_WIDTHS)] + [
            alloc(key_bytes)]

    def _use_columns(self, dense, lazy):
        self.reusable = False
        n = self.cap
        bits = (n + 7) // 8
        self.dense = dense
        # a_* are the arrays (read by batches.py); c_* are typed views of them.
        self.a_db = dense[0].view(np.int32)
        self.a_koff = dense[1].view(np.int32)
        self.a_type = dense[2].view(np.int8)
        self.a_enc = dense[3].view(np.int8)
        self.a_rdb_bytes = dense[4].view(np.uint64)
        self.a_n = dense[5].view(np.uint64)
        self.a_max = dense[6].view(np.uint64)
        self.a_offset = dense[7].view(np.uint64)
        self.a_est = dense[8].view(np.uint64)
        self.keydata = dense[9]
        self.kview = memoryview(self.keydata)
        self.kcap = len(self.keydata)
        if lazy:
            empty = zeros = lazy_zeros
        else:
            empty = empty_bytes
            zeros = zero_bytes
        self.a_expire = empty(n * 8).view(np.int64)
        self.a_lfu = empty(n)
        self.a_idle = empty(n * 8).view(np.uint64)
        self.a_module = empty(n * 4).view(np.int32)
        self.a_ttl_fields = empty(n * 8).view(np.uint64)
        self.a_est_fallback = zeros(bits)
        # Validity bitmaps (Arrow layout: bit i set when row i is not null).
        self.a_v_expire = zeros(bits)
        self.a_v_counts = zeros(bits)
        self.a_v_lfu = zeros(bits)
        self.a_v_idle = zeros(bits)
        self.a_v_module = zeros(bits)
        self.a_v_ttl_fields = zeros(bits)
        # Memoryviews: what the compiled build types them as, and faster to index as Python.
        self.c_db = memoryview(self.a_db)
        self.c_koff = memoryview(self.a_koff)
        self.c_type = memoryview(self.a_type)
        self.c_enc = memoryview(self.a_enc)
        self.c_expire = memoryview(self.a_expire)
        self.c_rdb_bytes = memoryview(self.a_rdb_bytes)
        self.c_n = memoryview(self.a_n)
        self.c_max = memoryview(self.a_max)
        self.c_lfu = memoryview(self.a_lfu)
        self.c_idle = memoryview(self.a_idle)
        self.c_offset = memoryview(self.a_offset)
        self.c_module = memoryview(self.a_module)
        self.c_ttl_fields = memoryview(self.a_ttl_fields)
        self.c_est = memoryview(self.a_est)
        self.c_est_fallback = memoryview(self.a_est_fallback)
        self.c_v_expire = memoryview(self.a_v_expire)
        self.c_v_counts = memoryview(self.a_v_counts)
        self.c_v_lfu = memoryview(self.a_v_lfu)
        self.c_v_idle = memoryview(self.a_v_idle)
        self.c_v_module = memoryview(self.a_v_module)
        self.c_v_ttl_fields = memoryview(self.a_v_ttl_fields)
        self._empty_batch()

    def _empty_batch(self):
        """No rows written yet: no nulls counted, no key bytes."""
        self.nulls_expire = 0
        self.nulls_counts = 0
        self.nulls_lfu = 0
        self.nulls_idle = 0
        self.nulls_module = 0
        self.nulls_ttl_fields = 0
        self.nulls_est = 0
        # While every row's largest element is its element count (all strings, say), the
        # max column is not written and the batch shares the count column's buffer.
        self.max_is_n = True
        self.klen = 0
        self.rows = 0
        self.c_koff[0] = 0

    def keep_rows_before(self, offset):
        """Drop the batch's rows that end past ``offset``: a dump cut there under the scan
        gave them bytes that are not the dump's."""
        rows = self.rows
        ends = self.a_offset[:rows] + self.a_rdb_bytes[:rows]
        n = int(np.searchsorted(ends, offset, side="right"))
        if n == rows:
            return
        self.rows = n
        self.klen = int(self.a_koff[n])
        self.full = False

        def nulls(bitmap):
            return n - int(np.unpackbits(bitmap[: (n + 7) // 8], bitorder="little")[:n].sum())

        self.nulls_expire = nulls(self.a_v_expire)
        self.nulls_counts = nulls(self.a_v_counts)
        self.nulls_lfu = nulls(self.a_v_lfu)
        self.nulls_idle = nulls(self.a_v_idle)
        self.nulls_module = nulls(self.a_v_module)
        self.nulls_ttl_fields = nulls(self.a_v_ttl_fields)
        self.nulls_est = 0 if self.estimating else n

    def _grow_keys(self, need):
        cap = self.kcap
        while cap < need:
            cap *= 2
        grown = lazy_zeros(cap) if self.contiguous else np.empty(cap, np.uint8)
        grown[: self.klen] = self.keydata[: self.klen]
        self.kview = memoryview(grown)
        self.keydata = grown
        self.kcap = cap
