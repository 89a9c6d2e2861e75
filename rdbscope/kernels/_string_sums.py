"""What the tiny-strings rule sums per group, in one pass over the rows (compiled with ``_string_sums.pxd``):
of the keys of the wanted types in the eligible groups, how many, how many with short values, and the bytes
of their keys and of their values."""

try:
    import cython
except ImportError:  # Cython is only needed to build the extension
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython


def sums_into(group, codes, wanted, eligible, lengths, offsets, limit, keys, n_short, key_bytes, value_bytes):
    """For each row ``r`` whose code is wanted (``wanted[codes[r]]``) and whose group ``g`` is eligible
    (``eligible[g]``): add 1 to ``keys[g]``, 1 to ``n_short[g]`` when ``lengths[r] <= limit`` (never for a
    negative limit), the key's bytes (``offsets[r + 1] - offsets[r]``) to ``key_bytes[g]`` and ``lengths[r]``
    to ``value_bytes[g]``."""
    n = group.shape[0]
    with cython.nogil:
        r = 0
        while r < n:
            g = group[r]
            if wanted[codes[r]] and eligible[g]:
                length = cython.cast(cython.ulonglong, lengths[r])
                keys[g] += 1
                if limit >= 0 and length <= cython.cast(cython.ulonglong, limit):
                    n_short[g] += 1
                key_bytes[g] += cython.cast(cython.ulonglong, offsets[r + 1] - offsets[r])
                value_bytes[g] += length
            r += 1
