"""What every lint rule is made of: identity, documentation, options, findings."""

import dataclasses
import inspect
import re
from collections.abc import Iterator
from typing import ClassVar

import numpy as np

from ..findings import Check, Finding, Severity, count, format_memory, to_json
from ..options import options_doc
from ..rdb import keytext

#: The sections of a rule's docstring, in this order (ruff's rule documentation).
DOC_SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Options")

_HEADING = re.compile(r"^## (.+?)\s*$", re.M)


@dataclasses.dataclass(frozen=True)
class NoOptions:
    """The options of a rule that has none."""


@dataclasses.dataclass(frozen=True)
class PatternHit:
    """Keys of one pattern that a rule reports.

    Attributes:
        group: index of the pattern in the context's pattern groups.
        db: database of the pattern.
        pattern: the pattern text.
        n_keys: keys of the pattern the rule is about.
        memory_bytes: memory those keys hold (see ``RuleContext.memory_basis``).
        n_pattern_keys: keys of the whole pattern.
        examples: a few of the keys, as text.
    """

    group: int
    db: int
    pattern: str
    n_keys: int
    memory_bytes: int
    n_pattern_keys: int
    examples: tuple


class NeedsEveryKey(Exception):  # noqa: N818 (a signal, caught where rules run)
    """Raised by a rule that cannot answer from the keys a bounded run kept (see ``Rule.bounded``)."""


class Rule:
    """A key-design lint rule, checked per pattern, never per key.

    A subclass sets:

    * ``code``: three letters of its family (``NAM``, ``CLU``, ``ENC``) and three
      digits; stable forever and never reused;
    * ``name``: kebab-case, reads as "allow <name>" and names what is reported;
    * ``severity``: a :class:`~rdbscope.findings.Severity`;
    * ``message``: a ``str.format`` template; ``{pattern}``, ``{keys}`` ("12 keys")
      and ``{memory}`` are always there, the rule adds its own fields;
    * ``Options``: a frozen dataclass of its options, each field with a default
      and ``metadata={"doc": ...}``;
    * ``default``: False for opt-in rules, which run only when selected by
      their full code or through a preset;
    * a docstring whose first line says what is found, followed by the
      sections of :data:`DOC_SECTIONS` (``## What it does`` …), citing the
      published guide the convention comes from (``guides.GUIDES``);
    * ``prefetch`` (optional): key columns it reads that lint may compute in
      the background while patterns are inferred (``("slots",)``);
    * ``bounded`` (optional): True when it also runs on a dump larger than the
      memory budget. There its context holds the per-pattern measures of every
      key, but only some keys: the rows each chunk keeps for the passes and the
      rows its ``candidates`` name. The rule must then read no other key, and
      whatever it sums per pattern over every key comes from ``pattern_sums``
      (``ctx.sums(self, options)``). A rule that finds it cannot answer from
      these raises :class:`NeedsEveryKey`, and is listed as not run.

    and implements ``check(ctx, options)``, yielding findings made with
    :meth:`finding` or :meth:`dump_finding`.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    message: ClassVar[str]
    Options: ClassVar[type] = NoOptions
    default: ClassVar[bool] = True
    prefetch: ClassVar[tuple] = ()
    bounded: ClassVar[bool] = False

    def check(self, ctx, options) -> Iterator[Finding]:
        """Yield the findings of this rule over ``ctx`` (a :class:`RuleContext`)."""
        raise NotImplementedError

    @classmethod
    def candidates(cls, ctx, options):
        """Rows of ``ctx`` (positions, ascending) whose keys :meth:`check` may read, beyond the
        first keys of each pattern: a superset of the keys it names, and of those it measures."""
        return np.zeros(0, np.int64)

    @classmethod
    def pattern_sums(cls, ctx, options) -> dict:
        """``{name: int64 array with a value per pattern group of ctx}``: sums over every key of
        ``ctx`` that :meth:`check` reads through ``ctx.sums``; sums of chunks add up."""
        return {}

    @classmethod
    def family(cls) -> str:
        """The code's three letters (``NAM``)."""
        return cls.code[:3]

    @classmethod
    def summary(cls) -> str:
        """The first line of the docstring."""
        return inspect.cleandoc(cls.__doc__ or "").split("\n", 1)[0].strip()

    @classmethod
    def sections(cls) -> dict[str, str]:
        """``{section title: text}`` of the docstring, in the order written, then the generated Options."""
        doc = inspect.cleandoc(cls.__doc__ or "")
        headings = list(_HEADING.finditer(doc))
        sections: dict[str, str] = {}
        for i, heading in enumerate(headings):
            end = headings[i + 1].start() if i + 1 < len(headings) else len(doc)
            sections[heading.group(1)] = doc[heading.end():end].strip("\n").rstrip()
        sections["Options"] = options_doc(cls.Options)
        return sections

    @classmethod
    def as_check(cls) -> Check:
        """The :class:`~rdbscope.findings.Check` declaring this rule's code."""
        return Check(cls.code, cls.name, cls.severity, cls.summary(), doc=inspect.cleandoc(cls.__doc__ or ""),
                     default=cls.default)

    @classmethod
    def validate(cls) -> None:
        """Raise ValueError when the class breaks the contract above (tests call it)."""
        cls.as_check()  # the code, name and severity, checked where every code is declared
        options = cls.Options
        # typeshed's DataclassInstance leaves out __dataclass_params__, which @dataclass sets.
        if not dataclasses.is_dataclass(options) or not options.__dataclass_params__.frozen:  # type: ignore[attr-defined]
            raise ValueError(f"{cls.code}: Options must be a frozen dataclass")

    def finding(self, ctx, hit: PatternHit, say=None, **fields) -> Finding:
        """A finding about ``hit`` (a :class:`PatternHit`).

        ``fields`` fill the message and go into the details; ``say`` holds
        values for the message only (e.g. sizes formatted for people).
        """
        memory = format_memory(hit.memory_bytes, ctx.memory_basis)
        text = self.message.format(pattern=shorten(hit.pattern), keys=count(hit.n_keys, "key"), memory=memory,
                                   **fields, **(say or {}))
        details = {"n_pattern_keys": hit.n_pattern_keys, "memory_basis": ctx.memory_basis, **fields}
        return Finding(
            code=self.code, name=self.name, severity=self.severity, message=text,
            pattern=hit.pattern, db=hit.db, n_keys=hit.n_keys, est_memory_bytes=hit.memory_bytes,
            examples=tuple(hit.examples), details=to_json(details),
        )

    def dump_finding(self, ctx, *, n_keys, memory_bytes, examples=(), pattern=None, db=None, say=None,
                     **fields) -> Finding:
        """A finding about the dump as a whole (or a part no single pattern names)."""
        text = self.message.format(keys=count(n_keys, "key"), memory=format_memory(memory_bytes, ctx.memory_basis),
                                   pattern=pattern, **fields, **(say or {}))
        return Finding(
            code=self.code, name=self.name, severity=self.severity, message=text,
            pattern=pattern, db=db, n_keys=int(n_keys), est_memory_bytes=int(memory_bytes),
            examples=tuple(examples), details=to_json({"memory_basis": ctx.memory_basis, **fields}),
        )


#: Characters of a pattern a message shows (the finding's ``pattern`` field keeps it whole).
MESSAGE_PATTERN_CHARS = 120


def shorten(text, limit=MESSAGE_PATTERN_CHARS):
    """``text`` cut to ``limit`` characters, ending with an ellipsis when cut."""
    return keytext.shorten(text, limit)
