"""A well-spread 64-bit hash of each key's bytes (FNV-1a, then splitmix64's finalizer): the same key
hashes the same in any chunk and any run (compiled with ``_key_hashes.pxd``)."""

try:
    import cython
except ImportError:  # Cython is only needed to build the extension
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython

MASK64 = cython.declare(cython.ulonglong, 0xFFFFFFFFFFFFFFFF)
FNV_OFFSET = cython.declare(cython.ulonglong, 0xCBF29CE484222325)
FNV_PRIME = cython.declare(cython.ulonglong, 0x100000001B3)
MIX1 = cython.declare(cython.ulonglong, 0xBF58476D1CE4E5B9)
MIX2 = cython.declare(cython.ulonglong, 0x94D049BB133111EB)


def fill_key_hashes(offsets, data, out):
    """``out[r]``: the hash of key ``r`` of an Arrow binary array given as its offsets and data buffers."""
    n = out.shape[0]
    if not cython.compiled:  # numpy's uint8 would not mix with Python's unbounded ints
        data = memoryview(data).tobytes()
    with cython.nogil:
        r = 0
        while r < n:
            x = FNV_OFFSET
            i = offsets[r]
            hi = offsets[r + 1]
            while i < hi:
                x = ((x ^ data[i]) * FNV_PRIME) & MASK64
                i += 1
            x = ((x ^ (x >> 30)) * MIX1) & MASK64
            x = ((x ^ (x >> 27)) * MIX2) & MASK64
            out[r] = x ^ (x >> 31)
            r += 1
