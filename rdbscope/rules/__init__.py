"""Key-design lint rules: one class each, codes NAMxxx / CLUxxx / ENCxxx, in ``RULES``.

A rule reads the keys grouped by pattern (see :class:`RuleContext`) and
yields :class:`~rdbscope.Finding` objects, never one per key. ``lint()`` runs
the selected rules over a :class:`~rdbscope.KeyTable`; ``RulesPass`` runs them
inside :func:`rdbscope.analyze`.
"""

from .base import DOC_SECTIONS, NoOptions, PatternHit, Rule
from .context import RuleContext
from .registry import BY_CODE, BY_NAME, DEPRECATED_PRESETS, FAMILIES, PRESETS, RULES
from .run import LintResult, RulesPass, lint, passes_for, rule_context, run_rules
from .settings import RuleSettings, is_selected, preset_codes, preset_name, with_rule_options

__all__ = [
    "RULES", "BY_CODE", "BY_NAME", "FAMILIES", "PRESETS", "DOC_SECTIONS", "Rule", "NoOptions", "PatternHit",
    "RuleContext", "RuleSettings", "RulesPass", "LintResult", "lint", "passes_for", "rule_context",
    "run_rules", "is_selected", "preset_codes", "preset_name", "with_rule_options", "DEPRECATED_PRESETS",
]
