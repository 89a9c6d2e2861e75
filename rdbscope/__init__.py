"""rdbscope: an offline analyzer of Redis and Valkey dump files."""

from .errors import (
    ConfigError,
    RdbError,
    RdbFormatError,
    RdbscopeError,
    RdbTruncatedError,
    RdbUnsupportedError,
)
from .keys import KeyTable, load
from .rdb import DumpInfo, KEYS_SCHEMA, scan
from .api import analyze
from .findings import Finding, Severity
from .result import Result
from . import report  # noqa: F401  (gives Result its .plot accessor)

__all__ = [
    "scan", "load", "analyze", "KeyTable", "DumpInfo", "KEYS_SCHEMA", "Result", "Finding", "Severity",
    "RdbscopeError", "RdbError", "RdbFormatError", "RdbTruncatedError", "RdbUnsupportedError", "ConfigError",
]
__version__ = "0.1.0"
