"""Rows picked by a value and a small-int code per row (a key's type), in one pass over the rows each
(compiled with ``_code_rows.pxd``): those over their code's limit, and the largest of each code."""

try:
    import cython
except ImportError:  # Cython is only needed to build the extension
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython


def rows_over(values, codes, limits, out):
    """Write to ``out`` the rows whose value is over their code's limit (``values[r] > limits[codes[r]]``),
    ascending; returns how many."""
    m = codes.shape[0]
    found = 0
    with cython.nogil:
        r = 0
        while r < m:
            if values[r] > limits[codes[r]]:
                out[found] = r
                found += 1
            r += 1
    return found


def top_rows(values, codes, n, heap_values, heap_rows, sizes):
    """Fill each code's heap (``heap_values``, ``heap_rows``: ``n`` entries from ``code * n``; ``sizes``: a
    zeroed count per code) with the rows of its ``n`` largest ``values``, ties: the earliest rows. The root of
    a heap is the entry that goes first: the smallest value; of equal values the latest row, as earlier
    rows win ties."""
    m = codes.shape[0]
    with cython.nogil:
        r = 0
        while r < m:
            c = cython.cast(cython.Py_ssize_t, codes[r])
            v = cython.cast(cython.ulonglong, values[r])
            if sizes[c] < n or v > heap_values[c * n]:
                _offer(heap_values, heap_rows, sizes, c, n, v, r)
            r += 1


def big_rows(memory, elements, codes, limits, memory_limit, n, memory_heap, memory_rows, memory_sizes,
             element_heap, element_rows, element_sizes, out):
    """What the big-keys pass keeps of a chunk, in one pass over its rows: writes to ``out`` the rows over a
    limit (``elements[r] > limits[codes[r]]``, or ``memory[r] > memory_limit``), ascending, and returns how
    many; fills the heaps of the ``n`` largest ``memory`` and the ``n`` largest ``elements`` of each code as
    :func:`top_rows` does (none for ``n`` 0)."""
    m = codes.shape[0]
    found = 0
    with cython.nogil:
        r = 0
        while r < m:
            c = cython.cast(cython.Py_ssize_t, codes[r])
            v = memory[r]
            e = elements[r]
            if e > limits[c] or v > memory_limit:
                out[found] = r
                found += 1
            if n > 0:
                if memory_sizes[c] < n or v > memory_heap[c * n]:
                    _offer(memory_heap, memory_rows, memory_sizes, c, n, v, r)
                if element_sizes[c] < n or e > element_heap[c * n]:
                    _offer(element_heap, element_rows, element_sizes, c, n, e, r)
            r += 1
    return found


def _offer(heap_values, heap_rows, sizes, c, n, v, r):
    """Row ``r`` of value ``v`` offered to code ``c``'s heap (see :func:`top_rows`): taken while it has room,
    else in place of its root when ``v`` is larger."""
    base = c * n
    size = cython.cast(cython.Py_ssize_t, sizes[c])
    if size < n:  # room left: the new entry, the latest row, rises while its parent's value is no smaller
        i = size
        sizes[c] = size + 1
        while i > 0:
            parent = (i - 1) >> 1
            if heap_values[base + parent] < v:
                break
            heap_values[base + i] = heap_values[base + parent]
            heap_rows[base + i] = heap_rows[base + parent]
            i = parent
        heap_values[base + i] = v
        heap_rows[base + i] = r
    elif v > heap_values[base]:  # the root goes: the new entry sinks from there
        i = 0
        while True:
            child = 2 * i + 1
            if child >= n:
                break
            if child + 1 < n and _first(heap_values[base + child + 1], heap_rows[base + child + 1],
                                        heap_values[base + child], heap_rows[base + child]):
                child += 1
            if not _first(heap_values[base + child], heap_rows[base + child], v, r):
                break
            heap_values[base + i] = heap_values[base + child]
            heap_rows[base + i] = heap_rows[base + child]
            i = child
        heap_values[base + i] = v
        heap_rows[base + i] = r


def _first(value, row, other_value, other_row):
    """Whether the entry (``value``, ``row``) leaves the heap before (``other_value``, ``other_row``)."""
    return value < other_value or (value == other_value and row > other_row)
