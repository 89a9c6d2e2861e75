"""Running the rules: inside an analysis (RulesPass) or alone (lint)."""

import logging
import time
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

import pyarrow as pa

from ..config import Config
from ..findings import sort_findings
from ..keys import KeyTable
from ..passes import PASSES, run_passes
from ..passes.base import PassOutput
from ..passes.columns import KeyColumns, dictionary_codes, memory_basis
from ..passes.pattern_groups import PatternGroups
from ..patterns import infer_patterns
from .context import RuleContext
from .registry import RULES
from .settings import RuleSettings
from .slottable import slot_table

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


class RulesPass:
    """The lint rules as an analysis pass, run after the patterns pass.

    Columns added to the keys table: ``slot`` (the Redis Cluster hash slot).
    Tables: ``cluster_slots`` (keys and memory per non-empty slot).
    """

    id = "rules"
    requires = ("patterns",)
    prefetch = ("slots",)  # the slot column: computed in the background while the patterns pass runs
    Options = None
    checks = tuple(rule.as_check() for rule in RULES)
    settings = None  # a RuleSettings; configured() binds one

    @classmethod
    def configured(cls, config):
        """This pass with the rule selection and options of ``config`` (validated now).

        Raises:
            ConfigError: invalid rule options.
        """
        return type(cls.__name__, (cls,), {"settings": RuleSettings.from_config(config)})

    def run(self, ctx):
        settings = self.settings or RuleSettings.from_config(Config())
        rule_ctx = RuleContext(ctx.columns, ctx.output("patterns").shared, ctx.keys.info)
        findings, _seconds = run_rules(rule_ctx, settings)
        return PassOutput(
            findings=tuple(findings),
            columns={"slot": pa.array(rule_ctx.slots, pa.uint16())},
            tables={"cluster_slots": slot_table(rule_ctx)},
        )


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


def _named(code, config):
    """True when a selection names ``code`` (by code or prefix) and ignore does not drop it."""
    chosen = (*config.select, *config.extend_select)
    return any(code.startswith(p) for p in chosen) and not any(code.startswith(p) for p in config.ignore)


def passes_for(config):
    """Ids of the analysis passes whose codes ``config`` selects by name or prefix.

    Analysis findings are not part of linting unless selected: ``select = ["BIG"]``
    runs the bigkeys pass, an empty selection runs none.
    """
    return tuple(pass_class.id for pass_class in PASSES
                 if any(_named(check.code, config) for check in pass_class.checks))


def lint(keys, config=None):
    """Run the selected lint rules (and any selected analysis passes) over a KeyTable.

    Without analysis passes selected, only the key patterns are inferred, not
    the pattern tables the patterns pass measures.

    Raises:
        ConfigError: invalid rule options.
    """
    if not isinstance(keys, KeyTable):
        raise TypeError(f"expected a KeyTable (from rdbscope.load), got {type(keys).__name__}")
    config = config or Config()
    settings = RuleSettings.from_config(config)
    wanted = passes_for(config)
    seconds = {}
    if wanted:
        rules_pass = RulesPass.configured(config)
        outputs, seconds = run_passes(keys, config, (*PASSES, rules_pass), wanted=(*wanted, "rules"))
        findings = [f for output in outputs.values() for f in output.findings
                    if f.code in settings.codes or _named(f.code, config)]
        ran = tuple(pass_id for pass_id in outputs if pass_id != "rules")
    else:
        started = time.perf_counter()
        ctx = rule_context(keys, prefetch={name for rule, _options in settings.enabled for name in rule.prefetch})
        seconds["patterns"] = time.perf_counter() - started
        findings, rule_seconds = run_rules(ctx, settings)
        seconds.update(rule_seconds)
        ran = ()
    return LintResult(
        findings=tuple(sort_findings(findings)), n_keys=keys.num_rows,
        memory_basis=memory_basis(keys.to_arrow()), rules=settings.codes, passes=ran,
        seconds=MappingProxyType(seconds),
    )


def rule_context(keys, prefetch=()):
    """A :class:`RuleContext` of ``keys``, with patterns inferred but no pattern tables.

    ``prefetch``: key columns to compute in the background meanwhile (see ``KeyColumns.prefetch``).
    """
    columns = KeyColumns(keys.to_arrow(), keys.info)
    columns.prefetch(prefetch)
    inferred = infer_patterns(columns.keys)
    if isinstance(inferred, pa.ChunkedArray):
        inferred = inferred.combine_chunks()
    codes, names = dictionary_codes(inferred)
    groups = PatternGroups.build(columns.db, codes, names)
    return RuleContext(columns, groups, keys.info)


