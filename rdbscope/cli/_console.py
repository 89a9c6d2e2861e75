"""Consoles and the progress bar: data on stdout, everything else on stderr."""

import contextlib
import functools

import typer
from rich.console import Console
from rich.progress import (BarColumn, DownloadColumn, Progress, ProgressColumn, TextColumn,
                           TimeRemainingColumn)
from rich.text import Text

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False)


@contextlib.contextmanager
def progress_bar(quiet, description):
    """Yield an ``on_progress(bytes_done, bytes_total)`` callback drawing a bar on stderr."""
    if quiet or not err.is_terminal:
        yield None
        return
    with Progress(
        TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TimeRemainingColumn(),
        console=err, transient=True,
    ) as progress:
        task = progress.add_task(description, total=None)

        def on_progress(done, total):
            progress.update(task, completed=done, total=total)

        yield on_progress


def exits_on_bad_input(command):
    """Turn an RdbscopeError into one line on stderr and exit code 2."""
    from ..errors import RdbscopeError

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except RdbscopeError as exc:
            err.print(f"error: {exc}", soft_wrap=True, markup=False)
            raise typer.Exit(2)

    return wrapper


class _KeysPerSecond(ProgressColumn):
    """Keys read so far and the rate: ``12,345 keys 80,000/s``."""

    def render(self, task):
        keys = task.fields.get("keys", 0)
        elapsed = task.elapsed or 0
        rate = f" {keys / elapsed:,.0f}/s" if elapsed > 0.2 else ""
        return Text(f"{keys:,} keys{rate}", style="progress.data.speed")


@contextlib.contextmanager
def scan_progress(quiet, description):
    """Yield an ``on_progress(bytes_done, bytes_total, keys_done)`` callback drawing on stderr.

    Shows bytes read, keys per second and the time left; yields None (no bar)
    when ``quiet`` or when stderr is not a terminal.
    """
    if quiet or not err.is_terminal:
        yield None
        return
    with Progress(
        TextColumn("{task.description}"), BarColumn(), DownloadColumn(), _KeysPerSecond(),
        TimeRemainingColumn(), console=err, transient=True,
    ) as progress:
        task = progress.add_task(description, total=None, keys=0)

        def on_progress(done, total, keys):
            progress.update(task, completed=done, total=total, keys=keys)

        yield on_progress


def message(text):
    """One line on stderr, as given (no markup, no wrapping)."""
    err.print(text, markup=False, highlight=False, soft_wrap=True)
