"""Which library wrote each pattern's keys: the pattern text and types against :data:`.schemas.SCHEMAS`."""

import re
from dataclasses import dataclass

from .schemas import BULL, BULL_OR_BULLMQ, BULLMQ, SCHEMAS, STORE_ENTRIES, KeySchema, Library

_COMPILED = tuple((schema, re.compile(schema.regex, re.S)) for schema in SCHEMAS)
_BULL_QUEUE = re.compile(r"(.*?bull:[^:]+):")
_BULLMQ_ONLY = re.compile(r".*?bull:[^:]+:(?:events|meta|marker)")
#: Longest pattern held against the schemas: no library names its keys longer, and a key of a megabyte
#: would cost every schema's regex a pass over it.
MAX_PATTERN_CHARS = 4096


@dataclass(frozen=True)
class Recognized:
    """A pattern a library owns.

    Attributes:
        schema: the kind of key (:class:`~.schemas.KeySchema`).
        library: the library (for Bull queues, told apart from BullMQ ones by the keys beside them).
        prefix: what a prefix setting put before the library's own name ("" when none).
        told_by: for an owner its values told (:mod:`.by_value`), what in them told it; "" for one told by name.
    """

    schema: KeySchema
    library: Library
    prefix: str
    told_by: str = ""

    @property
    def key_kind(self):
        return self.schema.key_kind


def match_schema(pattern, types, examples):
    """``(schema, prefix)`` of the first schema ``pattern`` (of ``types``, with ``examples``) fits, or None."""
    if len(pattern) > MAX_PATTERN_CHARS:
        return None
    for schema, regex in _COMPILED:
        found = regex.fullmatch(pattern)
        if found and set(types) <= set(schema.types) and _examples_fit(schema, examples):
            return schema, found.groupdict().get("prefix") or ""
    return None


def _examples_fit(schema, examples):
    """True unless ``schema`` asks its examples for a shape (Redis OM's ULIDs) and some example lacks it."""
    if not schema.examples:
        return True
    return bool(examples) and all(len(e) <= MAX_PATTERN_CHARS and re.fullmatch(schema.examples, e, re.S)
                                  for e in examples)


def recognize(dbs, patterns, types, examples=None):
    """A :class:`Recognized` or None for each (db, pattern, types present) of a pattern table.

    ``examples``: a few keys of each pattern, as text; without them, kinds told by their examples'
    shape (:attr:`~.schemas.KeySchema.examples`) are not recognized.
    """
    examples = examples if examples is not None else [()] * len(patterns)
    found = [match_schema(p, t, e) for p, t, e in zip(patterns, types, examples, strict=True)]
    present = {}
    for db, pattern in zip(dbs, patterns, strict=True):
        present.setdefault(db, []).append(pattern)
    out = []
    for db, pattern, hit in zip(dbs, patterns, found, strict=True):
        if hit is None:
            out.append(None)
            continue
        schema, prefix = hit
        if schema.needs and not any(re.fullmatch(re.escape(prefix) + schema.needs, other)
                                    for other in present[db]):
            out.append(None)
            continue
        library = schema.library
        if library is BULL_OR_BULLMQ:
            queue = _BULL_QUEUE.match(pattern).group(1)
            library = BULLMQ if any(o.startswith(queue + ":") and _BULLMQ_ONLY.fullmatch(o)
                                    for o in present[db]) else BULL
        out.append(Recognized(schema, library, prefix))
    return _store_entries(dbs, patterns, types, out)


def _store_entries(dbs, patterns, types, out):
    """String patterns under the prefix of a cache store's recognized keys (:data:`.schemas.STORE_ENTRIES`)
    are that store's entries. A store without a prefix claims nothing: every key would be under it."""
    stores = {(db, r.prefix): entry for db, r in zip(dbs, out, strict=True) if r and r.prefix
              for library, entry in STORE_ENTRIES if r.library is library}
    if not stores:
        return out
    marked = []
    for db, pattern, present, r in zip(dbs, patterns, types, out, strict=True):
        store = None
        if r is None:
            store = next(((prefix, entry) for (d, prefix), entry in stores.items()
                          if d == db and pattern.startswith(prefix) and set(present) <= set(entry.types)), None)
        marked.append(r if store is None else Recognized(store[1], store[1].library, store[0]))
    return marked
