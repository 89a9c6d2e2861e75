"""What every analysis pass is made of: its output, its context, its shape."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Protocol


@dataclass(frozen=True)
class PassOutput:
    """What a pass hands back.

    Attributes:
        tables: named ``pyarrow.Table`` results (names are unique across passes).
        findings: :class:`~rdbscope.findings.Finding` objects.
        columns: per-key ``pyarrow`` arrays (same length and order as the keys
            table) that the result adds to its keys table, e.g. ``pattern``.
        shared: one frozen object that passes requiring this one may read
            (e.g. the per-key pattern groups); not part of the result.
        not_checked: codes of its checks it could not make (in a bounded run, those that need
            every key in memory).
    """

    tables: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    findings: tuple = ()
    columns: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    shared: Any = None
    not_checked: tuple = ()


@dataclass(frozen=True)
class PassContext:
    """What a pass may read.

    Attributes:
        keys: the :class:`~rdbscope.KeyTable` being analysed.
        columns: :class:`~rdbscope.keyspace.columns.KeyColumns`, numpy views of
            the keys table computed once and shared by all passes.
        options: the pass's own frozen options (from the config).
        outputs: ``{pass id: PassOutput}`` of the passes it requires, and of those
            it ``uses`` that ran.
        memory_budget: the run's memory budget in bytes, or None where none was set; a pass that
            finishes after the chunks (their memory free again) may hold a share of it.
    """

    keys: Any
    columns: Any
    options: Any
    outputs: Mapping[str, PassOutput]
    memory_budget: int | None = None

    def output(self, pass_id: str) -> PassOutput:
        """The output of a required pass; KeyError for one not declared in ``requires``."""
        return self.outputs[pass_id]

    def output_if_run(self, pass_id: str) -> PassOutput | None:
        """The output of a pass it ``uses``, or None when that pass did not run."""
        return self.outputs.get(pass_id)


class Pass(Protocol):
    """An analysis pass: reads the keys table, returns tables and findings.

    A pass does no I/O and prints nothing. It works on whole columns
    (numpy, pyarrow.compute); loops run over patterns or windows, never keys.

    Attributes:
        id: short name; also the config section of its options.
        requires: ids of passes whose output it reads.
        uses: optional; ids of passes whose output it reads when they run too.
        Options: frozen dataclass of its options (its config section), or None;
            a pass may instead define ``configure(config)`` returning its options.
        checks: the :class:`~rdbscope.findings.Check` codes it can report.
        prefetch: optional; names of :class:`~rdbscope.keyspace.columns.KeyColumns`
            columns it reads that may be computed in the background from the
            start of the run (see ``KeyColumns.prefetch``).

    Every run reads the keys chunk by chunk (a table in memory too), and a pass that measures the keys
    holds its chunk contract: ``measure(columns, options) -> M`` of a chunk's KeyColumns (picklable: it
    may come from another process), ``merge(measures) -> M``, and ``finish(measure, ctx) -> PassOutput``.

    A pass that measures per pattern group holds the grouped form of the contract instead:
    ``measure_groups(columns, groups, options) -> M`` of a chunk's keys in the chunk's own
    groups (``groups.group`` per key, ``groups.n`` of them), ``merge_groups(parts, n_groups) -> M``
    of ``(measure, new group of each of its groups)`` parts, and ``finish(measure, ctx)`` with the
    measure numbered as the final pattern groups; ``kept_rows(columns, groups, options)``, when it has
    one, names the rows of a chunk its findings may name (the engine keeps those keys).

    A pass with neither (``bigkeys``, ``ttl``, ``expiry``, ``rules``) has ``run(ctx)``, over the keys the
    chunks kept and the merged measures the engine hands its context.
    """

    id: ClassVar[str]
    requires: ClassVar[tuple]
    Options: ClassVar[type]
    checks: ClassVar[tuple]

    def run(self, ctx: PassContext) -> PassOutput: ...
