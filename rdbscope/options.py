"""Options: the frozen dataclasses a pass or a rule declares beside itself, and reading them from TOML.

Each field has a default and one line of doc (``option(default, doc)``); the docs of a
rule's options are generated from them. :func:`options_from_table` builds an options
object from a parsed ``rdbscope.toml`` table, checking every key and value; an option
named ``*_bytes`` also takes a size such as ``"1MB"``.
"""

import dataclasses
import json

from .errors import ConfigError, InputError
from .sizes import parse_size


def option(default, doc):
    """A field of an ``Options`` dataclass with its default and one line of doc."""
    if isinstance(default, (list, set)):
        default = tuple(default)
    return dataclasses.field(default=default, metadata={"doc": doc})


def require_positive(options, *names):
    """ValueError unless each named field (a number or a tuple of numbers) is > 0."""
    for name in names:
        value = getattr(options, name)
        values = value if isinstance(value, tuple) else (value,)
        if any(v <= 0 for v in values):
            raise ValueError(f"{name} must be > 0, got {value!r}")


def require_share(options, *names):
    """ValueError unless each named field is between 0 and 1."""
    for name in names:
        value = getattr(options, name)
        if not 0 <= value <= 1:
            raise ValueError(f"{name} must be between 0 and 1, got {value!r}")


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
            known = ", ".join(fields) or "none: it takes no options"
            raise ConfigError(f"{place}: unknown key (known: {known})")
        kwargs[key] = _coerce(_bytes_of(value, place) if key.endswith("_bytes") else value,
                              fields[key].default, place)
    try:
        return cls(**kwargs)
    except ValueError as error:
        raise ConfigError(f"{source}: [{section}] {error}") from None


def options_doc(options_class):
    """The Options section of the docs, from the fields: ``- `name` (default `3`): doc``."""
    fields = dataclasses.fields(options_class)
    return "\n".join(f"- `{f.name}` (default `{toml_value(f.default)}`): {f.metadata['doc']}" for f in fields) \
        or "- none"


def toml_value(value):
    """``value`` as written in rdbscope.toml: ``true``, ``0.25``, ``["a", "b"]``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return str(value)


def _bytes_of(value, place):
    """A byte threshold as written: a number, or a size such as ``"1MB"`` (1024-based, as every size)."""
    if not isinstance(value, str):
        return value
    try:
        return parse_size(value)
    except InputError as error:
        raise ConfigError(f"{place}: {error}") from None


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
