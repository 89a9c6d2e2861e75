"""Consoles and the progress bar: data on stdout, everything else on stderr."""

import contextlib
import errno
import functools
import os
import sys
import time

import typer

#: How wide output to a pipe or file is laid out when COLUMNS does not say: a wide terminal.
PIPE_WIDTH = 120


class _Console:
    """A rich Console made on first use: importing rich.console would cost --help and every
    usage error a fifth of their time.

    On a terminal it is as wide as the terminal; to a pipe or file, COLUMNS wide when set, else
    PIPE_WIDTH (rich alone would give 80)."""

    def __init__(self, **options):
        self._options = options
        self._made = None

    @property
    def console(self):
        if self._made is None:
            self._made = make_console(**self._options)
            if not self._made.is_terminal and not os.environ.get("COLUMNS", "").strip().isdigit():
                self._made.width = PIPE_WIDTH
        return self._made

    @property
    def is_terminal(self):
        """Whether a person reads this stream; answered without rich where rich would surely say no
        (not a tty, and neither TTY_COMPATIBLE nor FORCE_COLOR set), so that a run to a pipe or file
        that prints nothing here does not import it."""
        rich_may_differ = self._options.keys() & {"file", "force_terminal"} or \
            os.environ.keys() & {"TTY_COMPATIBLE", "FORCE_COLOR"}
        if self._made is None and not rich_may_differ:
            stream = sys.stderr if self._options.get("stderr") else sys.stdout
            try:
                if not stream.isatty():
                    return False
            except (AttributeError, ValueError):  # no isatty, or closed: rich says no too
                return False
        return self.console.is_terminal

    def __getattr__(self, name):
        return getattr(self.console, name)


def make_console(**options):
    """A rich Console that leaves a reader going away (``| head -1``) to the command line, which ends
    the run with 0: rich itself would exit 1, the code of findings."""
    from rich.console import Console

    class QuietOnBrokenPipe(Console):
        def on_broken_pipe(self):
            self.quiet = True
            raise BrokenPipeError(errno.EPIPE, "the reader went away")

    return QuietOnBrokenPipe(**options)


#: What every Console here is made with: data (keys, patterns, file names) is never read as rich markup
#: or as emoji shortcodes (``big:key:45386`` would print as ``big🔑45386``); styles are given as Text.
PLAIN = {"markup": False, "emoji": False, "highlight": False}
# soft_wrap: rich pads no line with spaces; prose that should wrap goes through print_wrapped.
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


#: What the bar of a live server says until the snapshot's first bytes arrive: a server may wait
#: (repl-diskless-sync-delay, 5 s by default) or write its dump to disk before it sends anything.
SNAPSHOT_WAIT = "the server is preparing its snapshot"


def waiting_for(item):
    """What :func:`scan_progress` says while ``item`` sends nothing yet: :data:`SNAPSHOT_WAIT` for a live
    server, else None."""
    from ..sources import is_live

    return SNAPSHOT_WAIT if is_live(item) else None


@contextlib.contextmanager
def scan_progress(quiet, description, waiting=None):
    """Yield an ``on_progress(bytes_done, bytes_total, keys_done=None)`` callback drawing on stderr.

    Shows bytes read, keys per second (when given) and the time left, then one
    line with the time it took; yields None (no bar) when ``quiet`` or when
    stderr is not a terminal. ``waiting``: what the bar says until the first bytes are read.
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
        task = progress.add_task(f"{description}: {waiting}" if waiting else description, total=None, keys=None)

        def on_progress(done, total, keys=None):
            shown = description if done or not waiting else f"{description}: {waiting}"
            progress.update(task, completed=done, total=total, keys=keys, description=shown)

        yield on_progress
    message(f"{description}: {time.perf_counter() - started:.1f} s")


def print_wrapped(text, indent=0):
    """A rich Text on stdout wrapped between words to the output's width, every line ``indent`` spaces
    in (a terminal would cut words; a pipe would get one line however long)."""
    from rich.text import Text

    for line in text.wrap(out.console, max(out.width - indent, 20)):
        line.rstrip()
        out.print(Text.assemble(" " * indent, line))


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
