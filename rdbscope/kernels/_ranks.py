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
            out[i] = _rank(first_row + i, salt)
            i += 1


def ranks_under(first_row, salt, bits, counts, rows, ranks):
    """For each row ``i`` of ``rows``' length, ranked as :func:`fill_ranks` ranks it: ``counts[b] += 1``,
    ``b`` its rank's bit length (0 for 0, up to 64), and ``i`` and its rank written to ``rows`` and ``ranks``
    where the rank is below ``2**bits``; returns how many were written. No array of every rank: past the
    first chunks, few rows are written."""
    n = rows.shape[0]
    found = 0
    i = 0
    with cython.nogil:
        while i < n:
            x = _rank(first_row + i, salt)
            b = bit_length(x)
            counts[b] += 1
            rows[found] = i  # written whatever the rank, kept when below: no branch to mispredict
            ranks[found] = x
            found += b <= bits
            i += 1
    return found


def _rank(row, salt):
    x = (row ^ salt) & MASK64
    x = ((x ^ (x >> 30)) * MIX1) & MASK64
    x = ((x ^ (x >> 27)) * MIX2) & MASK64
    return x ^ (x >> 31)
