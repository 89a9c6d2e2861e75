"""Keys' forms: each key with its digits as ``0``, and a number per distinct form in the order forms
first appear (compiled with ``_forms.pxd``). One pass over the keys: the same numbering as
dictionary-encoding the masked keys, with only the forms themselves written out masked; each key is
masked eight bytes at a time as it is hashed or compared with a form.

The hashing and comparing functions read their bytes through :func:`start_of` (compiled, a pointer to
the first byte; as Python, the buffer): ``_key_hashes`` calls :func:`form_hash` once a key, and a
pointer passes where a memoryview would be copied whole into every call."""

try:
    import cython
except ImportError:  # Cython is only needed to build the extension
    from ..compiled import cython_shim as cython
if not cython.compiled:  # as Python, the shim's few names are much faster than Cython's shadow module
    from ..compiled import cython_shim as cython

if not cython.compiled:  # compiled, a C constant (_forms.pxd): the compiler drops the masking
    MASK64 = 0xFFFFFFFFFFFFFFFF
SEED = cython.declare(cython.ulonglong, 0x9E3779B97F4A7C15)
MIX = cython.declare(cython.ulonglong, 0xBF58476D1CE4E5B9)
LOW7 = cython.declare(cython.ulonglong, 0x7F7F7F7F7F7F7F7F)
HIGH_BITS = cython.declare(cython.ulonglong, 0x8080808080808080)
ABOVE_9 = cython.declare(cython.ulonglong, 0x4646464646464646)
FROM_0 = cython.declare(cython.ulonglong, 0x5050505050505050)
ZEROS = cython.declare(cython.ulonglong, 0x3030303030303030)


def start_of(buffer):
    """What the functions below read ``buffer`` (contiguous, at least one byte) through."""
    if cython.compiled:
        return cython.address(buffer[0])
    return buffer


def word_at(masked, i):
    """The eight bytes from ``masked[i]`` as a little-endian integer."""
    if cython.compiled:  # one load (_words.pxd)
        return load_le64(masked + i)
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
    w = tail_word(masked, i, hi)
    h = ((h ^ w) * MIX) & MASK64
    return h ^ (h >> 32)


def masked_word(w):
    """The eight bytes of ``w`` with the digits 0-9 written as 0, all at once: a byte ``b`` below 0x80
    is a digit when ``b + 0x50`` reaches 0x80 and ``b + 0x46`` does not (no byte carries into the next)."""
    low = w & LOW7
    digits = (low + FROM_0) & ~(low + ABOVE_9) & ~w & HIGH_BITS
    spread = (digits >> 7) * 0xFF
    return (w & ~spread) | (ZEROS & spread)


def tail_word(data, i, hi):
    """The bytes ``data[i:hi]`` (fewer than eight) as the low bytes of a word, the rest 0."""
    if i < hi and hi >= 8:  # the top of the word that ends with them
        return word_at(data, hi - 8) >> cython.cast(cython.int, 64 - 8 * (hi - i))
    w = 0
    shift = 0
    while i < hi:
        w = w | (cython.cast(cython.ulonglong, data[i]) << shift)
        shift += 8
        i += 1
    return w


def masked_form_hash(data, lo, hi):
    """:func:`form_hash` of ``data[lo:hi]`` with its digits as 0, masked as it is read."""
    h = SEED ^ cython.cast(cython.ulonglong, hi - lo)
    i = lo
    while i + 8 <= hi:
        h = ((h ^ masked_word(word_at(data, i))) * MIX) & MASK64
        h = h ^ (h >> 29)
        i += 8
    h = ((h ^ masked_word(tail_word(data, i, hi))) * MIX) & MASK64
    return h ^ (h >> 32)


def is_form_of(data, lo, forms, at, length):
    """Whether ``data[lo:lo + length]`` with its digits as 0 is ``forms[at:at + length]``."""
    if cython.compiled and length >= 16:  # the same, sixteen bytes a step (_forms.pxd)
        return is_form_wide(data + lo, forms + at, length)
    j = 0
    while j + 8 <= length:
        w = word_at(data, lo + j)
        f = word_at(forms, at + j)
        if w != f and masked_word(w) != f:
            return False
        j += 8
    if j == length:
        return True
    if length >= 8:  # the last eight bytes, some compared already
        w = word_at(data, lo + length - 8)
        f = word_at(forms, at + length - 8)
    else:
        w = tail_word(data, lo, lo + length)
        f = tail_word(forms, at, at + length)
    return w == f or masked_word(w) == f


def number_forms(offsets, data, table, form_of_key, form_offsets, forms, key_counts, state, recent):
    """Number the keys (key ``r``: ``data[offsets[r]:offsets[r + 1]]``) by their form (digits as 0) in
    the order the forms first appear: ``form_of_key[r]`` is key ``r``'s; form ``f`` is written at
    ``forms[form_offsets[f]:form_offsets[f + 1]]`` (``form_offsets[0]`` set by the caller), and
    ``key_counts[f]`` gets one more per key of form ``f``. Only the forms are masked: a key is compared
    with its candidate form as it is read. ``table``: a power of two of slots, each -1 or a form.
    ``state``: the next key and the forms so far, updated; it stops early when the table is half full
    (see :func:`place_forms`). ``recent``: a power of two of slots, each -1 or the last form of the keys
    whose length falls in it, tried before the table."""
    n = form_of_key.shape[0]
    slots = table.shape[0] - 1
    recent_mask = recent.shape[0] - 1
    r = state[0]
    n_forms = state[1]
    keys = start_of(data)
    written = start_of(forms)
    with cython.nogil:
        while r < n and 2 * n_forms < slots:
            lo = offsets[r]
            length = offsets[r + 1] - lo
            f = recent[length & recent_mask]
            if f >= 0:  # the last form of this key's length is often its own: no hash then
                at = form_offsets[f]
                if form_offsets[f + 1] - at == length and is_form_of(keys, lo, written, at, length):
                    form_of_key[r] = f
                    key_counts[f] += 1
                    r += 1
                    continue
            slot = masked_form_hash(keys, lo, lo + length) & slots
            while True:
                f = table[slot]
                if f < 0:
                    table[slot] = n_forms
                    at = form_offsets[n_forms]
                    j = 0
                    while j < length:
                        b = data[lo + j]
                        forms[at + j] = 48 if 48 <= b and b <= 57 else b
                        j += 1
                    form_offsets[n_forms + 1] = at + length
                    form_of_key[r] = n_forms
                    key_counts[n_forms] += 1
                    recent[length & recent_mask] = n_forms
                    n_forms += 1
                    break
                at = form_offsets[f]
                if form_offsets[f + 1] - at == length and is_form_of(keys, lo, written, at, length):
                    form_of_key[r] = f
                    key_counts[f] += 1
                    recent[length & recent_mask] = f
                    break
                slot = (slot + 1) & slots
            r += 1
    state[0] = r
    state[1] = n_forms


def place_forms(form_offsets, forms, table, n_forms):
    """Put forms ``0..n_forms-1`` in ``table`` (every slot -1, larger than the one they outgrew)."""
    slots = table.shape[0] - 1
    f = 0
    written = start_of(forms)
    with cython.nogil:
        while f < n_forms:
            slot = form_hash(written, form_offsets[f], form_offsets[f + 1]) & slots
            while table[slot] >= 0:
                slot = (slot + 1) & slots
            table[slot] = f
            f += 1

