"""Findings: what the analysis passes (and later the lint rules) report.

Every finding has a stable ``code`` (``BIG001``; never reused for another
meaning), a kebab-case ``name`` and a :class:`Severity`. A :class:`Check`
declares one code once, with its documentation; passes make findings from it.
All findings share one Arrow schema, :data:`FINDINGS_SCHEMA`.
"""

from __future__ import annotations

import enum
import json
import re
from dataclasses import dataclass, field

import pyarrow as pa

_CODE = re.compile(r"^[A-Z]{3}[0-9]{3}$")
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


class Severity(enum.IntEnum):
    """How much a finding matters, ordered: ``INFO < WARNING < ERROR``."""

    INFO = 1
    WARNING = 2
    ERROR = 3

    def __str__(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str | Severity) -> Severity:
        """``"warning"`` (any case) or a Severity -> Severity; ValueError otherwise."""
        if isinstance(text, cls):
            return text
        try:
            return cls[str(text).upper()]
        except KeyError:
            choices = ", ".join(str(s) for s in cls)
            raise ValueError(f"unknown severity {text!r} (choose from {choices})") from None


@dataclass(frozen=True)
class Finding:
    """One thing worth telling the user, usually about one pattern of keys.

    Attributes:
        code: stable code, e.g. ``"TTL002"``.
        name: kebab-case name of the code, e.g. ``"volatile-name-without-ttl"``.
        severity: a :class:`Severity`.
        message: one sentence for a human, with the numbers that matter.
        pattern: the key pattern concerned, or None for dump-wide findings.
        db: the database of the pattern, or None.
        n_keys: how many keys the finding is about.
        est_memory_bytes: memory those keys hold (the estimate when the dump has
            one, else their size in the dump; ``details["memory_basis"]`` says which).
        examples: a few of the keys, as text (non-UTF-8 bytes escaped ``\\xNN``, a backslash as ``\\\\``).
        details: machine-readable figures, as JSON text.
    """

    code: str
    name: str
    severity: Severity
    message: str
    pattern: str | None = None
    db: int | None = None
    n_keys: int = 0
    est_memory_bytes: int = 0
    examples: tuple = ()
    details: str = "{}"

    @property
    def details_dict(self) -> dict:
        """``details`` parsed from JSON."""
        return json.loads(self.details)


@dataclass(frozen=True)
class Check:
    """The declaration of one finding code: its identity, severity and docs.

    Attributes:
        code: three upper-case letters of the family (``BIG``, ``TTL``, ``EXP``, …)
            and three digits; stable forever.
        name: kebab-case, reads as what was found (``big-string``).
        severity: the severity of every finding of this code.
        summary: one line saying what fires it.
        doc: why it matters and what to do instead.
        default: False for an opt-in code, reported only when selected by its full code.
    """

    code: str
    name: str
    severity: Severity
    summary: str
    doc: str = field(default="", repr=False)
    default: bool = True

    def __post_init__(self) -> None:
        if not _CODE.match(self.code):
            raise ValueError(f"bad finding code {self.code!r}")
        if not _NAME.match(self.name):
            raise ValueError(f"finding name {self.name!r} is not kebab-case")
        if not isinstance(self.severity, Severity):
            raise ValueError(f"{self.code}: severity must be a Severity")

    @property
    def family(self) -> str:
        """The code's three letters (``BIG``)."""
        return self.code[:3]

    def finding(self, message: str, *, details=None, examples=(), **fields) -> Finding:
        """A :class:`Finding` of this code; ``details`` is a dict turned into JSON."""
        return Finding(
            code=self.code,
            name=self.name,
            severity=self.severity,
            message=message,
            examples=tuple(examples),
            details=to_json(details or {}),
            **fields,
        )


def to_json(value) -> str:
    """Compact, key-sorted JSON of plain values (numpy scalars included)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=_plain)


def _plain(value):
    if hasattr(value, "item"):  # numpy scalar
        return value.item()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


_FIELDS = (
    ("code", pa.string(), False, "stable finding code, e.g. TTL002"),
    ("name", pa.string(), False, "kebab-case name of the code"),
    ("severity", pa.string(), False, "info, warning or error"),
    ("pattern", pa.string(), True, "the key pattern concerned; null for dump-wide findings"),
    ("db", pa.int32(), True, "database of the pattern; null for dump-wide findings"),
    ("n_keys", pa.int64(), False, "keys the finding is about"),
    ("est_memory_bytes", pa.uint64(), False,
     "memory those keys hold: est_memory_bytes where the dump has estimates, else rdb_bytes "
     "(details.memory_basis says which)"),
    ("message", pa.string(), False, "one sentence for a human"),
    ("examples", pa.list_(pa.string()), False, "a few keys, as text with non-UTF-8 bytes and backslashes escaped"),
    ("details", pa.string(), False, "machine-readable figures, JSON text"),
)

#: The one schema of findings (Parquet reports, JSON output and DataFrames follow it).
FINDINGS_SCHEMA = pa.schema(
    [pa.field(name, typ, nullable=nullable, metadata={"doc": doc}) for name, typ, nullable, doc in _FIELDS]
)


def findings_table(findings) -> pa.Table:
    """A ``pyarrow.Table`` of :data:`FINDINGS_SCHEMA` holding ``findings``, in order."""
    columns: dict[str, list] = {name: [] for name in FINDINGS_SCHEMA.names}
    for f in findings:
        for name in FINDINGS_SCHEMA.names:
            value = getattr(f, name)
            if name == "severity":
                value = str(value)
            elif name == "examples":
                value = list(value)
            columns[name].append(value)
    return pa.table(columns, schema=FINDINGS_SCHEMA)


def sort_findings(findings) -> list[Finding]:
    """Most severe first, then by memory, then by key count, then by code."""
    return sorted(findings, key=lambda f: (-f.severity, -f.est_memory_bytes, -f.n_keys, f.code,
                                           f.db if f.db is not None else -1, f.pattern or ""))


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``count(1, "key")`` -> ``"1 key"``; ``count(1200, "key")`` -> ``"1,200 keys"``."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


def format_bytes(n) -> str:
    """``1536`` -> ``"1.5 KB"`` (binary multiples, as redis-cli prints them)."""
    value = float(n)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(value) < 1024 or unit == "TB":
            return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TB"


def format_memory(n, basis: str) -> str:
    """``"1.5 KB of memory"``, or ``"1.5 KB in the dump"`` when ``basis`` is ``rdb_bytes``."""
    return f"{format_bytes(n)} {'in the dump' if basis == 'rdb_bytes' else 'of memory'}"


def format_share(share) -> str:
    """``0.4567`` -> ``"46%"``; tiny non-zero shares stay visible (``"<1%"``)."""
    if 0 < share < 0.01:
        return "<1%"
    if 0.99 < share < 1:
        return ">99%"
    return f"{share:.0%}"
