"""Keys' forms: each key with its digits as ``0``, and a number per distinct form in the order forms
first appear (compiled with ``_forms.pxd``). One pass masks, one hashes: the same numbering as
dictionary-encoding the masked keys, without a copy of them as a Python bytes object in between."""

try:
    import cython
except ImportError:  # Cython is only needed to build the extension
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython

MASK64 = cython.declare(cython.ulonglong, 0xFFFFFFFFFFFFFFFF)
SEED = cython.declare(cython.ulonglong, 0x9E3779B97F4A7C15)
MIX = cython.declare(cython.ulonglong, 0xBF58476D1CE4E5B9)


def mask_digits_into(data, start, stop, out):
    """``out[i - start]``: ``data[i]`` for ``start <= i < stop``, the digits 0-9 written as 0."""
    i = start
    with cython.nogil:
        while i < stop:
            b = data[i]
            out[i - start] = 48 if 48 <= b and b <= 57 else b
            i += 1


def word_at(masked, i):
    """The eight bytes from ``masked[i]`` as a little-endian integer."""
    if cython.compiled:  # one load (_words.pxd)
        return load_le64(cython.address(masked[i]))
    return (cython.cast(cython.ulonglong, masked[i]) | (cython.cast(cython.ulonglong, masked[i + 1]) << 8)
            | (cython.cast(cython.ulonglong, masked[i + 2]) << 16)
            | (cython.cast(cython.ulonglong, masked[i + 3]) << 24)
            | (cython.cast(cython.ulonglong, masked[i + 4]) << 32)
            | (cython.cast(cython.ulonglong, masked[i + 5]) << 40)
            | (cython.cast(cython.ulonglong, masked[i + 6]) << 48)
            | (cython.cast(cython.ulonglong, masked[i + 7]) << 56))


def form_hash(masked, lo, hi):
    """A 64-bit hash of ``masked[lo:hi]``, read eight bytes at a time."""
    h = SEED ^ cython.cast(cython.ulonglong, hi - lo)
    i = lo
    while i + 8 <= hi:
        h = ((h ^ word_at(masked, i)) * MIX) & MASK64
        h = h ^ (h >> 29)
        i += 8
    w = 0
    if i < hi and hi >= 8:  # the last bytes, as the top of the word that ends with them
        w = word_at(masked, hi - 8) >> cython.cast(cython.int, 64 - 8 * (hi - i))
    else:
        shift = 0
        while i < hi:
            w = w | (cython.cast(cython.ulonglong, masked[i]) << shift)
            shift += 8
            i += 1
    h = ((h ^ w) * MIX) & MASK64
    return h ^ (h >> 32)


def same_bytes(masked, a, b, length):
    """Whether ``masked[a:a + length]`` and ``masked[b:b + length]`` hold the same bytes."""
    j = 0
    while j + 8 <= length:
        if word_at(masked, a + j) != word_at(masked, b + j):
            return False
        j += 8
    if j < length and length >= 8:  # the last eight bytes, some compared already
        return word_at(masked, a + length - 8) == word_at(masked, b + length - 8)
    while j < length:
        if masked[a + j] != masked[b + j]:
            return False
        j += 1
    return True


def number_forms(offsets, masked, base, table, form_of_key, first_key, key_counts, state, recent):
    """Number the keys' masked bytes (key ``r``: ``masked[offsets[r] - base:offsets[r + 1] - base]``) in the
    order they first appear: ``form_of_key[r]`` is key ``r``'s, ``first_key[f]`` the first key of form
    ``f``, and ``key_counts[f]`` gets one more per key of form ``f``. ``table``: a power of two of slots,
    each -1 or a form. ``state``: the next key and the forms so far, updated; it stops early when the
    table is half full (see :func:`place_forms`). ``recent``: a power of two of slots, each -1 or the
    last form of the keys whose length falls in it, tried before the table."""
    n = form_of_key.shape[0]
    slots = table.shape[0] - 1
    recent_mask = recent.shape[0] - 1
    r = state[0]
    n_forms = state[1]
    with cython.nogil:
        while r < n and 2 * n_forms < slots:
            lo = offsets[r] - base
            hi = offsets[r + 1] - base
            f = recent[(hi - lo) & recent_mask]
            if f >= 0:  # the last form of this key's length is often its own: no hash then
                k = first_key[f]
                other = offsets[k] - base
                if offsets[k + 1] - base - other == hi - lo and same_bytes(masked, other, lo, hi - lo):
                    form_of_key[r] = f
                    key_counts[f] += 1
                    r += 1
                    continue
            slot = form_hash(masked, lo, hi) & slots
            while True:
                f = table[slot]
                if f < 0:
                    table[slot] = n_forms
                    first_key[n_forms] = r
                    form_of_key[r] = n_forms
                    key_counts[n_forms] += 1
                    recent[(hi - lo) & recent_mask] = n_forms
                    n_forms += 1
                    break
                k = first_key[f]
                other = offsets[k] - base
                if offsets[k + 1] - base - other == hi - lo and same_bytes(masked, other, lo, hi - lo):
                    form_of_key[r] = f
                    key_counts[f] += 1
                    recent[(hi - lo) & recent_mask] = f
                    break
                slot = (slot + 1) & slots
            r += 1
    state[0] = r
    state[1] = n_forms


def place_forms(offsets, masked, base, table, first_key, n_forms):
    """Put forms ``0..n_forms-1`` in ``table`` (every slot -1, larger than the one they outgrew)."""
    slots = table.shape[0] - 1
    f = 0
    with cython.nogil:
        while f < n_forms:
            k = first_key[f]
            slot = form_hash(masked, offsets[k] - base, offsets[k + 1] - base) & slots
            while table[slot] >= 0:
                slot = (slot + 1) & slots
            table[slot] = f
            f += 1


def fill_form_hashes(offsets, data, out):
    """``out[r]``: :func:`form_hash` of key ``r`` of an Arrow binary array given as its offsets and data
    buffers: the keys' hashes in one call, where a call per key from another module costs more than
    the hash."""
    n = out.shape[0]
    with cython.nogil:
        r = 0
        while r < n:
            out[r] = form_hash(data, offsets[r], offsets[r + 1])
            r += 1
