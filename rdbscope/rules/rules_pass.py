"""Running the rules: the rules pass of the analysis pipeline."""

import logging
import time

import pyarrow as pa

from ..keyspace.columns import KeyColumns
from ..passes.base import PassContext, PassOutput
from ..passes.pattern_groups import PatternGroupsPass
from .context import RuleContext
from .library_names import LibraryNames
from .registry import RULES
from .settings import RuleSettings
from .slottable import slot_table

log = logging.getLogger(__name__)


def run_rules(ctx, settings):
    """Every enabled rule over ``ctx``; returns ``(findings, {code: seconds})``.

    Names a library owns (Celery's ``celery-task-meta-{uuid}``) are not the user's to change:
    naming rules say nothing of them; ``library-names`` says once per library who owns them.
    """
    findings, seconds = [], {}
    owned = None
    for rule, options in settings.enabled:
        started = time.perf_counter()
        found = list(rule().check(ctx, options))
        if rule.family() == "NAM" and rule is not LibraryNames and found:
            if owned is None:
                owned = {(int(db), pattern) for db, pattern, owner
                         in zip(ctx.groups.db, ctx.groups.pattern, ctx.owners, strict=True) if owner}
            found = [f for f in found if (f.db, f.pattern) not in owned]
        findings.extend(found)
        seconds[rule.code] = time.perf_counter() - started
        log.debug("rule %s: %.3f s", rule.code, seconds[rule.code])
    return findings, seconds


class RulesPass:
    """The lint rules as an analysis pass, after the pattern groups (and their measures, when measured).

    Columns added to the keys table: ``slot`` (the Redis Cluster hash slot).
    Tables: ``cluster_slots`` (keys and memory per non-empty slot).
    """

    id = "rules"
    requires = ("pattern_groups",)
    uses = ("patterns",)  # the measured groups, when the pattern tables are made too
    prefetch = ("slots",)  # the slot column: computed in the background while patterns are inferred
    Options = None
    checks = tuple(rule.as_check() for rule in RULES)

    @staticmethod
    def configure(config):
        """The rules ``config`` selects, with their options.

        Raises:
            ConfigError: invalid rule options.
        """
        return RuleSettings.from_config(config)

    def run(self, ctx):
        measured = ctx.output_if_run("patterns")
        groups = (measured or ctx.output("pattern_groups")).shared
        rule_ctx = RuleContext(ctx.columns, groups, ctx.keys.info, sources=several_sources(ctx.keys))
        findings, _seconds = run_rules(rule_ctx, ctx.options)
        return PassOutput(
            findings=tuple(findings),
            columns={"slot": pa.array(rule_ctx.slots, pa.uint16())},
            tables={"cluster_slots": slot_table(rule_ctx)},
        )


def rule_context(keys):
    """A :class:`RuleContext` of ``keys``: patterns inferred and grouped, not measured."""
    columns = KeyColumns(keys.to_arrow(), keys.info)
    grouping = PatternGroupsPass().run(PassContext(keys=keys, columns=columns, options=None, outputs={}))
    return RuleContext(columns, grouping.shared, keys.info, sources=several_sources(keys))


def several_sources(keys):
    """The per-dump summaries of a table of several dumps; none for one dump (nothing to compare)."""
    return keys.sources if keys.n_sources > 1 else ()
