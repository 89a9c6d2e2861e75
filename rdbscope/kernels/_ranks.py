"""The sampling rank of each row of a chunk: a well-spread 64-bit hash of its row number
(compiled with ``_ranks.pxd``; numpy would take a temporary array per step)."""

try:
    import cython
except ImportError:  # Cython is only needed to build the extension
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython
if not cython.compiled:  # compiled, _ranks.pxd cimports it as a C function
    from ..compiled.bits import bit_length

MASK64 = cython.declare(cython.ulonglong, 0xFFFFFFFFFFFFFFFF)
MIX1 = cython.declare(cython.ulonglong, 0xBF58476D1CE4E5B9)
MIX2 = cython.declare(cython.ulonglong, 0x94D049BB133111EB)


def fill_ranks(first_row, salt, out):
    """``out[i]``: splitmix64's finalizer of ``(first_row + i) ^ salt``, modulo 2**64."""
    n = out.shape[0]
    i = 0
    with cython.nogil:
        while i < n:
            x = ((first_row + i) ^ salt) & MASK64
            x = ((x ^ (x >> 30)) * MIX1) & MASK64
            x = ((x ^ (x >> 27)) * MIX2) & MASK64
            out[i] = x ^ (x >> 31)
            i += 1


def count_bit_lengths(rank, counts):
    """``counts[b] += 1`` for each of ``rank`` whose bit length is ``b`` (0 for 0, up to 64)."""
    n = rank.shape[0]
    i = 0
    with cython.nogil:
        while i < n:
            counts[bit_length(rank[i])] += 1
            i += 1
