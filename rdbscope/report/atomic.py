"""Write a file under a temporary name and rename it: a failed run never leaves half a file, and a write that
fails (a full disk, a directory that cannot be written) is one :class:`~rdbscope.errors.OutputError` naming it."""

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterator

from ..errors import OutputError

#: What an OSError raised while a file is written says when the writing failed, not the reading of what
#: is written (a scan streams the dump into ``scan -o``'s file).
WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM,
                          errno.ENOTDIR, errno.EISDIR, errno.EIO})


@contextlib.contextmanager
def atomic_path(path) -> Iterator[str]:
    """Yield a temporary path beside ``path``; move it over ``path`` only on success.

    Raises:
        OutputError: the file cannot be made or written.
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    with writing(path):
        fd, tmp = tempfile.mkstemp(prefix=".rdbscope-", suffix=".tmp", dir=directory)
    os.close(fd)
    try:
        with writing(path, WRITE_ERRNOS):
            yield tmp
            os.chmod(tmp, _new_file_mode())  # mkstemp makes 0600; a report is an ordinary file
            os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def writing(path, errnos=None):
    """Turn an OSError of the block (one of ``errnos``, or any) into an OutputError naming ``path``:
    ``report.html: cannot write it (No space left on device)``."""
    try:
        yield
    except OSError as exc:
        if errnos is not None and exc.errno not in errnos:
            raise
        said = os.strerror(exc.errno) if exc.errno else str(exc)  # Arrow's own text wraps the errno's
        raise OutputError(f"{os.fspath(path)}: cannot write it ({said})") from None


def _new_file_mode():
    """The mode ``open()`` gives a new file: 0666 less the umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
