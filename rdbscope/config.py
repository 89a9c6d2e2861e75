"""Thresholds and options of the analysis, from ``[tool.rdbscope]`` or ``rdbscope.toml``.

Every threshold lives in a frozen dataclass with its default and one line of
doc. A config file only overrides what it names::

    # pyproject.toml (in rdbscope.toml the same keys go at the top level)
    [tool.rdbscope]
    ignore = ["EXP003"]            # finding codes or families to drop
    server_version = "8.4"         # the release an unstable server build (255.255.255) corresponds to

    [tool.rdbscope.bigkeys]
    string_bytes = 20480

    [tool.rdbscope.expiry]
    windows_s = [1, 60, 3600]

    [tool.rdbscope.rules.NAM006]   # options of one lint rule (read by the rules)
    max_bytes = 64

Each pass and each rule declares its options beside itself (a frozen dataclass);
the config composes them. Every table is checked when the config is read: unknown
keys and values of the wrong type raise :class:`ConfigError` naming the file, the
table and the key.
"""

import dataclasses
import pathlib
import types
from dataclasses import dataclass, field

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same parser, from PyPI (a dependency there)
    import tomli as tomllib

from .errors import ConfigError
from .options import options_from_table
from .passes.activity import ActivityOptions
from .passes.bigkeys import BigKeyOptions
from .passes.expiry import ExpiryOptions
from .passes.patterns import PatternOptions
from .passes.ttl import TtlOptions
from .passes.values import ValuesOptions
from .rules import BY_CODE, BY_NAME, RULES


@dataclass(frozen=True)
class Config:
    """Everything configurable about an analysis.

    Attributes:
        patterns, bigkeys, ttl, expiry, activity, values: options of the pass with that id.
        select: finding codes or families (``"BIG"``) to keep; empty keeps all.
        ignore: finding codes or families to drop (wins over ``select``).
        extend_select: codes or families to keep in addition to ``select`` (or
            to the defaults); how opt-in lint rules are turned on.
        rules: ``{rule code: its Options}`` for the rules the config sets options of.
        server_version: the release ("8.4") the dumps' unstable server build corresponds to,
            as ``--server-version`` names it; None leaves it to the dump's RDB version.
        source: the file the config came from, or None.
    """

    patterns: PatternOptions = field(default_factory=PatternOptions)
    bigkeys: BigKeyOptions = field(default_factory=BigKeyOptions)
    ttl: TtlOptions = field(default_factory=TtlOptions)
    expiry: ExpiryOptions = field(default_factory=ExpiryOptions)
    activity: ActivityOptions = field(default_factory=ActivityOptions)
    values: ValuesOptions = field(default_factory=ValuesOptions)
    select: tuple = ()
    extend_select: tuple = ()
    ignore: tuple = ()
    rules: types.MappingProxyType = field(default_factory=lambda: types.MappingProxyType({}))
    server_version: str | None = None
    source: str | None = None

    def is_enabled(self, code, *, opt_in=False):
        """True when findings of ``code`` are reported under ``select``, ``extend_select`` and ``ignore``.

        ``ignore`` wins; a code named in full by a selection is on; an ``opt_in`` code is on
        only then; other codes are on when a selection names their family or prefix, or when
        ``select`` is empty.
        """
        if any(code.startswith(prefix) for prefix in self.ignore):
            return False
        if code in self.select or code in self.extend_select:
            return True
        if opt_in:
            return False
        if any(code.startswith(prefix) for prefix in self.extend_select):
            return True
        return not self.select or any(code.startswith(prefix) for prefix in self.select)

    def options_for(self, pass_id):
        """The options dataclass of the pass ``pass_id``."""
        return getattr(self, pass_id)

    def rule_options(self, rule):
        """The options of ``rule`` (a rule class): the config's, or the rule's defaults."""
        return self.rules.get(rule.code) or rule.Options()

    def with_rule_options(self, code, **options):
        """This config with ``options`` set for the rule ``code``, over what it set already.

        Raises:
            ConfigError: an unknown option or a bad value.
        """
        rule = BY_CODE[code]
        current = dataclasses.asdict(self.rule_options(rule))
        changed = options_from_table(rule.Options, {**current, **options}, self.source or "<options>",
                                     f"rules.{code}")
        return dataclasses.replace(self, rules=types.MappingProxyType({**self.rules, code: changed}))


#: Config sections holding pass options: section name -> options class.
SECTIONS = {f.name: f.type for f in dataclasses.fields(Config)
            if isinstance(f.type, type) and f.type.__name__.endswith("Options")}

CONFIG_FILE = "rdbscope.toml"


def find_config(start="."):
    """The nearest ``rdbscope.toml``, or ``pyproject.toml`` with ``[tool.rdbscope]``,
    in ``start`` or its parents; None when there is none."""
    here = pathlib.Path(start).resolve()
    for directory in (here, *here.parents):
        candidate = directory / CONFIG_FILE
        if candidate.is_file():
            return candidate
        candidate = directory / "pyproject.toml"
        if candidate.is_file() and "rdbscope" in _read_toml(candidate).get("tool", {}):
            return candidate
    return None


def load_config(path=None, *, start="."):
    """Read a :class:`Config` from ``path`` (``rdbscope.toml`` or ``pyproject.toml``).

    Without ``path``, look for one with :func:`find_config`; none gives the defaults.

    Raises:
        ConfigError: the file cannot be read, or a key or value is invalid.
    """
    if path is None:
        path = find_config(start)
        if path is None:
            return Config()
    path = pathlib.Path(path)
    document = _read_toml(path)
    if path.name == "pyproject.toml":
        table = document.get("tool", {}).get("rdbscope", {})
        prefix = "tool.rdbscope"
    else:
        table, prefix = document, ""
    return config_from_mapping(table, source=str(path), prefix=prefix)


def config_from_mapping(table, *, source="<config>", prefix=""):
    """A :class:`Config` from a parsed TOML table (``{"bigkeys": {...}, "ignore": [...]}``).

    Raises:
        ConfigError: naming ``source`` and the offending key.
    """
    def where(key):
        return f"{source}: [{prefix}] {key}" if prefix else f"{source}: {key}"

    if not isinstance(table, dict):
        raise ConfigError(f"{where('')}: expected a table")
    values = {"source": source}
    for key, value in table.items():
        if key in SECTIONS:
            if not isinstance(value, dict):
                raise ConfigError(f"{where(key)}: expected a table like [{_join(prefix, key)}]")
            values[key] = options_from_table(SECTIONS[key], value, source, _join(prefix, key))
        elif key in ("select", "ignore", "extend_select"):
            values[key] = _codes(value, where(key))
        elif key == "rules":
            if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
                raise ConfigError(f"{where(key)}: expected tables like [{_join(prefix, 'rules.NAM001')}]")
            values[key] = types.MappingProxyType(_rule_options(value, source, _join(prefix, key)))
        elif key == "server_version":
            values[key] = _server_version(value, where(key))
        else:
            known = ", ".join(sorted([*SECTIONS, "select", "ignore", "extend_select", "rules", "server_version"]))
            raise ConfigError(f"{where(key)}: unknown key (known: {known})")
    return Config(**values)


def _rule_options(tables, source, section):
    """``{code: Options}`` of the rules' tables, named by code (any case) or by name."""
    parsed = {}
    for key, table in tables.items():
        rule = BY_CODE.get(key.upper()) or BY_NAME.get(key)
        if rule is None:
            known = ", ".join(r.code for r in RULES)
            raise ConfigError(f"{source}: [{section}.{key}]: no lint rule has this code or name (rules: {known})")
        if rule.code in parsed:
            raise ConfigError(f"{source}: [{section}.{key}]: options of {rule.code} given twice")
        parsed[rule.code] = options_from_table(rule.Options, dict(table), source, f"{section}.{key}")
    return parsed


def _server_version(value, place):
    from .rdb.memory import parse_server_version

    try:
        parse_server_version(value)
    except ValueError as exc:
        raise ConfigError(f"{place}: {exc}") from None
    return str(value).strip()


def _codes(value, place):
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f"{place}: expected a list of finding codes or families, got {value!r}")
    return tuple(v.upper() for v in value)


def _join(prefix, key):
    return f"{prefix}.{key}" if prefix else key


def _read_toml(path):
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as error:
        raise ConfigError(f"{path}: cannot read ({error.strerror})") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML ({error})") from None
