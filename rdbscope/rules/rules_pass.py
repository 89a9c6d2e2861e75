"""Running the rules: the rules pass of the analysis pipeline."""

import logging
import time

import pyarrow as pa

from ..passes.base import PassOutput
from .base import NeedsEveryKey
from .context import RuleContext
from .library_names import LibraryNames
from .registry import RULES
from .settings import RuleSettings
from .slottable import slot_table

log = logging.getLogger(__name__)


#: Rules about the form of a name (its characters, length, layout, hash tags): the naming rules and the
#: cluster rules but the one about the dump's own slot record, which no name choice explains.
NAME_FAMILIES = ("NAM", "CLU")
NOT_ABOUT_NAMES = ("CLU005",)


def about_names(rule):
    """True for a rule whose findings on a pattern judge the form of its name."""
    return rule.family() in NAME_FAMILIES and rule.code not in NOT_ABOUT_NAMES and rule is not LibraryNames


def run_rules(ctx, settings):
    """Every enabled rule over ``ctx``; returns ``(findings, {code: seconds}, codes not checked)``.

    Names a library owns (Celery's ``celery-task-meta-{uuid}``, kombu's ``celery\x06\x163``, limits'
    ``LIMITS:{LIMITER/...}``) are not the user's to change: naming and cluster rules (:func:`about_names`)
    say nothing of them; ``library-names`` informs once per library who owns them and which setting
    shapes them. A rule that needs keys a bounded run did not keep (:class:`~.base.NeedsEveryKey`) is
    not checked.
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
        if found and about_names(rule):
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
        kept = ctx.columns.rule_rows  # what the chunks kept for the rules: see Rule.bounded

        def runs(rule):
            return rule.bounded and rule.code not in kept.dropped

        not_run = tuple(rule.code for rule, _options in ctx.options.enabled if not runs(rule))
        settings = RuleSettings(tuple(pair for pair in ctx.options.enabled if runs(pair[0])))
        rule_ctx = RuleContext(ctx.columns, groups, ctx.keys.info, sources=several_sources(ctx.keys), sums=kept.sums)
        findings, _seconds, not_checked = run_rules(rule_ctx, settings)
        return PassOutput(
            findings=tuple(findings),
            columns={"slot": pa.array(rule_ctx.slots, pa.uint16())},
            tables={"cluster_slots": slot_table(rule_ctx)},
            not_checked=tuple(sorted(not_run + not_checked)),
        )


def several_sources(keys):
    """The per-dump summaries of a table of several dumps; none for one dump (nothing to compare)."""
    return keys.sources if keys.n_sources > 1 else ()
