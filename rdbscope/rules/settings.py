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

import dataclasses
import types
from dataclasses import dataclass

from ..config import Config, options_from_table
from ..errors import ConfigError
from .registry import BY_CODE, BY_NAME, DEPRECATED_PRESETS, PRESETS, RULES


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


def with_rule_options(config, code, **options):
    """``config`` with ``options`` set for rule ``code``, over its table (named by code or by name)."""
    rule = BY_CODE[code]
    rules = dict(config.rules)
    key = next((k for k in rules if k.upper() == code or k == rule.name), code)
    rules[key] = {**rules.get(key, {}), **options}
    return dataclasses.replace(config, rules=types.MappingProxyType(rules))


@dataclass(frozen=True)
class RuleSettings:
    """The rules to run, each with its validated options.

    Attributes:
        enabled: ``((rule class, options), ...)`` in code order.
    """

    enabled: tuple

    @classmethod
    def from_config(cls, config=None, rules=RULES):
        """Read selection and options from a :class:`~rdbscope.config.Config`.

        Raises:
            ConfigError: an options table names an unknown rule, or an option is invalid.
        """
        config = config or Config()
        options = _options_by_code(config)
        enabled = tuple((rule, options.get(rule.code) or rule.Options())
                        for rule in rules if config.is_enabled(rule.code, opt_in=not rule.default))
        return cls(enabled)

    @property
    def codes(self):
        return tuple(rule.code for rule, _options in self.enabled)


def _options_by_code(config):
    source = config.source or "<config>"
    prefix = "tool.rdbscope.rules" if source.endswith("pyproject.toml") else "rules"
    parsed = {}
    for key, table in config.rules.items():
        rule = BY_CODE.get(key.upper()) or BY_NAME.get(key)
        if rule is None:
            known = ", ".join(r.code for r in RULES)
            raise ConfigError(f"{source}: [{prefix}.{key}]: no lint rule has this code or name (rules: {known})")
        if rule.code in parsed:
            raise ConfigError(f"{source}: [{prefix}.{key}]: options of {rule.code} given twice")
        parsed[rule.code] = options_from_table(rule.Options, dict(table), source, f"{prefix}.{key}")
    return parsed
