"""infer_patterns: the pattern of every key of a keys table, in a few column passes.

1. Mask digits and dictionary-encode: keys -> distinct forms (:mod:`.forms`).
2. Type the forms with pyarrow regexes: uuids, hex, dates, … (:mod:`.shapes`).
3. Settle candidate numbers and digits glued to letters from two sample keys
   per typed form (:mod:`.digits`).
4. Generalize high-cardinality literals per prefix-tree node (:mod:`.tree`,
   :mod:`.generalize`).
5. Map every key to its pattern through the form and typed-form numbers.
6. Write out the numbers that are the same in every key of a pattern (:mod:`.constants`).

Python loops run over typed forms (steps 3-4), never over keys.
"""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import kernels
from ..rdb.cluster import offsets_and_data
from ..rdb.keytext import key_texts
from . import markers as m
from .constants import keep_constant_numbers
from .digits import settle, settle_typed
from .forms import as_binary_array, encode, encode_forms, restore_short_versions, version_candidates
from .generalize import Thresholds
from .numbering import KeyForms
from .shapes import type_column, type_forms
from .tree import generalize

_NUMBER_CANDIDATE = f"{m.OPEN}n"
_NEEDS_SETTLING = f"0|{_NUMBER_CANDIDATE}"


def _settling_rows(typed, typed_of_form, key_forms):
    """Which typed forms have digits to settle, and the first and last key row of those with number
    candidates.

    Returns ``(needs, numbers, first, last)``: ``needs`` and ``numbers`` are
    bool per typed form (digits left, number candidates), ``first`` and
    ``last`` key rows per typed form (-1 where not needed).
    """
    needs = pc.match_substring_regex(typed, _NEEDS_SETTLING).to_numpy(zero_copy_only=False)
    numbers = pc.match_substring(typed, _NUMBER_CANDIDATE).to_numpy(zero_copy_only=False)
    form_first, form_last = key_forms.first_and_last(numbers[typed_of_form])
    first = np.full(len(typed), np.iinfo(np.int64).max, dtype=np.int64)
    last = np.full(len(typed), -1, dtype=np.int64)
    wanted = np.flatnonzero(form_first >= 0)
    np.minimum.at(first, typed_of_form[wanted], form_first[wanted])
    np.maximum.at(last, typed_of_form[wanted], form_last[wanted])
    first[~numbers] = -1
    return needs, numbers, first, last


def _settled_forms(typed, keys, needs, numbers, first, last, key_forms, typed_of_form):
    """Each typed form with its digits settled (see :mod:`.digits`)."""
    forms = typed.to_pylist()
    bulk = np.flatnonzero(needs & ~numbers)
    if len(bulk):
        lowest, highest = _lowest_and_highest(keys, key_forms.per_key(typed_of_form), bulk)
        firsts = type_column(key_texts(lowest)).to_pylist()
        lasts = type_column(key_texts(highest)).to_pylist()
        for j, i in enumerate(bulk.tolist()):
            forms[i] = settle_typed(forms[i], firsts[j], lasts[j])
    one_by_one = np.flatnonzero(numbers)
    if len(one_by_one):
        firsts = key_texts(keys.take(pa.array(first[one_by_one]))).to_pylist()
        lasts = key_texts(keys.take(pa.array(last[one_by_one]))).to_pylist()
        for j, i in enumerate(one_by_one.tolist()):
            forms[i] = settle(forms[i], firsts[j], lasts[j])
    return forms


def _lowest_and_highest(keys, typed_of_key, wanted):
    """The lowest and the highest key (bytes) of each typed form ``wanted`` (sorted): digits glued to
    letters are settled from them, which does not depend on the keys' order, nor on which of them
    a chunk holds with them."""
    place = np.full(int(typed_of_key.max()) + 1 if len(typed_of_key) else 0, -1, np.int32)
    place[wanted] = np.arange(len(wanted), dtype=np.int32)
    lowest, highest = np.full(len(wanted), -1, np.int64), np.full(len(wanted), -1, np.int64)
    kernels.key_ends.fill_key_ends(*offsets_and_data(keys), place[typed_of_key], lowest, highest)
    return keys.take(pa.array(lowest)), keys.take(pa.array(highest))


def infer_patterns(keys, thresholds=None):
    """The inferred pattern of each key.

    ``keys``: a pyarrow Array or ChunkedArray of binary (or string), or a list of
    bytes.  Returns a DictionaryArray (int32 indices, string dictionary sorted)
    of the same length and order, e.g. ``b"user:1000:profile"`` ->
    ``"user:{id}:profile"``.  ``thresholds`` tunes when literals become ``{*}``.
    """
    return infer_patterns_unwritten(keys, thresholds)[0]


def infer_patterns_unwritten(keys, thresholds=None):
    """:func:`infer_patterns` of ``keys``, and ``{pattern: the same with {id} where it shows a constant
    number}`` of its patterns that show one (see :mod:`.constants`)."""
    thresholds = thresholds or Thresholds()
    keys = as_binary_array(keys)
    if len(keys) == 0:
        return pa.DictionaryArray.from_arrays(pa.array([], pa.int32()), pa.array([], pa.string())), {}

    key_forms, forms = encode_forms(keys)
    typed_forms = type_forms(key_texts(forms))
    # A form with one key cannot mix versions; its digits are settled later.
    versions = version_candidates(typed_forms)
    form_counts = key_forms.counts()
    versions = versions[form_counts[versions] > 1]
    if len(versions):
        form_of_key, added, used = restore_short_versions(keys, key_forms.per_key(np.arange(len(forms))), forms,
                                                          versions)
        typed_forms = pa.concat_arrays([typed_forms, type_column(key_texts(added))]).filter(pa.array(used))
        key_forms = KeyForms.of(form_of_key, len(typed_forms))
        form_counts = key_forms.counts()
    typed_of_form, typed = encode(typed_forms)
    typed_of_form = typed_of_form.astype(np.int64)
    key_counts = np.bincount(typed_of_form, weights=form_counts, minlength=len(typed))

    settled = _settled_forms(typed, keys, *_settling_rows(typed, typed_of_form, key_forms), key_forms,
                             typed_of_form)
    settled_ids = {}
    settled_of_typed = np.array([settled_ids.setdefault(s, len(settled_ids)) for s in settled], dtype=np.int64)
    settled_counts = np.bincount(settled_of_typed, weights=key_counts, minlength=len(settled_ids))

    pattern_of_settled, patterns = generalize(pa.array(list(settled_ids), pa.string()), settled_counts, thresholds)
    rendered = [m.render(p) for p in patterns]
    dictionary = sorted(set(rendered))
    position = {p: i for i, p in enumerate(dictionary)}
    renumbered = np.array([position[p] for p in rendered], dtype=np.int32)
    pattern_of_form = renumbered[pattern_of_settled][settled_of_typed][typed_of_form]
    if len(dictionary) == 1:
        indices = np.zeros(len(keys), np.int32)
    else:
        indices = key_forms.per_key(pattern_of_form)
    # Counted per form (exact in float64 below 2**53 keys), not read again from every key.
    counts = np.bincount(pattern_of_form, weights=form_counts, minlength=len(dictionary)).astype(np.int64)
    indices, dictionary, unwritten = keep_constant_numbers(keys, indices, dictionary, counts,
                                                           thresholds.constant_min_keys)
    return pa.DictionaryArray.from_arrays(pa.array(indices, pa.int32()), pa.array(dictionary, pa.string())), unwritten
