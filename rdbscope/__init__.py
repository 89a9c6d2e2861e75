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

__all__ = [
    "scan", "load", "KeyTable", "DumpInfo", "KEYS_SCHEMA",
    "RdbscopeError", "RdbError", "RdbFormatError", "RdbTruncatedError", "RdbUnsupportedError", "ConfigError",
]
__version__ = "0.1.0"
