"""Result: everything one analysis found, as tables and findings."""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

from .findings import Severity, count, findings_table, format_bytes

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from .rdb import DumpInfo


@dataclass(frozen=True)
class Result:
    """The outcome of :func:`rdbscope.analyze`.

    Attributes:
        keys: a :class:`~rdbscope.KeyTable` of the keys with the columns the
            passes add (``pattern``); ``keys.to_arrow()`` / ``keys.to_pandas()``.
        tables: ``{name: pyarrow.Table}`` of every pass (``patterns``,
            ``namespaces``, ``big_keys``, ``top_keys``, ``ttl_coverage``,
            ``ttl_overview``, ``expiry_bursts``, ``expiry_timeline``).
        finding_list: every :class:`~rdbscope.Finding`, most severe first.
        memory_basis: ``"est_memory_bytes"`` when memory figures are the dump's
            memory estimates, ``"rdb_bytes"`` when they are sizes in the dump.
        config: the :class:`~rdbscope.config.Config` used.
        seconds: wall time of each pass (``pattern_groups``: reading and measuring the chunks, which every
            measuring pass shares).
        ran: ids of the passes that ran, in order (``"rules"`` for the lint rules).
        checked: the finding codes that were checked (enabled and their pass ran).
        bounded: True when the analysis ran in bounded memory, chunk by chunk: ``keys``
            then holds only the keys the tables and findings name.
        skipped: ids of the passes a bounded run could not make, and codes of the rules it could not
            check (they need every key in memory).
        key_count: the keys analysed, when ``keys`` does not hold them all (bounded runs).
        percentile_error: in a bounded run whose keys had too many distinct sizes or TTLs to be
            counted exactly, ``{measure: bound}`` (``memory``, ``rdb_bytes``, ``ttl``): percentiles
            and top-k sums of that measure are at most ``bound`` (relative) below the exact value.
            Empty when every figure is exact.
        values_not_read: why the bounded value sample (the ``values`` pass) read no value, e.g. ``"standard
            input cannot be read again"``; None when it read them, or did not run (``values=False``).
        value_samples: ``{(db, pattern): tuple of ValueSample}`` of the patterns whose values were sampled
            (see :mod:`rdbscope.values`): the user's data, never printed.
    """

    keys: Any
    tables: Mapping[str, Any]
    finding_list: tuple
    memory_basis: str
    config: Any
    seconds: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    ran: tuple = ()
    checked: tuple = ()
    bounded: bool = False
    skipped: tuple = ()
    key_count: int | None = None
    percentile_error: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    values_not_read: str | None = None
    value_samples: Mapping[tuple, tuple] = field(default_factory=lambda: MappingProxyType({}), repr=False)
    #: ``result.plot.patterns()`` and the other figures; :mod:`rdbscope.report` attaches it (imports point down).
    plot: ClassVar[Any]

    @property
    def n_keys(self) -> int:
        """How many keys were analysed."""
        return self.keys.num_rows if self.key_count is None else self.key_count

    @property
    def info(self) -> DumpInfo:
        """The :class:`~rdbscope.DumpInfo` of the dump analysed."""
        return self.keys.info

    @property
    def patterns(self) -> pd.DataFrame:
        """The pattern table as a pandas DataFrame, largest memory first."""
        return self.tables["patterns"].to_pandas()

    @property
    def findings(self) -> pd.DataFrame:
        """The findings as a pandas DataFrame (columns of ``FINDINGS_SCHEMA``)."""
        return self.findings_table().to_pandas()

    def findings_table(self) -> pa.Table:
        """The findings as a ``pyarrow.Table`` of ``FINDINGS_SCHEMA``."""
        return findings_table(self.finding_list)

    def table(self, name: str) -> pa.Table:
        """One table by name; KeyError lists the names there are."""
        try:
            return self.tables[name]
        except KeyError:
            raise KeyError(f"no table {name!r}; tables: {', '.join(self.tables)}") from None

    def __repr__(self) -> str:
        counts = self._severity_counts()
        said = ", ".join(count(n, s, "info" if s == "info" else None) for s, n in counts.items() if n) or "no findings"
        return f"<Result {count(self.n_keys, 'key')}, {count(len(self.tables), 'table')}, {said}>"

    def _severity_counts(self) -> dict[str, int]:
        return {str(s): sum(1 for f in self.finding_list if f.severity == s) for s in reversed(Severity)}

    def _repr_html_(self) -> str:
        parts = [f"<p><b>{html.escape(repr(self))}</b> (memory: {html.escape(self.memory_basis)})</p>"]
        if "patterns" in self.tables:
            top = self.tables["patterns"].slice(0, 10).select(
                ["db", "pattern", "n_keys", "memory_bytes_sum", "n_with_ttl"]).to_pandas()
            top["memory_bytes_sum"] = [format_bytes(v) for v in top["memory_bytes_sum"]]
            parts.append("<p>Top patterns by memory</p>" + top.to_html(index=False))
        if self.finding_list:
            shown = self.findings.head(10)[["code", "severity", "pattern", "n_keys", "message"]]
            parts.append("<p>Findings</p>" + shown.to_html(index=False))
        return "\n".join(parts)
