"""rdbscope ttl: which data never expires."""

from ._analysis import analyze_input, exit_for_findings, settings
from ._console import exits_on_bad_input
from ._formats import emit, records, write_json
from ._options import (ConfigOption, CsvSafe, FailOn, FailOnOption, Format, Input, Top, format_option,
                       takes_load_options)

PATTERN_COLUMNS = ["db", "pattern", "n_keys", "n_without_ttl", "share_without_ttl", "memory_bytes_without_ttl",
                   "n_expired", "volatile_name", "ttl_s_p50", "ttl_s_max"]


@exits_on_bad_input
@takes_load_options()
def ttl_command(
    dump: Input,
    top: Top = 20,
    fmt: format_option(Format.table, Format.json, Format.csv) = Format.table,
    csv_safe: CsvSafe = True,
    fail_on: FailOnOption = FailOn.never,
    config: ConfigOption = None,
    load=None,
):
    """Show TTL coverage: per db, then per pattern the keys without a TTL and the memory they hold.

    TTLs are measured from the dump's ctime, not from now. Patterns whose name
    says cache, session, lock, token... are marked "volatile name". JSON gives
    {"overview": [...], "patterns": [...]}; CSV gives the pattern rows.
    --fail-on looks at TTL findings only.
    """
    from ..report import views

    res = analyze_input(dump, settings(config), passes=["ttl"], load=load)
    overview = views.ttl_overview_rows(res)
    patterns = views.ttl_pattern_rows(res, top)
    if fmt == Format.json:
        write_json({"overview": records(overview), "patterns": records(patterns)})
    elif fmt == Format.csv:
        emit(patterns, fmt, csv_safe=csv_safe)
    else:
        emit(overview, fmt, title="TTL coverage (db empty: the whole dump)")
        emit(patterns, fmt, title=f"Top {len(patterns)} patterns by memory without TTL", columns=PATTERN_COLUMNS)
        findings = views.finding_rows(res, top, families=("TTL",))
        if len(findings):
            emit(findings, fmt, title="TTL findings", columns=["severity", "code", "db", "pattern", "n_keys",
                                                              "est_memory_bytes", "message"])
    exit_for_findings(res.finding_list, fail_on, ("TTL",))
