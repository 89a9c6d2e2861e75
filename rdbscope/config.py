"""Thresholds and options of the analysis, from ``[tool.rdbscope]`` or ``rdbscope.toml``.

Every threshold lives in a frozen dataclass with its default and one line of
doc. A config file only overrides what it names::

    # pyproject.toml (in rdbscope.toml the same keys go at the top level)
    [tool.rdbscope]
    ignore = ["EXP003"]            # finding codes or families to drop

    [tool.rdbscope.bigkeys]
    string_bytes = 20480

    [tool.rdbscope.expiry]
    windows_s = [1, 60, 3600]

    [tool.rdbscope.rules.NAM006]   # options of one lint rule (read by the rules)
    max_bytes = 64

Unknown keys and values of the wrong type raise :class:`ConfigError` naming the
file and the key.
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

# Words that name data meant to expire (OneUptime's guide: "every cache key must have a TTL"),
# matched as whole words; plurals are listed, not guessed ("temps" is temperatures).
VOLATILE_WORDS = ("cache", "caches", "session", "sessions", "lock", "locks", "rate", "ratelimit",
                  "ratelimiter", "tmp", "temp", "otp", "otps", "token", "tokens", "captcha", "captchas")


def _opt(default, doc):
    return field(default=default, metadata={"doc": doc})


def _positive(obj, *names):
    for name in names:
        value = getattr(obj, name)
        values = value if isinstance(value, tuple) else (value,)
        if any(v <= 0 for v in values):
            raise ValueError(f"{name} must be > 0, got {value!r}")


def _share(obj, *names):
    for name in names:
        value = getattr(obj, name)
        if not 0 <= value <= 1:
            raise ValueError(f"{name} must be between 0 and 1, got {value!r}")


@dataclass(frozen=True)
class PatternOptions:
    """Options of the ``patterns`` pass (pattern table and namespace tree)."""

    n_examples: int = _opt(3, "example keys kept per pattern and per namespace node")

    def __post_init__(self):
        _positive(self, "n_examples")


@dataclass(frozen=True)
class BigKeyOptions:
    """Thresholds of the ``bigkeys`` pass. Per-type limits follow the Key Design chapter's table."""

    string_bytes: int = _opt(10_240, "BIG001: strings longer than this many bytes (10 KB)")
    hash_fields: int = _opt(5_000, "BIG002: hashes with more fields than this")
    list_elements: int = _opt(5_000, "BIG002: lists with more elements than this")
    set_members: int = _opt(5_000, "BIG002: sets with more members than this")
    zset_members: int = _opt(5_000, "BIG002: sorted sets with more members than this")
    stream_entries: int = _opt(10_000, "BIG003: streams with more entries than this")
    memory_bytes: int = _opt(1_048_576, "BIG004: keys holding more memory than this (1 MB)")
    top_n: int = _opt(10, "rows per ranking in the top_keys table")
    concentration_top_keys: int = _opt(3, "BIG005: how many of a pattern's largest keys to weigh")
    concentration_share: float = _opt(0.5, "BIG005: share of the pattern's memory they must hold")
    concentration_min_keys: int = _opt(20, "BIG005: only patterns with at least this many keys")
    concentration_min_memory_bytes: int = _opt(1_048_576, "BIG005: only patterns holding at least this much")

    def __post_init__(self):
        _positive(self, "string_bytes", "hash_fields", "list_elements", "set_members",
                  "zset_members", "stream_entries", "memory_bytes", "top_n", "concentration_top_keys",
                  "concentration_min_keys")
        _share(self, "concentration_share")

    def element_limits(self):
        """``{type name: limit}`` of the element-count thresholds (BIG002, BIG003)."""
        return {"hash": self.hash_fields, "list": self.list_elements, "set": self.set_members,
                "zset": self.zset_members, "stream": self.stream_entries}


@dataclass(frozen=True)
class TtlOptions:
    """Thresholds of the ``ttl`` pass."""

    volatile_words: tuple = _opt(VOLATILE_WORDS,
                                 "TTL002: words of a pattern that say its keys should expire")
    mixed_min_keys: int = _opt(10, "TTL001: only patterns with at least this many keys")
    persistent_memory_share: float = _opt(
        0.5, "TTL003: report when keys without TTL hold at least this share of memory")

    def __post_init__(self):
        _positive(self, "mixed_min_keys")
        _share(self, "persistent_memory_share")
        if not all(isinstance(w, str) and w for w in self.volatile_words):
            raise ValueError("volatile_words must be non-empty strings")


@dataclass(frozen=True)
class ExpiryOptions:
    """Thresholds of the ``expiry`` pass (synchronized expiries)."""

    windows_s: tuple = _opt((1, 60, 3600), "window lengths in seconds; 1 is always included")
    min_keys: int = _opt(100, "EXP001/EXP002: a window must hold at least this many expiring keys")
    min_ratio: float = _opt(10.0, "EXP001/EXP002: ... and this many times what the spread predicts")
    neighborhood_windows: int = _opt(
        30, "the expected count comes from this many windows on each side of the burst")
    max_bursts: int = _opt(3, "bursts listed per pattern and window length")
    min_batch_keys: int = _opt(100, "EXP003: keys sharing one expiry millisecond that make a batch")
    timeline_buckets: int = _opt(400, "most rows of the expiry_timeline table")

    def __post_init__(self):
        _positive(self, "windows_s", "min_keys", "min_ratio", "neighborhood_windows",
                  "max_bursts", "min_batch_keys", "timeline_buckets")
        windows = tuple(sorted(set(self.windows_s) | {1}))
        object.__setattr__(self, "windows_s", windows)


@dataclass(frozen=True)
class Config:
    """Everything configurable about an analysis.

    Attributes:
        patterns, bigkeys, ttl, expiry: options of the pass with that id.
        select: finding codes or families (``"BIG"``) to keep; empty keeps all.
        ignore: finding codes or families to drop (wins over ``select``).
        extend_select: codes or families to keep in addition to ``select`` (or
            to the defaults); how opt-in lint rules are turned on.
        rules: per-code option tables for lint rules, as read (rules validate them).
        source: the file the config came from, or None.
    """

    patterns: PatternOptions = field(default_factory=PatternOptions)
    bigkeys: BigKeyOptions = field(default_factory=BigKeyOptions)
    ttl: TtlOptions = field(default_factory=TtlOptions)
    expiry: ExpiryOptions = field(default_factory=ExpiryOptions)
    select: tuple = ()
    extend_select: tuple = ()
    ignore: tuple = ()
    rules: types.MappingProxyType = field(default_factory=lambda: types.MappingProxyType({}))
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
            values[key] = types.MappingProxyType(
                {code: types.MappingProxyType(dict(options)) for code, options in value.items()})
        else:
            known = ", ".join(sorted([*SECTIONS, "select", "ignore", "extend_select", "rules"]))
            raise ConfigError(f"{where(key)}: unknown key (known: {known})")
    return Config(**values)


def options_from_table(cls, table, source, section):
    """``cls`` (a frozen options dataclass) from a parsed TOML table, every key and value checked.

    Raises:
        ConfigError: naming ``source``, the table ``section`` and the key.
    """
    fields = {f.name: f for f in dataclasses.fields(cls)}
    kwargs = {}
    for key, value in table.items():
        place = f"{source}: [{section}] {key}"
        if key not in fields:
            raise ConfigError(f"{place}: unknown key (known: {', '.join(fields)})")
        default = fields[key].default
        kwargs[key] = _coerce(value, default, place)
    try:
        return cls(**kwargs)
    except ValueError as error:
        raise ConfigError(f"{source}: [{section}] {error}") from None


def _coerce(value, default, place):
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(default, float):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif isinstance(default, tuple):
        kind = type(default[0]) if default else object
        ok = isinstance(value, list) and all(isinstance(v, kind) and not isinstance(v, bool) for v in value)
        value = tuple(value) if ok else value
    else:
        ok = isinstance(value, type(default))
    if not ok:
        expected = f"a list of {type(default[0]).__name__}" if isinstance(default, tuple) and default \
            else type(default).__name__
        raise ConfigError(f"{place}: expected {expected}, got {value!r}")
    return value


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
