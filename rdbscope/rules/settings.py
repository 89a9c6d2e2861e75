"""Which rules run, and with which options, as a config says.

Selection follows ruff: ``select`` replaces the default set (codes or family
prefixes: ``NAM``, ``NAM01``, ``CLU002``), ``extend_select`` adds to it,
``ignore`` removes (and wins). Opt-in rules run only when a selection names
their full code, e.g. through a preset. Options come from per-rule tables,
by code or by name::

    [tool.rdbscope]
    extend_select = ["NAM013", "NAM014"]     # the layered-names preset

    [tool.rdbscope.rules.NAM006]             # or [tool.rdbscope.rules.key-over-max-length]
    max_bytes = 256
"""

from dataclasses import dataclass

from .registry import DEPRECATED_PRESETS, PRESETS, RULES


def preset_codes(name):
    """The codes a preset turns on (a former name works too, see :func:`preset_name`); ValueError for an
    unknown preset."""
    try:
        return PRESETS[preset_name(name)]
    except KeyError:
        raise ValueError(f"unknown preset {name!r} (presets: {', '.join(PRESETS)})") from None


def preset_name(name):
    """The current name of a preset: ``"seed-001"`` (deprecated) -> ``"layered-names"``; others unchanged."""
    return DEPRECATED_PRESETS.get(name, name)


@dataclass(frozen=True)
class RuleSettings:
    """The rules to run, each with its validated options.

    Attributes:
        enabled: ``((rule class, options), ...)`` in code order.
    """

    enabled: tuple

    @classmethod
    def from_config(cls, config, rules=RULES):
        """The rules a :class:`~rdbscope.config.Config` enables, each with its options from it."""
        return cls(tuple((rule, config.rule_options(rule))
                         for rule in rules if config.is_enabled(rule.code, opt_in=not rule.default)))

    @property
    def codes(self):
        return tuple(rule.code for rule, _options in self.enabled)
