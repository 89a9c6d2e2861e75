"""A well-spread 64-bit hash of each key's bytes (``_forms.form_hash``, eight bytes a step, then
splitmix64's finalizer): the same key hashes the same in any chunk and any run; and the keys of a chunk
whose hash is at most their group's cut, found in the same pass (compiled with ``_key_hashes.pxd``)."""

try:
    import cython
except ImportError:  # Cython is only needed to build the extension
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython

if not cython.compiled:  # compiled, _key_hashes.pxd cimports them as C functions
    from ..compiled import python_module
    _forms = python_module("kernels._forms")
    form_hash, start_of, MASK64 = _forms.form_hash, _forms.start_of, _forms.MASK64

MIX1 = cython.declare(cython.ulonglong, 0xBF58476D1CE4E5B9)
MIX2 = cython.declare(cython.ulonglong, 0x94D049BB133111EB)


def finished(x):
    """splitmix64's finalizer of a form hash: the key's hash."""
    x = ((x ^ (x >> 30)) * MIX1) & MASK64
    x = ((x ^ (x >> 27)) * MIX2) & MASK64
    return x ^ (x >> 31)


def fill_key_hashes(offsets, data, out):
    """``out[r]``: the hash of key ``r`` of an Arrow binary array given as its offsets and data buffers."""
    n = out.shape[0]
    keys = start_of(data)
    with cython.nogil:
        r = 0
        while r < n:
            out[r] = finished(form_hash(keys, offsets[r], offsets[r + 1]))
            r += 1


def keys_under_cut(offsets, data, group, cut, rows, hashes):
    """The keys whose hash is at most ``cut[group[r]]``: their rows into ``rows`` and their hashes into
    ``hashes`` (both as long as the keys), ascending; returns how many. Each key is hashed and kept or
    not in one step: no hash of every key is written and read again."""
    n = group.shape[0]
    keys = start_of(data)
    found = 0
    with cython.nogil:
        r = 0
        while r < n:
            x = finished(form_hash(keys, offsets[r], offsets[r + 1]))
            if x <= cut[group[r]]:
                rows[found] = r
                hashes[found] = x
                found += 1
            r += 1
    return found
