"""Running the rules over a KeyTable (lint)."""

import logging
import time
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

import pyarrow as pa

from ..config import Config
from ..findings import sort_findings
from ..keys import KeyTable
from ..passes.columns import KeyColumns, dictionary_codes, memory_basis
from ..passes.pattern_groups import PatternGroups
from ..patterns import infer_patterns
from .context import RuleContext
from .settings import RuleSettings

log = logging.getLogger(__name__)


def run_rules(ctx, settings):
    """Every enabled rule over ``ctx``; returns ``(findings, {code: seconds})``."""
    findings, seconds = [], {}
    for rule, options in settings.enabled:
        started = time.perf_counter()
        findings.extend(rule().check(ctx, options))
        seconds[rule.code] = time.perf_counter() - started
        log.debug("rule %s: %.3f s", rule.code, seconds[rule.code])
    return findings, seconds


@dataclass(frozen=True)
class LintResult:
    """What :func:`lint` found.

    Attributes:
        findings: every :class:`~rdbscope.Finding`, most severe first.
        n_keys: keys linted.
        memory_basis: ``"est_memory_bytes"`` or ``"rdb_bytes"``: what memory figures measure.
        rules: codes of the lint rules that ran.
        passes: ids of the analysis passes that ran (for selected BIG/TTL/EXP codes).
        seconds: wall time per step (``patterns``, each rule code, each pass).
    """

    findings: tuple
    n_keys: int
    memory_basis: str
    rules: tuple
    passes: tuple
    seconds: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


def lint(keys, config=None):
    """Run the selected lint rules over a KeyTable.

    Only the key patterns are inferred (not the pattern tables), which keeps
    linting cheaper than the scan.

    Raises:
        ConfigError: invalid rule options.
    """
    if not isinstance(keys, KeyTable):
        raise TypeError(f"expected a KeyTable (from rdbscope.load), got {type(keys).__name__}")
    config = config or Config()
    settings = RuleSettings.from_config(config)
    seconds = {}
    started = time.perf_counter()
    ctx = rule_context(keys)
    seconds["patterns"] = time.perf_counter() - started
    findings, rule_seconds = run_rules(ctx, settings)
    seconds.update(rule_seconds)
    ran = ()
    return LintResult(
        findings=tuple(sort_findings(findings)), n_keys=keys.num_rows,
        memory_basis=memory_basis(keys.to_arrow()), rules=settings.codes, passes=ran,
        seconds=MappingProxyType(seconds),
    )


def rule_context(keys):
    """A :class:`RuleContext` of ``keys``, with patterns inferred but no pattern tables."""
    columns = KeyColumns(keys.to_arrow(), keys.info)
    inferred = infer_patterns(columns.keys)
    if isinstance(inferred, pa.ChunkedArray):
        inferred = inferred.combine_chunks()
    codes, names = dictionary_codes(inferred)
    groups = PatternGroups.build(columns.db, codes, names)
    return RuleContext(columns, groups, keys.info)


