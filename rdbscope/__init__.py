"""rdbscope: an offline analyzer of Redis and Valkey dump files."""

import importlib

from .errors import (
    ConfigError,
    RdbError,
    RdbFormatError,
    RdbscopeError,
    RdbTruncatedError,
    RdbUnsupportedError,
)

__all__ = [
    "scan", "load", "analyze", "KeyTable", "DumpInfo", "KEYS_SCHEMA", "Result", "Finding", "Severity",
    "RdbscopeError", "RdbError", "RdbFormatError", "RdbTruncatedError", "RdbUnsupportedError", "ConfigError",
]
__version__ = "0.1.0"

# The public names that need pyarrow, numpy or pandas are imported on first use, so that
# the command line answers --help and usage errors without loading them.
_LAZY = {
    "scan": ".rdb", "DumpInfo": ".rdb", "KEYS_SCHEMA": ".rdb",
    "load": ".keys", "KeyTable": ".keys",
    "analyze": ".api",
    "Finding": ".findings", "Severity": ".findings",
    "Result": ".result",
}


#: Subpackages reachable as attributes (``rdbscope.rdb.IMPLEMENTATION``), as when they were imported here.
_SUBMODULES = {"api", "config", "findings", "keys", "passes", "patterns", "rdb", "report", "result", "rules",
               "summary"}


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    if name not in _LAZY:
        raise AttributeError(f"module 'rdbscope' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    importlib.import_module(".report", __name__)  # gives Result its .plot accessor
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
