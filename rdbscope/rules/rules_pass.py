"""Running the rules: the rules pass of the analysis pipeline."""

import logging
import time

import pyarrow as pa

from ..keyspace.columns import KeyColumns
from ..passes.base import PassContext, PassOutput
from ..passes.pattern_groups import PatternGroupsPass
from .base import NeedsEveryKey
from .context import RuleContext
from .library_names import LibraryNames
from .registry import RULES
from .settings import RuleSettings
from .slottable import slot_table

log = logging.getLogger(__name__)


def run_rules(ctx, settings):
    """Every enabled rule over ``ctx``; returns ``(findings, {code: seconds}, codes not checked)``.

    Names a library owns (Celery's ``celery-task-meta-{uuid}``) are not the user's to change:
    naming rules say nothing of them; ``library-names`` says once per library who owns them.
    A rule that needs keys a bounded run did not keep (:class:`~.base.NeedsEveryKey`) is not checked.
    """
    findings, seconds, not_checked = [], {}, []
    owned = None
    for rule, options in settings.enabled:
        started = time.perf_counter()
        try:
            found = list(rule().check(ctx, options))
        except NeedsEveryKey:
            not_checked.append(rule.code)
            continue
        if rule.family() == "NAM" and rule is not LibraryNames and found:
            if owned is None:
                owned = {(int(db), pattern) for db, pattern, owner
                         in zip(ctx.groups.db, ctx.groups.pattern, ctx.owners, strict=True) if owner}
            found = [f for f in found if (f.db, f.pattern) not in owned]
        findings.extend(found)
        seconds[rule.code] = time.perf_counter() - started
        log.debug("rule %s: %.3f s", rule.code, seconds[rule.code])
    return findings, seconds, tuple(not_checked)


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
        settings, not_run, sums = ctx.options, (), None
        kept = getattr(ctx.columns, "rule_rows", None)
        if ctx.columns.n < ctx.columns.n_keys or kept is not None:  # a bounded run: see Rule.bounded
            def runs(rule):
                return rule.bounded and kept is not None and rule.code not in kept.dropped

            not_run = tuple(rule.code for rule, _options in settings.enabled if not runs(rule))
            settings = RuleSettings(tuple(pair for pair in settings.enabled if runs(pair[0])))
            sums = kept.sums if kept is not None else {}
        rule_ctx = RuleContext(ctx.columns, groups, ctx.keys.info, sources=several_sources(ctx.keys), sums=sums)
        findings, _seconds, not_checked = run_rules(rule_ctx, settings)
        return PassOutput(
            findings=tuple(findings),
            columns={"slot": pa.array(rule_ctx.slots, pa.uint16())},
            tables={"cluster_slots": slot_table(rule_ctx)},
            not_checked=tuple(sorted(not_run + not_checked)),
        )


def rule_context(keys):
    """A :class:`RuleContext` of ``keys``: patterns inferred and grouped, not measured."""
    columns = KeyColumns(keys.to_arrow(), keys.info)
    grouping = PatternGroupsPass().run(PassContext(keys=keys, columns=columns, options=None, outputs={}))
    return RuleContext(columns, grouping.shared, keys.info, sources=several_sources(keys))


def several_sources(keys):
    """The per-dump summaries of a table of several dumps; none for one dump (nothing to compare)."""
    return keys.sources if keys.n_sources > 1 else ()
