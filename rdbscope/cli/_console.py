"""Consoles and the progress bar: data on stdout, everything else on stderr."""

import contextlib
import functools
import time

import typer


class _Console:
    """A rich Console made on first use: importing rich.console would cost --help and every
    usage error a fifth of their time."""

    def __init__(self, **options):
        self._options = options
        self._made = None

    @property
    def console(self):
        if self._made is None:
            from rich.console import Console

            self._made = Console(**self._options)
        return self._made

    def __getattr__(self, name):
        return getattr(self.console, name)


#: What every Console here is made with: data (keys, patterns, file names) is never read as rich markup
#: or as emoji shortcodes (``big:key:45386`` would print as ``big🔑45386``); styles are given as Text.
PLAIN = {"markup": False, "emoji": False, "highlight": False}
out = _Console(soft_wrap=True, **PLAIN)
# soft_wrap: a message piped to a log stays one line, however long.
err = _Console(stderr=True, soft_wrap=True, **PLAIN)


def exits_on_bad_input(command):
    """Turn an RdbscopeError into one line on stderr and exit code 2."""
    from ..errors import RdbscopeError

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except RdbscopeError as exc:
            message(f"error: {exc}")
            raise typer.Exit(2) from None

    return wrapper


@contextlib.contextmanager
def scan_progress(quiet, description):
    """Yield an ``on_progress(bytes_done, bytes_total, keys_done=None)`` callback drawing on stderr.

    Shows bytes read, keys per second (when given) and the time left, then one
    line with the time it took; yields None (no bar) when ``quiet`` or when
    stderr is not a terminal.
    """
    if not shows_progress(quiet):
        yield None
        return
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    started = time.perf_counter()
    with Progress(
        TextColumn("{task.description}"), BarColumn(), DownloadColumn(), _keys_per_second(),
        TimeRemainingColumn(), console=err.console, transient=True,
    ) as progress:
        task = progress.add_task(description, total=None, keys=None)

        def on_progress(done, total, keys=None):
            progress.update(task, completed=done, total=total, keys=keys)

        yield on_progress
    message(f"{description}: {time.perf_counter() - started:.1f} s")


def message(text):
    """One line on stderr, as given (no markup, no wrapping; control characters escaped)."""
    from ..rdb.keytext import printable

    err.print(printable(text), soft_wrap=True)


def shows_progress(quiet):
    """Progress goes to stderr only when a person watches it."""
    return not quiet and err.is_terminal


@contextlib.contextmanager
def stage(quiet, description):
    """Show ``description`` with a spinner and its running time on stderr while the block runs,
    then one line with the time it took; nothing when quiet or when stderr is not a terminal."""
    if not shows_progress(quiet):
        yield
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    started = time.perf_counter()
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=err.console,
                  transient=True) as progress:
        progress.add_task(description, total=None)
        yield
    message(f"{description}: {time.perf_counter() - started:.1f} s")


def _keys_per_second():
    """A progress column: keys read so far and the rate, ``12,345 keys 80,000/s``."""
    from rich.progress import ProgressColumn
    from rich.text import Text

    class KeysPerSecond(ProgressColumn):
        def render(self, task):
            keys = task.fields.get("keys")
            if keys is None:
                return Text("")
            elapsed = task.elapsed or 0
            rate = f" {keys / elapsed:,.0f}/s" if elapsed > 0.2 else ""
            return Text(f"{keys:,} keys{rate}", style="progress.data.speed")

    return KeysPerSecond()
