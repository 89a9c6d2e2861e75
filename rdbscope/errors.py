"""The one exception hierarchy of rdbscope.

Every problem with a dump raises an :class:`RdbError` subclass that carries the
byte offset where reading failed and what was being read, so that a user can
say "bad length encoding at offset 18234 while reading hash 'sess:…'" instead of
pasting a traceback.
"""


class RdbscopeError(Exception):
    """Base of every error rdbscope raises on purpose."""


class RdbError(RdbscopeError, ValueError):
    """A dump could not be read.

    Attributes:
        offset: byte position in the (decompressed) dump where reading failed,
            or None when no position applies.
        context: what was being read: the opcode or type, the db and a
            truncated key when known.
        path: the file name, when the dump came from a file.
    """

    def __init__(self, message: str, offset: int | None = None, context: str = "", path=None) -> None:
        self.message = message
        self.offset = offset
        self.context = context
        self.path = path
        super().__init__(self._render())

    def _render(self) -> str:
        where = []
        if self.path:
            where.append(str(self.path))
        if self.offset is not None:
            where.append(f"offset {self.offset}")
        text = self.message
        if self.context:
            text += f" while reading {self.context}"
        return f"{': '.join(where) + ': ' if where else ''}{text}"

    def with_path(self, path) -> "RdbError":
        """Return the same error with the file name filled in."""
        if self.path is None and path is not None:
            self.path = path
            self.args = (self._render(),)
        return self


class RdbFormatError(RdbError):
    """The bytes do not follow the RDB format (bad encoding, bad checksum, …)."""


class RdbTruncatedError(RdbError):
    """The dump ended before the data it announced."""


class RdbUnsupportedError(RdbError):
    """A version, type, opcode or encoding that rdbscope does not handle."""


class InputError(RdbscopeError, ValueError):
    """A file given to rdbscope is not something it reads (not a dump, nor a keys table)."""


class OutputError(RdbscopeError, OSError):
    """A report or table could not be written: a full disk, a directory that cannot be written."""


class ConfigError(RdbscopeError, ValueError):
    """A configuration value or option is invalid."""
