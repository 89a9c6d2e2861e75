"""rdbscope ttl: which data never expires."""

from ..report import views
from ._analysis import analyze_input, exit_for_findings
from ._console import exits_on_bad_input
from ._formats import emit, records, write_json
from ._options import (AllocatorOption, CompressDepth, ConfigOption, Db, FailOn, FailOnOption, Format,
                       FormatOption, Input, Match, NoCrc, Quiet, Relaxed, Top, Type)

PATTERN_COLUMNS = ["db", "pattern", "n_keys", "n_without_ttl", "share_without_ttl", "memory_bytes_without_ttl",
                   "n_expired", "volatile_name", "ttl_s_p50", "ttl_s_max"]


@exits_on_bad_input
def ttl_command(
    dump: Input,
    top: Top = 20,
    fmt: FormatOption = Format.table,
    db: Db = None,
    type_: Type = None,
    match: Match = None,
    fail_on: FailOnOption = FailOn.never,
    config: ConfigOption = None,
    no_crc: NoCrc = False,
    relaxed_version: Relaxed = False,
    allocator: AllocatorOption = "jemalloc",
    list_compress_depth: CompressDepth = 0,
    quiet: Quiet = False,
):
    """Show TTL coverage: per db, then per pattern the keys without a TTL and the memory they hold.

    TTLs are measured from the dump's ctime, not from now. Patterns whose name
    says cache, session, lock, token... are marked "volatile name". JSON gives
    {"overview": [...], "patterns": [...]}; CSV gives the pattern rows.
    --fail-on looks at TTL findings only.
    """
    res = analyze_input(dump, config=config, passes=["ttl"], db=db, types=type_, match=match, quiet=quiet,
                        no_crc=no_crc, relaxed_version=relaxed_version, allocator=allocator,
                        list_compress_depth=list_compress_depth)
    overview = views.ttl_overview_rows(res)
    patterns = views.ttl_pattern_rows(res, top)
    if fmt == Format.json:
        write_json({"overview": records(overview), "patterns": records(patterns)})
    elif fmt == Format.csv:
        emit(patterns, fmt)
    else:
        emit(overview, fmt, title="TTL coverage (db empty: the whole dump)")
        emit(patterns, fmt, title=f"Top {len(patterns)} patterns by memory without TTL", columns=PATTERN_COLUMNS)
        findings = views.finding_rows(res, top, families=("TTL",))
        if len(findings):
            emit(findings, fmt, title="TTL findings", columns=["severity", "code", "db", "pattern", "n_keys",
                                                              "est_memory_bytes", "message"])
    exit_for_findings(res.finding_list, fail_on, ("TTL",))
