"""Key-design lint rules: one class each, codes NAMxxx / CLUxxx / ENCxxx, in ``RULES``.

A rule reads the keys grouped by pattern (see :class:`RuleContext`) and
yields :class:`~rdbscope.Finding` objects, never one per key. ``RulesPass`` runs
the selected rules inside :func:`rdbscope.analyze` and :func:`rdbscope.lint`.
"""

from .base import DOC_SECTIONS, NoOptions, PatternHit, Rule
from .context import RuleContext
from .registry import BY_CODE, BY_NAME, DEPRECATED_PRESETS, FAMILIES, PRESETS, RULES
from .rules_pass import RulesPass, run_rules
from .settings import RuleSettings, preset_codes, preset_name

__all__ = [
    "RULES", "BY_CODE", "BY_NAME", "FAMILIES", "PRESETS", "DOC_SECTIONS", "Rule", "NoOptions", "PatternHit",
    "RuleContext", "RuleSettings", "RulesPass", "run_rules", "preset_codes", "preset_name",
    "DEPRECATED_PRESETS",
]
