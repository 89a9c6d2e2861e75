"""Per-key work, kept to a few whole-column passes.

A key's *form* is the key with every ASCII digit replaced by ``0``.  Keys that
differ only in their numbers share a form, so a keyspace of millions of keys
has far fewer forms, and everything after this module works per form.

One exception: one or two digits glued to one or two letters (``v2``, ``h2``,
``s3``, ``x86``) usually name a variant rather than count things, and
``…:v1`` and ``…:v2`` keys are different families.  Such digits are put back
into the forms (see :func:`restore_short_versions`).
"""

import re
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import kernels
from .numbering import KeyForms

_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")


def as_binary_array(keys):
    """The keys as one contiguous binary (or large_binary) array without nulls."""
    if isinstance(keys, pa.ChunkedArray) and keys.num_chunks == 1:
        keys = keys.chunk(0)  # combining one chunk copies it
    elif isinstance(keys, pa.ChunkedArray):
        keys = keys.combine_chunks() if keys.num_chunks else pa.array([], pa.binary())
    elif not isinstance(keys, pa.Array):
        keys = pa.array([k.encode() if isinstance(k, str) else bytes(k) for k in keys], pa.binary())
    if pa.types.is_string(keys.type) or pa.types.is_large_string(keys.type):
        keys = keys.view(pa.large_binary() if pa.types.is_large_string(keys.type) else pa.binary())
    if pa.types.is_binary_view(keys.type) or pa.types.is_string_view(keys.type):
        keys = keys.cast(pa.large_binary())
    if not (pa.types.is_binary(keys.type) or pa.types.is_large_binary(keys.type)):
        raise TypeError(f"keys must be binary, not {keys.type}")
    if keys.null_count:
        keys = pc.fill_null(keys, b"")
    return keys


def _offsets(array):
    dtype = np.int64 if pa.types.is_large_binary(array.type) or pa.types.is_large_string(array.type) else np.int32
    raw = np.frombuffer(array.buffers()[1], dtype=dtype)
    return raw[array.offset: array.offset + len(array) + 1]


def _data(array):
    data = array.buffers()[2]
    return data if data is not None else pa.py_buffer(b"")


def mask_digits(keys):
    """Each key with its digits replaced by ``0``: one new data buffer holding only these keys' bytes."""
    offsets = _offsets(keys)
    start, stop = int(offsets[0]), int(offsets[-1])
    masked = pa.py_buffer(_data(keys)[start:stop].to_pybytes().translate(_DIGITS_TO_ZERO))
    if start == 0:
        return pa.Array.from_buffers(keys.type, len(keys), [None, keys.buffers()[1], masked], offset=keys.offset)
    return pa.Array.from_buffers(keys.type, len(keys), [None, pa.py_buffer(offsets - offsets[0]), masked])


_SCRATCH = threading.local()


def _scratch(n_bytes, n_keys):
    """The forms' bytes and offsets :func:`_numbered_forms` writes, kept from one chunk to the next by
    each thread: fresh memory of that size costs more to fault in than to fill."""
    held = getattr(_SCRATCH, "arrays", None)
    if held is None or len(held[0]) < n_bytes or len(held[1]) < n_keys + 1:
        held = (np.empty(max(n_bytes, 1), np.uint8), np.empty(n_keys + 1, np.int32))
        _SCRATCH.arrays = held
    return held[0][:max(n_bytes, 1)], held[1][:n_keys + 1]


#: Slots of the table :func:`_numbered_forms` starts with (it grows fourfold when half full).
FIRST_FORM_SLOTS = 1 << 12
#: Key lengths (modulo this power of two) whose last form :func:`_numbered_forms` tries before hashing.
RECENT_LENGTHS = 64


def _numbered_forms(keys):
    """``encode(mask_digits(keys))`` of a binary array, in one compiled pass (see ``kernels/_forms.py``),
    and the keys of each form: ``(form of each key, forms, keys per form)``."""
    offsets = np.ascontiguousarray(_offsets(keys), np.int32)
    n_bytes = int(offsets[-1] - offsets[0])
    data = np.frombuffer(_data(keys), np.uint8) if n_bytes else np.zeros(1, np.uint8)
    form_bytes, form_offsets = _scratch(n_bytes, len(keys))
    form_offsets[0] = 0
    form_of_key = np.empty(len(keys), np.int32)
    key_counts = np.zeros(len(keys), np.int64)  # zero pages from the system: only the forms' are touched
    table = np.full(FIRST_FORM_SLOTS, -1, np.int32)  # grows with the forms, not the keys: stays in cache
    state = np.zeros(2, np.int64)  # the next key, the forms so far
    recent = np.full(RECENT_LENGTHS, -1, np.int32)  # the last form of each length (modulo RECENT_LENGTHS)
    while True:
        kernels.forms.number_forms(offsets, data, table, form_of_key, form_offsets, form_bytes, key_counts, state,
                                   recent)
        if state[0] == len(keys):
            break
        table = np.full(4 * len(table), -1, np.int32)
        kernels.forms.place_forms(form_offsets, form_bytes, table, int(state[1]))
    n_forms = int(state[1])
    ends = form_offsets[:n_forms + 1].copy()  # the scratch is the next chunk's
    written = pa.py_buffer(form_bytes[:ends[-1]].copy())
    forms = pa.Array.from_buffers(keys.type, n_forms, [None, pa.py_buffer(ends), written])
    return form_of_key, forms, key_counts[:n_forms].copy()


#: Keys per slice of :func:`encode_forms`.
FORM_SLICE_ROWS = 1 << 20


def encode_forms(keys, slice_rows=FORM_SLICE_ROWS):
    """``(key_forms, forms)``: the :class:`~.numbering.KeyForms` of the keys and
    the distinct forms, in the order they first occur, as ``encode(mask_digits(keys))``
    gives them.

    A slice at a time: while this thread masks a slice (``bytes.translate``
    holds the GIL), another dictionary-encodes the one before (pyarrow
    releases it). Each slice keeps its own numbering of forms.
    """
    if len(keys) <= slice_rows and pa.types.is_binary(keys.type):
        form_of_key, forms, counts = _numbered_forms(keys)
        return KeyForms.of(form_of_key, len(forms), counts), forms
    if len(keys) <= slice_rows:
        form_of_key, forms = encode(mask_digits(keys))
        return KeyForms.of(form_of_key, len(forms)), forms
    with ThreadPoolExecutor(1) as pool:
        pending = [pool.submit(pa.Array.dictionary_encode, mask_digits(keys.slice(start, slice_rows)))
                   for start in range(0, len(keys), slice_rows)]
        parts = [future.result() for future in pending]
    # Numbering the slices' dictionaries in slice order numbers each form where it first occurs.
    renumber, forms = encode(pa.concat_arrays([part.dictionary for part in parts]))
    renumber = renumber.astype(np.int64)
    slices = []
    row = first = 0
    for part in parts:
        local = part.indices.to_numpy(zero_copy_only=False)
        slices.append((row, local, renumber[first:first + len(part.dictionary)]))
        row += len(local)
        first += len(part.dictionary)
    return KeyForms(len(forms), tuple(slices)), forms


_VERSION_RE2 = r"(?:^|[^A-Za-z0-9])[A-Za-z]{1,2}0{1,2}(?:[^A-Za-z0-9]|$)"
_VERSION = re.compile(rb"(?<![A-Za-z0-9])[A-Za-z]{1,2}(0{1,2})(?![A-Za-z0-9])")
_MAX_VERSION_DIGITS = 8


def _version_positions(form):
    """Byte positions of version digits in one form (at most eight)."""
    positions = []
    for match in _VERSION.finditer(form):
        positions.extend(range(match.start(1), match.end(1)))
    return positions[:_MAX_VERSION_DIGITS]


def version_candidates(typed):
    """Forms whose typed form still shows version digits (uuids and hashes are typed away)."""
    return np.flatnonzero(pc.match_substring_regex(typed, _VERSION_RE2).to_numpy(zero_copy_only=False))


def restore_short_versions(keys, form_of_key, forms, candidates):
    """Split the candidate forms by the values of their version digits (``v2`` apart from ``v1``).

    Returns ``(form_of_key, added, used)``: the new form of each key, the forms
    added (with their version digits put back), and which of the old forms
    followed by the added ones still have keys.
    """
    texts = forms.take(pa.array(candidates)).to_pylist()
    positions = [_version_positions(t) for t in texts]
    n_digits = np.zeros(len(forms), dtype=np.int64)
    n_digits[candidates] = [len(p) for p in positions]
    first_position = np.zeros(len(forms), dtype=np.int64)
    first_position[candidates] = np.cumsum([0] + [len(p) for p in positions[:-1]])
    flat_positions = np.array([i for p in positions for i in p], dtype=np.int64)

    selected = np.flatnonzero(n_digits[form_of_key])
    selected_forms = form_of_key[selected].astype(np.int64)
    counts = n_digits[selected_forms]
    owner = np.repeat(np.arange(len(selected)), counts)
    rank = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    where = _offsets(keys)[selected][owner] + flat_positions[first_position[selected_forms][owner] + rank]
    digits = np.frombuffer(_data(keys), dtype=np.uint8)[where].astype(np.int64) - ord("0")
    signature = np.zeros(len(selected), dtype=np.int64)
    np.add.at(signature, owner, digits * 10 ** rank)
    combined = selected_forms * 10 ** _MAX_VERSION_DIGITS + signature
    distinct, inverse = np.unique(combined, return_inverse=True)

    text_of = dict(zip(candidates.tolist(), zip(texts, positions, strict=True), strict=True))
    restored = []
    for value in distinct.tolist():
        form, sig = divmod(value, 10 ** _MAX_VERSION_DIGITS)
        text, places = text_of[form]
        chars = bytearray(text)
        for place in places:
            chars[place] = ord("0") + sig % 10
            sig //= 10
        restored.append(bytes(chars))
    form_of_key = form_of_key.astype(np.int64, copy=True)
    form_of_key[selected] = len(forms) + inverse
    # Forms whose keys all moved to restored forms are dropped.
    used = np.bincount(form_of_key, minlength=len(forms) + len(restored)) > 0
    renumbered = np.cumsum(used) - 1
    return renumbered[form_of_key], pa.array(restored, forms.type), used


def encode(array):
    """``(indices, distinct)``: the position of each value in the array of distinct values."""
    encoded = array.dictionary_encode()
    return encoded.indices.to_numpy(zero_copy_only=False), encoded.dictionary
