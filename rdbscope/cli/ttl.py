"""rdbscope ttl: which data never expires."""

from ._analysis import analysis_command, analyze_input, exit_for_findings, settings
from ._formats import emit, records, write_json
from ._options import Format, Input

PATTERN_COLUMNS = ["db", "pattern", "n_keys", "n_without_ttl", "share_without_ttl", "memory_bytes_without_ttl",
                   "n_expired", "volatile_name", "ttl_s_p50", "ttl_s_max"]


@analysis_command()
def ttl_command(
    dump: Input,
    output=None,
    load=None,
):
    """Show TTL coverage: per db, then per pattern the keys without a TTL and the memory they hold.

    TTLs are measured from the dump's ctime, not from now. Patterns whose name
    says cache, session, lock, token... are marked "volatile name". JSON gives
    {"overview": [...], "patterns": [...]}; CSV gives the pattern rows.
    --fail-on looks at TTL findings only.
    """
    from ..report import views

    res = analyze_input(dump, settings(output.config), passes=["ttl"], load=load)
    overview = views.ttl_overview_rows(res)
    patterns = views.ttl_pattern_rows(res, output.top)
    if output.fmt == Format.json:
        write_json({"overview": records(overview), "patterns": records(patterns)})
    elif output.fmt == Format.csv:
        emit(patterns, output)
    else:
        emit(overview, output, title="TTL coverage (db empty: the whole dump)")
        emit(patterns, output, title=f"Top {len(patterns)} patterns by memory without TTL", columns=PATTERN_COLUMNS)
        findings = views.finding_rows(res, output.top, families=("TTL",))
        if len(findings):
            emit(findings, output, title="TTL findings", columns=["severity", "code", "db", "pattern", "n_keys",
                                                              "est_memory_bytes", "message"])
    exit_for_findings(res.finding_list, output.fail_on, ("TTL",))
