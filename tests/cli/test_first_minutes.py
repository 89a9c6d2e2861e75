"""The first minutes with the command line: fast help, one-line errors, the same options everywhere."""

import csv
import io
import json
import os
import pty
import subprocess
import sys
import threading

import pytest
from conftest import ROOT, SAMPLE_DUMPS
from typer.testing import CliRunner

import rdbscope
from rdbscope.cli import app

runner = CliRunner()
DUMP = SAMPLE_DUMPS / "redis-8.2-default.rdb"
DUMP_DBS = "0, 1, 5"  # the dbs of DUMP (its RESIZEDB hints)
LOADING_COMMANDS = ["report", "patterns", "bigkeys", "ttl", "expiry", "lint"]


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def one_line_error(result):
    lines = result.stderr.splitlines()
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


@pytest.fixture(scope="module")
def keys_parquet(tmp_path_factory):
    path = tmp_path_factory.mktemp("keys") / "keys.parquet"
    assert invoke("scan", DUMP, "-o", path).exit_code == 0
    return path


def run_python(code, **kwargs):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True,
                          **kwargs)


# --- speed: --help and usage errors load no data library (bench/bench_startup.py has the times) ---

def test_help_and_usage_errors_import_no_data_library():
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from rdbscope.cli import app\n"
        "r = CliRunner()\n"
        "codes = [r.invoke(app, a).exit_code for a in (['--help'], ['report', '--help'], ['lint', '-h'],"
        " ['report', '--no-such-option'], ['reprot'])]\n"
        "print(codes, sorted(m for m in ('pyarrow', 'pandas', 'numpy', 'matplotlib', 'pydantic', 'rich.console')"
        " if m in sys.modules))\n"
    )
    assert run_python(code).stdout.split("\n")[0] == "[0, 0, 0, 2, 2] []"


def test_import_rdbscope_is_light_and_the_api_still_works():
    code = ("import sys, rdbscope\n"
            "print('pandas' in sys.modules, 'pyarrow' in sys.modules, sorted(rdbscope.__all__) == "
            "sorted(n for n in rdbscope.__all__ if hasattr(rdbscope, n)), rdbscope.rdb.IMPLEMENTATION in "
            "('cython', 'python'))\n")
    assert run_python(code).stdout.split() == ["False", "False", "True", "True"]
    keys = rdbscope.load(DUMP)
    result = rdbscope.analyze(keys)
    assert isinstance(result, rdbscope.Result) and hasattr(result, "plot")


def test_a_json_report_imports_only_what_it_works_with():
    """A report to a pipe: no pydantic (typer's coercion), no rich (nothing drawn), no Parquet reader (a
    dump is read), no matplotlib, no Cython (the compiled scanner runs, not its source)."""
    code = (
        "import sys\n"
        "from rdbscope.cli import app\n"
        f"code = app(['report', {str(DUMP)!r}, '--format', 'json', '--top', '5', '--db', '0', '--db', '5'],"
        " standalone_mode=False)\n"
        "sys.stdout.flush()\n"
        "print(code, sorted(m for m in ('pydantic', 'rich', 'pyarrow.parquet', 'matplotlib', 'cython')"
        " if m in sys.modules), file=sys.stderr)\n"
    )
    result = run_python(code)
    assert result.stderr.splitlines()[-1] == "0 []"
    report = json.loads(result.stdout)
    expected = rdbscope.load(DUMP, db=[0, 5])
    assert report["overview"]["n_keys"] == expected.num_rows and report["overview"]["n_dbs"] == 2
    assert len(report["patterns"]) == 5


def test_the_command_leaves_its_objects_to_the_exit():
    """The interpreter's last garbage collections would walk every object of pandas, pyarrow and the
    result once more (0.1 s of a small report, 0.2 s of a 10M-key one): the entry point freezes them."""
    code = ("import gc, sys\n"
            "from rdbscope.cli import main\n"
            f"sys.argv = ['rdbscope', 'report', {str(DUMP)!r}, '--format', 'csv']\n"
            "try:\n"
            "    main()\n"
            "except SystemExit as exc:\n"
            "    print(exc.code, gc.get_freeze_count() > 10000, file=sys.stderr)\n")
    result = run_python(code)
    assert result.stderr.splitlines()[-1] == "0 True"
    assert result.stdout.startswith("severity,code,")


def test_options_are_coerced_as_typer_would():
    """The CLI's own coercion (cli/_coercion.py) gives what typer's pydantic adapters give, value or error,
    for every parameter of every command."""
    import typer.main
    from typer._click import Context
    from typer._coercion import build_runtime_param

    from rdbscope.cli._coercion import PlainRuntimeParam

    samples = ["0", "1", "7", "007", "+3", "-1", " 3", "1_0", "2.5", ".5", "1e3", "x", "", "json", "JSON", "csv",
               "keys", "libc", "warning", "1MB", "2 GB", "nonsense", "2020-01-01", "BIG", str(DUMP), "/no/such",
               "/no/such/", str(DUMP) + "/", str(ROOT), f"{ROOT}/./tests", "-", 3, 0.5, True, ("0", "5"), ("x",)]

    def outcome(runtime, value, param, ctx):
        try:
            got = runtime._coerce_value(value, param, ctx)
            return type(got), got
        except Exception as exc:  # the error a user would be shown
            return type(exc), getattr(exc, "format_message", exc.__str__)()

    group = typer.main.get_command(app)
    compared = 0
    for name in group.list_commands(Context(group)):
        command = group.get_command(Context(group), name)
        ctx = Context(command)
        for param in command.params:
            descriptor = param.type_descriptor
            if descriptor.file_annotation is not None:
                continue
            plain = PlainRuntimeParam(descriptor.parameter_info, descriptor.annotation, descriptor)
            typers = build_runtime_param(descriptor)
            for value in samples:
                if isinstance(value, tuple) != (param.multiple or param.nargs == -1):
                    continue
                assert outcome(plain, value, param, ctx) == outcome(typers, value, param, ctx), (name, param.name,
                                                                                              value)
                compared += 1
    assert compared > 2000


def test_loading_the_keys_schema_does_not_import_pandas():
    code = "import sys, rdbscope.rdb; print('pandas' in sys.modules)"
    assert run_python(code).stdout.strip() == "False"


# --- usage errors: one line, exit 2 ------------------------------------------------------------------

@pytest.mark.parametrize("args, says", [
    (["report", DUMP, "--no-such-option"], "error: no such option: --no-such-option (see 'rdbscope report --help')"),
    (["reprot", DUMP], "error: no such command 'reprot'. Did you mean 'report'?"),
    (["report"], "error: missing argument 'DUMP'"),
    (["report", DUMP, "--format", "yaml"], "'yaml' is not one of table, json, csv"),
    (["lint", DUMP, "--format", "csv"], "'csv' is not one of table, json, sarif"),
    (["report", "/no/such.rdb"], "/no/such.rdb"),
])
def test_usage_errors_are_one_line(args, says):
    assert says in one_line_error(invoke(*args))


def test_usage_error_in_a_real_process_is_one_line_without_a_box():
    result = subprocess.run([sys.executable, "-m", "rdbscope", "report", str(DUMP), "--foo"], capture_output=True,
                            text=True, cwd=ROOT)
    assert result.returncode == 2 and result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith("error: no such option: --foo (Possible options: --format")
    assert line.endswith(" (see 'python -m rdbscope report --help')")
    result = subprocess.run([sys.executable, "-m", "rdbscope", "report", str(DUMP), "--type", "hashes"],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("error: invalid value for '--type': no type 'hashes'")
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.slow
def test_long_messages_are_not_wrapped_on_a_pipe(tmp_path):
    deep = tmp_path / ("a-directory-with-a-long-name-" * 3)
    deep.mkdir()
    dump = deep / "dump.rdb"
    dump.write_bytes(DUMP.read_bytes())
    result = subprocess.run([sys.executable, "-m", "rdbscope", "patterns", str(dump), "--db", "99"],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 2
    assert result.stderr == f"error: no keys in db 99; the dump has dbs {DUMP_DBS} " \
                            "(see 'python -m rdbscope patterns --help')\n"
    result = subprocess.run([sys.executable, "-m", "rdbscope", "lint", str(dump)], capture_output=True, text=True,
                            cwd=ROOT)
    summary = result.stderr.splitlines()
    assert len(summary) == 1 and len(summary[0]) > 80


# --- --type -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", LOADING_COMMANDS + ["scan", "diff"])
def test_a_type_typo_is_a_usage_error(tmp_path, command, keys_parquet):
    for source in (DUMP, keys_parquet):
        args = [command, source] + ([source] if command == "diff" else [])
        args += ["-o", tmp_path / "k.parquet"] if command == "scan" else []
        line = one_line_error(invoke(*args, "--type", "hashes"))
        assert "'--type'" in line and "no type 'hashes'" in line and "hash, stream" in line
        assert invoke(*args, "--type", "hash,sett").exit_code == 2


def test_type_takes_repeated_and_comma_forms(keys_parquet):
    expected = rdbscope.load(DUMP, types=["hash", "set", "zset"]).num_rows
    for source in (DUMP, keys_parquet):
        for options in (["--type", "hash,set", "--type", "zset"], ["--type", "hash", "--type", "set,zset"]):
            result = invoke("report", source, "-f", "json", *options)
            assert result.exit_code == 0, result.output
            assert json.loads(result.stdout)["overview"]["n_keys"] == expected


# --- filters that keep nothing --------------------------------------------------------------------------

@pytest.mark.parametrize("command", LOADING_COMMANDS)
def test_filters_that_keep_nothing_say_what_the_dump_has(command, keys_parquet):
    for source in (DUMP, keys_parquet):
        line = one_line_error(invoke(command, source, "--db", "99"))
        assert line.startswith(f"error: no keys in db 99; the dump has dbs {DUMP_DBS}")
        line = one_line_error(invoke(command, source, "--match", "nomatch:*", "-n", "0"))
        assert line.startswith(f"error: no keys matching 'nomatch:*' in db 0; the dump has dbs {DUMP_DBS}")
        line = one_line_error(invoke(command, source, "--match", "nomatch:*"))
        keys = sum(n for n, _expires in rdbscope.load(DUMP, db=[99]).info.resizedb.values())
        assert line.startswith(f"error: no keys matching 'nomatch:*'; the dump has {keys:,} keys in dbs {DUMP_DBS}")


def test_scan_with_filters_that_keep_nothing_keeps_the_old_file(tmp_path):
    out = tmp_path / "keys.parquet"
    out.write_bytes(b"yesterday's table")
    line = one_line_error(invoke("scan", DUMP, "-o", out, "--type", "stream", "--db", "1"))
    assert line.startswith("error: no keys of type stream in db 1")
    assert out.read_bytes() == b"yesterday's table"
    assert [p.name for p in tmp_path.iterdir()] == ["keys.parquet"]


def test_an_empty_selection_without_filters_is_not_an_error(keys_parquet):
    assert invoke("report", DUMP, "--match", "*", "-f", "json").exit_code == 0


# --- output paths are checked before the scan ---------------------------------------------------------

def test_output_paths_are_checked_before_reading(tmp_path):
    damaged = tmp_path / "damaged.rdb"
    damaged.write_bytes(DUMP.read_bytes()[:3000])  # reading it would fail with an offset
    cases = [
        (["report", damaged, "--html", "/no/such/dir/x.html"], "'--html': no directory /no/such/dir"),
        (["report", damaged, "--html", tmp_path], "'--html'"),
        (["report", damaged, "--out", damaged], "'--out'"),
        (["scan", damaged, "-o", "/no/such/dir/k.parquet"], "'--output': no directory /no/such/dir"),
    ]
    for args, says in cases:
        line = one_line_error(invoke(*args))
        assert says in line and "offset" not in line, line


def test_unwritable_directory_is_a_usage_error(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes anywhere")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    assert "cannot write in" in one_line_error(invoke("report", DUMP, "--html", locked / "r.html"))


# --- one config lookup ----------------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["report", "patterns", "lint"])
def test_every_command_finds_the_nearest_config(tmp_path, monkeypatch, command):
    def codes():
        result = invoke(command, DUMP, "--format", "json", "--fail-on", "never")
        assert result.exit_code == 0, result.output
        document = json.loads(result.stdout)
        if command == "patterns":
            return {c for row in document for c in row.get("codes") or []} | {"rows"}
        return {f["code"] for f in document["findings"]}

    monkeypatch.chdir(tmp_path)
    if command == "patterns":
        # patterns has no finding list: the config changes its --fail-on, which sees only kept findings
        (tmp_path / "rdbscope.toml").write_text('ignore = ["NAM", "CLU", "ENC", "BIG", "TTL", "EXP"]\n')
        assert invoke(command, DUMP, "--fail-on", "info").exit_code == 0
        (tmp_path / "rdbscope.toml").unlink()
        assert invoke(command, DUMP, "--fail-on", "info").exit_code == 1
        return
    assert "NAM003" in codes()
    (tmp_path / "sub").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.rdbscope]\nignore = ["NAM003"]\n')
    monkeypatch.chdir(tmp_path / "sub")
    assert "NAM003" not in codes() and codes()


@pytest.mark.parametrize("command", ["report", "lint", "ttl"])
def test_a_typo_in_a_rule_option_is_reported_before_the_dump_is_read(tmp_path, monkeypatch, command):
    damaged = tmp_path / "damaged.rdb"
    damaged.write_bytes(DUMP.read_bytes()[:5000])
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rdbscope.toml").write_text("[rules.NAM006]\nmax_byte = 64\n")
    line = one_line_error(invoke(command, damaged))
    assert "rdbscope.toml" in line and "[rules.NAM006] max_byte" in line and "unknown key" in line, line
    (tmp_path / "rdbscope.toml").write_text("[rules.NAM006]\nmax_bytes = 64\n")
    assert "offset" in one_line_error(invoke(command, damaged))


def test_config_help_shows_the_table_name():
    text = invoke("report", "--help").stdout
    assert "pyproject.toml (its [tool.rdbscope] table)" in " ".join(text.split()) and "()" not in text


# --- formats and option names ---------------------------------------------------------------------------

def test_format_json_everywhere_and_the_old_spellings():
    info = invoke("info", DUMP, "--format", "json")
    assert info.exit_code == 0 and json.loads(info.stdout)["rdb_version"] == 12
    assert json.loads(invoke("info", DUMP, "--json").stdout) == json.loads(info.stdout)
    rule = invoke("rule", "NAM003", "-f", "json")
    assert json.loads(rule.stdout)["code"] == "NAM003"
    assert json.loads(invoke("rule", "NAM003", "--json").stdout) == json.loads(rule.stdout)
    lint_table = invoke("lint", DUMP, "--format", "table")
    assert lint_table.stdout.startswith("CLU003 needless-hash-tag")
    assert invoke("lint", DUMP, "--format", "text").stdout == lint_table.stdout
    assert json.loads(invoke("lint", DUMP, "--json").stdout) == json.loads(invoke("lint", DUMP, "-f", "json").stdout)
    for name in ("lint", "info", "rule"):
        text = invoke(name, "--help").stdout
        assert "--format" in text and "--json" not in text and "text" not in text.split("--format")[1][:40]


def test_lint_takes_the_key_filters():
    from rdbscope import lint

    result = invoke("lint", DUMP, "-f", "json", "-n", "0", "--type", "hash", "--match", "cache:*")
    document = json.loads(result.stdout)
    expected = lint(rdbscope.load(DUMP, db=0, types=["hash"], key_glob="cache:*"))
    assert sorted(f["code"] for f in document["findings"]) == sorted(f.code for f in expected.finding_list)
    assert document["findings"] and all(f["db"] == 0 for f in document["findings"])


def test_lint_presets_are_the_rules_presets():
    from rdbscope.cli.lint import PRESETS
    from rdbscope.rules import PRESETS as RULE_PRESETS

    assert PRESETS == tuple(RULE_PRESETS)


def test_n_is_the_db_and_top_has_no_short_form():
    rows = json.loads(invoke("patterns", DUMP, "-f", "json", "-n", "1").stdout)
    assert rows and {row["db"] for row in rows} == {1}
    assert "-n" not in invoke("patterns", "--help").stdout.split("--top")[1].split("\n")[0]


def test_version_says_which_scanner_runs():
    result = invoke("--version")
    assert result.exit_code == 0
    assert result.stdout.startswith(f"rdbscope {rdbscope.__version__}; scanner: {rdbscope.rdb.IMPLEMENTATION} ")
    assert invoke("-V").stdout == result.stdout
    assert invoke("-h").stdout == invoke("--help").stdout


# --- quiet, grammar, file modes --------------------------------------------------------------------------

@pytest.mark.slow
def test_quiet_prints_nothing_on_success(tmp_path):
    report = invoke("report", DUMP, "--html", tmp_path / "r.html", "--out", tmp_path / "ds", "-q", "-f", "json")
    assert report.exit_code == 0 and report.stderr == ""
    assert (tmp_path / "r.html").exists()
    scan = invoke("scan", DUMP, "-o", tmp_path / "k.parquet", "-q")
    assert scan.exit_code == 0 and scan.stdout == "" and scan.stderr == ""
    lint = invoke("lint", DUMP, "-q", "--fail-on", "never")
    assert lint.exit_code == 0 and lint.stderr == "" and lint.stdout
    loud = invoke("report", DUMP, "--html", tmp_path / "r.html", "-f", "json")
    assert loud.stderr == f"wrote {tmp_path / 'r.html'}\n"


def test_counts_agree_with_their_nouns(tmp_path):
    one = invoke("scan", DUMP, "-o", tmp_path / "k.parquet", "--match", "cache:fields:pricing")
    assert one.stderr.startswith("1 key from ")
    report = invoke("report", DUMP, "-n", "5")
    assert " in 1 db, " in report.stdout and " 1 dbs" not in report.stdout
    failing = invoke("ttl", DUMP, "--fail-on", "info")
    assert failing.exit_code == 1 and "(s)" not in failing.stderr
    assert failing.stderr.rstrip().endswith(("finding at or above info", "findings at or above info"))


@pytest.mark.slow
def test_outputs_get_the_mode_of_ordinary_files(tmp_path):
    old = os.umask(0o022)
    try:
        assert invoke("scan", DUMP, "-o", tmp_path / "k.parquet").exit_code == 0
        assert invoke("report", DUMP, "--html", tmp_path / "r.html", "-q").exit_code == 0
        (tmp_path / "plain").write_text("")
        os.umask(0o077)
        assert invoke("scan", DUMP, "-o", tmp_path / "private.parquet").exit_code == 0
    finally:
        os.umask(old)
    assert oct((tmp_path / "k.parquet").stat().st_mode & 0o777) == oct((tmp_path / "plain").stat().st_mode & 0o777)
    assert (tmp_path / "k.parquet").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "r.html").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "private.parquet").stat().st_mode & 0o777 == 0o600


# --- stages on a terminal ------------------------------------------------------------------------------------

@pytest.mark.slow
def test_stages_show_their_time_on_a_terminal_only(tmp_path):
    primary, secondary = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "rdbscope", "report", str(DUMP), "--html",
                                str(tmp_path / "r.html"), "-f", "json"],
                               stdout=subprocess.PIPE, stderr=secondary, cwd=ROOT,
                               env={**os.environ, "COLUMNS": "120", "TERM": "xterm"})
    os.close(secondary)
    chunks = []

    def drain():
        while True:
            try:
                data = os.read(primary, 4096)
            except OSError:
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain)
    reader.start()
    stdout, _ = process.communicate(timeout=300)
    reader.join(timeout=10)
    os.close(primary)
    terminal = b"".join(chunks).decode(errors="replace")
    assert process.returncode == 0
    json.loads(stdout)  # the data stays clean on stdout
    # the chunks are analysed as they are read: one stage
    for stage in ("reading redis-8.2-default.rdb: ", "writing the HTML report: "):
        assert stage in terminal, terminal[-2000:]
    piped = invoke("report", DUMP, "-f", "json")
    assert "reading" not in piped.stderr


# --- CSV and spreadsheets -------------------------------------------------------------------------------------

sys.path.insert(0, str(SAMPLE_DUMPS))
import make_sample_dumps  # noqa: E402

SERVERS = [s for s in make_sample_dumps.discover_servers() if s.label.startswith("redis-")]
FORMULA_KEYS = ["=HYPERLINK(\"http://example.invalid\")", "+1+1", "-2+3", "@SUM(A1)", "plain:key"]


@pytest.fixture(scope="module")
def formula_dump(tmp_path_factory):
    if not SERVERS:
        pytest.skip("no redis-server binary found on this machine")
    with make_sample_dumps.RunningServer(SERVERS[0], {"save": "", "appendonly": "no"}) as server:
        client = server.client(0)
        for key in FORMULA_KEYS:
            client.set(key, "x" * 100)
        client.save()
        path = tmp_path_factory.mktemp("formulas") / "dump.rdb"
        path.write_bytes(server.dump_path.read_bytes())
    return path


@pytest.mark.server
def test_csv_is_safe_for_spreadsheets_by_default(formula_dump):
    def keys(*options):
        result = invoke("bigkeys", formula_dump, "-f", "csv", *options)
        assert result.exit_code == 0, result.output
        return sorted(row["key"] for row in csv.DictReader(io.StringIO(result.stdout)))

    assert keys() == sorted("'" + k if k[0] in "=+-@" else k for k in FORMULA_KEYS)
    assert keys("--csv-safe") == keys()
    assert keys("--csv-raw") == sorted(FORMULA_KEYS)
    rows = json.loads(invoke("bigkeys", formula_dump, "-f", "json").stdout)
    assert sorted(row["key"] for row in rows) == sorted(FORMULA_KEYS)
    rows = list(csv.DictReader(io.StringIO(invoke("bigkeys", formula_dump, "-f", "csv").stdout)))
    assert [row["n_elements"] for row in rows] == ["100"] * len(FORMULA_KEYS)  # numbers are not touched
