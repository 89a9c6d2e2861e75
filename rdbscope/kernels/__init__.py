"""The compiled loops the analysis runs over a chunk's keys, for the packages above this one: each is
its Cython build where it was built, else its source run as Python (``RDBSCOPE_PUREPYTHON=1`` forces
the source). See the modules for what each does."""

import numpy as np
import pyarrow as pa

from ..compiled import chosen_module
from ..rdb.cluster import offsets_and_data

#: Spilled expiry records hashed into buckets, and those of the busy buckets (``_busy_buckets.py``).
busy_buckets = chosen_module("kernels._busy_buckets")
#: Rows over their code's limit, and the largest of each code (``_code_rows.py``).
code_rows = chosen_module("kernels._code_rows")
#: Keys' digits masked and their forms numbered (``_forms.py``).
forms = chosen_module("kernels._forms")
#: First keys and largest keys per group (``_group_rows.py``).
group_rows = chosen_module("kernels._group_rows")
#: Chosen keys of a binary array copied into new buffers (``_gather.py``).
gather = chosen_module("kernels._gather")
#: Integer weights summed per group (``_group_sums.py``).
group_sums = chosen_module("kernels._group_sums")
#: Ids counted, the first and last row of wanted ids, values per id spread to the rows (``_ids.py``).
ids = chosen_module("kernels._ids")
#: The lowest and the highest key of each group (``_key_ends.py``).
key_ends = chosen_module("kernels._key_ends")
#: A 64-bit hash of each key's bytes (``_key_hashes.py``).
key_hashes = chosen_module("kernels._key_hashes")
#: Keys counted per group among those a mask or their code selects (``_masked_counts.py``).
masked_counts = chosen_module("kernels._masked_counts")
#: The stable order of 64-bit keys, by a radix sort (``_radix.py``).
radix = chosen_module("kernels._radix")
#: The uniform sample's rank of each row (``_ranks.py``).
ranks = chosen_module("kernels._ranks")
#: Expiring keys packed into the spill's records, by partition (``_records.py``).
records = chosen_module("kernels._records")
#: Sorted runs of counted values merged (``_runs.py``).
runs = chosen_module("kernels._runs")
#: Keys counted into the slots of a dense range (``_slot_counts.py``).
slot_counts = chosen_module("kernels._slot_counts")
#: What the tiny-strings rule sums per group (``_string_sums.py``).
string_sums = chosen_module("kernels._string_sums")


#: Fewer ids than this are counted in four lanes (see ``_ids.py``).
FEW_IDS = 1 << 12


def as_ids(values):
    """Ids as the kernels take them: contiguous int32 or int64, no copy when they already are."""
    if values.dtype in (np.int32, np.int64) and values.flags.c_contiguous:
        return values
    return np.ascontiguousarray(values, np.int64)


def count_ids(values, n):
    """How often each of ``0..n-1`` occurs in the ids ``values`` (int64), in one compiled pass (np.bincount
    copies its input to intp first: 80 MB for 10M ids at once)."""
    lanes = 4 if n <= FEW_IDS else 1
    counts = np.zeros(lanes * n, np.int64)
    ids.count_into(as_ids(values), counts, n, lanes)
    return counts.reshape(lanes, n).sum(axis=0) if lanes > 1 else counts


def as_codes(codes):
    """Small-int codes as the kernels take them: contiguous (u)int8, int16, int32 or int64, no copy when they
    already are."""
    if codes.dtype in (np.int8, np.uint8, np.int16, np.int32, np.int64) and codes.flags.c_contiguous:
        return codes
    return np.ascontiguousarray(codes, np.int64)


def count_where(ids, mask, n):
    """How many rows of each of ``0..n-1`` the bool ``mask`` selects (int64), in one compiled pass."""
    counts = np.zeros(n, np.int64)
    masked_counts.count_where(as_ids(ids), np.ascontiguousarray(mask, np.bool_).view(np.uint8), counts)
    return counts


def count_of_codes(ids, codes, wanted, n):
    """How many rows of each of ``0..n-1`` have a code ``c`` with ``wanted[c]`` (bool per code; int64)."""
    counts = np.zeros(n, np.int64)
    masked_counts.count_of_codes(as_ids(ids), as_codes(codes), np.ascontiguousarray(wanted, np.bool_).view(np.uint8),
                                 counts)
    return counts


def take_keys(keys, rows):
    """``keys.take(rows)`` of a binary Arrow array or chunked array (``rows``: ascending int64 positions),
    its bytes copied by the gather kernel: pyarrow's take costs several times as much a key."""
    rows = np.ascontiguousarray(rows, np.int64)
    if isinstance(keys, pa.ChunkedArray):
        starts = np.cumsum([0] + [len(chunk) for chunk in keys.chunks])
        cuts = np.searchsorted(rows, starts)
        return pa.chunked_array([take_keys(chunk, rows[cuts[i]:cuts[i + 1]] - starts[i])
                                 for i, chunk in enumerate(keys.chunks)], keys.type)
    if keys.type != pa.binary() or keys.null_count:
        return keys.take(pa.array(rows, pa.int64()))
    offsets, data = offsets_and_data(keys)
    out_offsets = np.empty(len(rows) + 1, np.int32)
    total = gather.fill_offsets(offsets, rows, out_offsets)
    if total < 0:  # more bytes than int32 offsets reach: pyarrow's take says so
        return keys.take(pa.array(rows, pa.int64()))
    out_data = np.empty(total, np.uint8)
    gather.copy_keys(offsets, data, rows, out_offsets, out_data)
    return pa.Array.from_buffers(pa.binary(), len(rows), [None, pa.py_buffer(out_offsets), pa.py_buffer(out_data)])
