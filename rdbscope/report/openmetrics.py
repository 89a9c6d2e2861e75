"""A report as OpenMetrics text, for Prometheus through node_exporter's textfile collector (rendering only).

Every family is a gauge whose name carries its unit, so the text is also valid in
the older Prometheus text format that the textfile collector parses (it reads
``# UNIT`` and ``# EOF`` as comments).
"""

import numbers
from dataclasses import dataclass

from ..rdb.keytext import SHOWN_CHARS, printable, shorten
from .views import overview, pattern_rows

__all__ = ["OTHER", "render_openmetrics"]

#: The pattern label of the row that sums a db's patterns beyond the top N.
OTHER = "(other)"


@dataclass(frozen=True)
class Family:
    """One metric family: its name, unit (or ""), help text, label names and samples (label values, value)."""

    name: str
    unit: str
    help: str
    labels: tuple
    samples: list


def render_openmetrics(res, source, top=10) -> str:
    """The OpenMetrics exposition of ``res``: totals, the ``top`` patterns by memory (the rest of each db
    as one ``pattern="(other)"`` row, so the series stay bounded), and finding counts per code.

    ``source`` names the dump (label ``dump``) as the other reports do.
    """
    o = overview(res, source)
    dump = (o.source or "",)
    families = [
        Family("rdbscope_keys", "", "Keys in the dump.", ("dump",), [(dump, o.n_keys)]),
        Family("rdbscope_keys_with_ttl", "", "Keys with a TTL.", ("dump",), [(dump, o.n_with_ttl)]),
        Family("rdbscope_memory_bytes", "bytes", _memory_help("Memory of every key", o.memory_basis), ("dump",),
               [(dump, o.memory_bytes)]),
    ]
    if o.ctime is not None and o.n_sources == 1:  # of several dumps, the overview's ctime is the first one's
        families.append(Family("rdbscope_dump_timestamp_seconds", "seconds",
                               "When the dump was written (its ctime AUX field), as a Unix time.", ("dump",),
                               [(dump, o.ctime.timestamp())]))
    families += _pattern_families(res, dump, top, o.memory_basis)
    families.append(_finding_family(res, dump))
    return "".join(_family_text(f) for f in families) + "# EOF\n"


def _memory_help(what, basis):
    if basis == "rdb_bytes":
        return f"{what}: its bytes in the dump (the writer has no memory model)."
    return f"{what}: estimated memory, as MEMORY USAGE reports it."


def _pattern_families(res, dump, top, basis):
    rows = pattern_rows(res)[["db", "pattern", "n_keys", "n_with_ttl", "memory_bytes_sum"]]
    shown, rest = rows.head(top), rows.iloc[top:]
    groups = [((*dump, str(r.db), r.pattern), r.memory_bytes_sum, r.n_keys, r.n_with_ttl)
              for r in shown.itertuples(index=False)]
    for db, other in rest.groupby("db", sort=True):
        groups.append(((*dump, str(db), OTHER), other["memory_bytes_sum"].sum(), other["n_keys"].sum(),
                       other["n_with_ttl"].sum()))
    labels = ("dump", "db", "pattern")
    beyond = f"; the patterns beyond the top {top} by memory are one pattern {OTHER} per db"
    return [
        Family("rdbscope_pattern_memory_bytes", "bytes",
               _memory_help("Memory of the keys of a pattern", basis).rstrip(".") + beyond + ".", labels,
               [(values, int(memory)) for values, memory, _, _ in groups]),
        Family("rdbscope_pattern_keys", "", f"Keys of a pattern{beyond}.", labels,
               [(values, int(n_keys)) for values, _, n_keys, _ in groups]),
        Family("rdbscope_pattern_ttl_ratio", "ratio", f"Share of a pattern's keys that have a TTL{beyond}.", labels,
               [(values, int(n_ttl) / int(n_keys) if n_keys else 0.0) for values, _, n_keys, n_ttl in groups]),
    ]


def _finding_family(res, dump):
    counts = {}
    for finding in res.finding_list:
        identity = (finding.code, str(finding.severity))
        counts[identity] = counts.get(identity, 0) + 1
    return Family("rdbscope_findings", "", "Findings of a code (absent: none).", ("dump", "code", "severity"),
                  [((*dump, code, severity), n) for (code, severity), n in sorted(counts.items())])


def _family_text(family):
    lines = [f"# TYPE {family.name} gauge\n"]
    if family.unit:
        lines.append(f"# UNIT {family.name} {family.unit}\n")
    lines.append(f"# HELP {family.name} {family.help}\n")  # plain text: no quote, backslash or newline
    for values, value in family.samples:
        labels = ",".join(f'{name}="{_escape(v)}"' for name, v in zip(family.labels, values, strict=True))
        lines.append(f"{family.name}{{{labels}}} {_number(value)}\n")
    return "".join(lines)


def _escape(text):
    """A label value as the format writes it: backslash, double quote and newline escaped by the format,
    other control characters as the tables show them, cut at SHOWN_CHARS characters."""
    shown = shorten("\n".join(printable(line) for line in str(text).split("\n")), SHOWN_CHARS)
    return shown.replace("\\", r"\\").replace('"', r"\"").replace("\n", r"\n")


def _number(value):
    if isinstance(value, numbers.Integral):
        return str(value)
    return repr(float(value))
