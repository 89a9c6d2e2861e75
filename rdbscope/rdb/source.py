"""Open a dump: a path, a binary file object or a live server's URL, plain or compressed.

Compressed backups (gzip, zstd, lz4 frame, bz2, xz) are decompressed as a
stream, never to disk. Valkey 9.2 can write the whole RDB inside an LZ4 frame;
that is the same lz4 case.
"""

import io
import os

from ..errors import RdbFormatError, RdbUnsupportedError
from .replication import ReplicationStream, is_server_url

_SIGNATURES = (
    (b"\x1f\x8b", "gzip"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"\x04\x22\x4d\x18", "lz4"),
    (b"BZh", "bz2"),
    (b"\xfd7zXZ\x00", "xz"),
)


class _Prefixed(io.RawIOBase):
    """A non-seekable stream with bytes already read from it put back in front."""

    def __init__(self, prefix, stream):
        self._prefix = prefix
        self._stream = stream

    def readable(self):
        return True

    def readinto(self, b):
        if self._prefix:
            n = min(len(b), len(self._prefix))
            b[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
            return n
        return _readinto(self._stream, b)


def _readinto(stream, b):
    readinto = getattr(stream, "readinto", None)
    if readinto is not None:
        return readinto(b)
    data = stream.read(len(b))
    b[: len(data)] = data
    return len(data)


class Source:
    """An opened dump: ``stream`` yields the decompressed RDB bytes.

    Attributes:
        name: the path, the file object's name, or the server's URL without its password,
            for error messages.
        compression: None, "gzip", "zstd", "lz4", "bz2" or "xz".
        size: bytes of the underlying file when known (for progress), or the length a server
            announced for its snapshot, else None.
    """

    def __init__(self, source, save_dump=None, timeout=None):
        self._owned = None
        if is_server_url(source):
            waits = {} if timeout is None else {"connect_timeout_s": timeout, "idle_timeout_s": timeout}
            raw = ReplicationStream(source, save_dump=save_dump, **waits)
            self._owned = raw
            self.name = raw.name
        elif isinstance(source, (str, os.PathLike)):
            self.name = os.fspath(source)
            raw = open(self.name, "rb")
            self._owned = raw
        elif hasattr(source, "read"):
            raw = source
            self.name = getattr(source, "name", None)
            if not isinstance(self.name, (str, bytes)):
                self.name = None
        else:
            raise TypeError(f"expected a path or a binary file object, got {type(source).__name__}")
        self._raw = raw
        self.size = raw.size if is_server_url(source) else _size_of(raw)
        head = _peek(raw, 6)
        if isinstance(head, str):
            raise TypeError("the file object must be opened in binary mode")
        if not (raw.seekable() if hasattr(raw, "seekable") else False):
            raw = _Prefixed(head, raw)
        self._mapping = None
        self.compression = None
        for signature, name in _SIGNATURES:
            if head.startswith(signature):
                self.compression = name
                break
        self.stream = _decompressor(self.compression, raw, self.name)
        if self.compression is not None:
            self.stream = _Guarded(self.stream, self.compression, self.name, self.position)

    def mapped(self):
        """The whole uncompressed dump mapped read-only in memory, or None when it is not a plain file.

        The scanner reads a mapping without copying it; the mapping is closed
        with the Source, so whoever reads it must let go of it first.
        """
        if self._mapping is None and self.compression is None:
            self._mapping = _map_file(self._raw)
        return self._mapping

    def current_size(self):
        """The underlying file's size now (another process may have changed it), when known."""
        return _size_of(self._raw)

    def position(self):
        """Bytes of the underlying file consumed so far, when it can tell."""
        try:
            return self._raw.tell()
        except (OSError, AttributeError, ValueError):
            return None

    def close(self):
        if self._mapping is not None:
            try:
                self._mapping.close()
            except BufferError:  # a view of it is still alive: the mapping goes with that view
                pass
        if self.stream is not self._raw:
            try:
                self.stream.close()
            except Exception:  # a decompressor that fails to close must not hide the real error
                pass
        if self._owned is not None:
            self._owned.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class _Guarded(io.RawIOBase):
    """Turns a decompressor's own exceptions into RdbFormatError at the offset of the dump reached, and says
    how far into the compressed file (``position()``) that was."""

    def __init__(self, stream, kind, name, position):
        self._stream = stream
        self._kind = kind
        self._name = name
        self._position = position
        self._done = 0

    def readable(self):
        return True

    def readinto(self, b):
        try:
            # one step of the decompressor at a time: what came out before the damage is counted
            n = self._stream.readinto1(b)
        except Exception as exc:  # each decompressor raises its own types
            compressed = self._position()
            where = f" at byte {compressed:,} of the compressed file" if compressed is not None else ""
            raise RdbFormatError(f"the {self._kind} stream is damaged{where}, {self._done:,} bytes into the dump "
                                 f"({exc})", self._done, context=f"{self._kind} data", path=self._name) from None
        self._done += n or 0
        return n

    def close(self):
        self._stream.close()
        super().close()


def _size_of(raw):
    try:
        return os.fstat(raw.fileno()).st_size
    except (OSError, AttributeError, ValueError, io.UnsupportedOperation):
        return None


def _map_file(raw):
    """A read-only mapping of a regular, non-empty file not yet read from, or None."""
    import mmap
    import stat

    try:
        info = os.fstat(raw.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size == 0 or raw.tell() != 0:
            return None
        mapping = mmap.mmap(raw.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, AttributeError, ValueError, io.UnsupportedOperation):
        return None
    try:
        mapping.madvise(mmap.MADV_SEQUENTIAL)
    except (AttributeError, OSError):
        pass
    return mapping


def _peek(raw, n):
    seekable = raw.seekable() if hasattr(raw, "seekable") else False
    if seekable:
        at = raw.tell()
        head = raw.read(n)
        raw.seek(at)
        return head
    return raw.read(n)


def _decompressor(kind, raw, name):
    if kind is None:
        return raw
    if kind == "gzip":
        import gzip

        return gzip.GzipFile(fileobj=raw, mode="rb")
    if kind == "bz2":
        import bz2

        return bz2.BZ2File(raw, mode="rb")
    if kind == "xz":
        import lzma

        return lzma.LZMAFile(raw, mode="rb")
    if kind == "zstd":
        try:
            import zstandard
        except ImportError:
            raise RdbUnsupportedError("zstd-compressed dump: install the 'zstandard' package", 0, path=name) from None
        return zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
    if kind == "lz4":
        try:
            import lz4.frame
        except ImportError:
            raise RdbUnsupportedError("lz4-compressed dump: install the 'lz4' package", 0, path=name) from None
        return lz4.frame.LZ4FrameFile(raw, mode="rb")
    raise RdbFormatError(f"unknown compression {kind}", 0, path=name)
