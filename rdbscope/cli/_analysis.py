"""Read a command's input and analyse it, with the progress bar on stderr."""

from ..api import analyze
from ..report.inputs import load_input
from ._console import scan_progress
from ._options import scan_options


def load_keys(path, *, db=None, types=None, match=None, quiet=False, no_crc=False, relaxed_version=False,
              allocator="jemalloc", list_compress_depth=0):
    """The KeyTable of a dump or keys Parquet file, filtered as the options say."""
    options = scan_options(db, types, match, no_crc, relaxed_version, allocator, list_compress_depth)
    with scan_progress(quiet, f"reading {path.name}") as on_progress:
        return load_input(path, on_progress=on_progress, **options)


def analyze_input(path, *, config=None, passes=None, **load_options):
    """Load ``path`` (see :func:`load_keys`) and run the passes (all, or ``passes`` and what they need)."""
    keys = load_keys(path, **load_options)
    return analyze(keys, config=config, passes=passes)


def exit_for_findings(findings, fail_on, families=None):
    """Exit with code 1 when a finding (of ``families``, if given) is at or above ``fail_on``."""
    import typer

    from ..report.views import findings_at_or_above
    from ._console import message

    if fail_on is None or fail_on.value == "never":
        return
    failing = findings_at_or_above(findings, fail_on.value, families)
    if failing:
        message(f"{len(failing)} finding(s) at or above {fail_on.value}")
        raise typer.Exit(1)
