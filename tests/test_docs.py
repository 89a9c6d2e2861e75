"""README keeps up with the code: the schema table, the commands, the CI test command, every block run."""

import json
import os
import re
import shlex

import pytest
from conftest import ROOT, SAMPLE_DUMPS

import rdbscope
from rdbscope.cli import app
from rdbscope.rdb.schema import COLUMNS

README = (ROOT / "README.md").read_text()


def test_every_column_is_documented():
    documented = re.findall(r"^\| (\w+) \| (\w+)", README, re.M)
    names = [name for name, _type in documented if name != "column"]
    assert names == [name for name, *_rest in COLUMNS]


def test_every_command_is_in_the_tour():
    for command in app.registered_commands:
        assert f"rdbscope {command.name} " in README, command.name
        assert command.callback.__doc__, command.name


def test_ci_runs_the_readme_test_command_as_written():
    command = re.search(r"^pip install -e \"\.\[test\]\" && .+$", README, re.M).group(0)
    assert command == 'pip install -e ".[test]" && python -m pytest -q'  # nothing to set first
    assert f'{command}\npython -m pytest -q -m "not slow"\n```' in README  # the quick tier beside it
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert command in ci
    requirements = ci.index("export RDBSCOPE_REQUIRE_COMPILED=1 RDBSCOPE_REQUIRE_SERVERS=1")
    assert requirements < ci.index(command)
    installs = next(line for line in ci if line.startswith("apt-get install"))
    for package in re.findall(r"`apt-get install ([^`]+)`", README):
        assert set(package.split()) <= set(installs.split()), package


# --- Every fenced block of README.md runs, or is checked, as written --------------------------------------

README_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)

#: The files README's commands name, and what stands in for each (made by ``readme_files``).
STAND_INS = {
    "dump.rdb": "redis-8.2-default.rdb",
    "today.rdb": "redis-8.2-default.rdb",
    "yesterday.rdb": "redis-7.0-default.rdb",
    "dump.rdb.gz": "redis-8.2-default.rdb, gzip",
    "big.rdb.gz": "redis-8.2-default.rdb, gzip",
    "backups/cache-1/dump.rdb.gz": "redis-8.2-default.rdb, gzip",
    "backup.rdb.zst": "redis-8.2-default.rdb, zstd",
    "damaged.rdb": "redis-8.2-default.rdb cut at two thirds",
    "sample_dumps/": "the checkout's sample_dumps/",
}
#: Absolute paths in README, moved under the test's directory.
ABSOLUTE = ("/srv/rdbscope", "/backups/", "/var/lib/node_exporter")


def readme_blocks():
    return [(README[:m.start()].count("\n") + 1, m.group(1), m.group(2)) for m in README_BLOCK.finditer(README)]


def first_line(text):
    return text.strip().splitlines()[0]


@pytest.fixture(scope="module")
def readme_files(tmp_path_factory):
    """A directory holding every file README's commands read, under the names they use."""
    import gzip

    import zstandard

    root = tmp_path_factory.mktemp("readme")
    dump = (SAMPLE_DUMPS / "redis-8.2-default.rdb").read_bytes()
    (root / "backups" / "cache-1").mkdir(parents=True)
    for name in ("dump.rdb", "today.rdb", "big.rdb"):
        (root / name).write_bytes(dump)
    (root / "yesterday.rdb").write_bytes((SAMPLE_DUMPS / "redis-7.0-default.rdb").read_bytes())
    for name in ("dump.rdb.gz", "big.rdb.gz", "backups/cache-1/dump.rdb.gz"):
        (root / name).write_bytes(gzip.compress(dump))
    (root / "backup.rdb.zst").write_bytes(zstandard.ZstdCompressor().compress(dump))
    (root / "damaged.rdb").write_bytes(dump[:len(dump) * 2 // 3])
    (root / "sample_dumps").symlink_to(SAMPLE_DUMPS)
    assert {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() or p.is_symlink()} >= {
        name.rstrip("/") for name in STAND_INS}
    return root


def localized(text, root):
    for path in ABSOLUTE:
        text = text.replace(path, f"{root}{path}")
    return text


def run_shell_line(line, root):
    """One README shell line through the CLI: ``pip install`` is what the test run already did."""
    from typer.testing import CliRunner

    line = re.sub(r"\s+#\s.*$", "", line).strip()
    line = re.sub(r"^[\d*/,-]+ [\d*/,-]+ [\d*/,-]+ [\d*/,-]+ [\d*/,-]+\s+", "", line)  # a crontab schedule
    results = []
    for command in line.split(" && "):
        words = shlex.split(localized(command, root))
        if words[:2] == ["pip", "install"]:
            continue
        redirect = words.index(">") if ">" in words else None
        target = words[redirect + 1] if redirect is not None else None
        words = words[:redirect] if redirect is not None else words
        assert words[0] == "rdbscope", line
        result = CliRunner().invoke(app, words[1:])
        assert result.exception is None or isinstance(result.exception, SystemExit), (line, result.exception)
        assert result.exit_code in (0, 1), (line, result.exit_code, result.stderr)
        if target and target != "/dev/null":
            (root / target).write_text(result.stdout)
        results.append(result)
    return results


def run_shell(text, root):
    return [result for line in text.strip().splitlines() for result in run_shell_line(line, root)]


def run_python(text, root):
    import matplotlib

    matplotlib.use("Agg")
    namespace = {}
    exec(compile(localized(text, root), "README", "exec"), namespace)
    return namespace


def check_the_two_commands(text, root):
    (result,) = run_shell(text, root)
    assert (root / "report.html").read_text().startswith("<!DOCTYPE html>")


def check_the_report_tour(text, root):
    results = run_shell(text, root)
    summary = results[0].stdout.split("\nTop patterns by memory\n┏")[0]  # before the full tables
    for part in ("Memory by type", "Top patterns by memory", "Memory freed over time", "Expiry incidents",
                 "Cold and hot memory", "Largest savings"):
        assert part in summary
    assert "Top patterns by memory\n┏" in results[0].stdout
    assert (root / "report.html").exists()
    assert list((root / "reports" / "instance=cache-1").glob("date=*/patterns.parquet"))
    assert results[3].exit_code == 1 and "NAM005" not in results[3].stdout


def check_the_focused_commands(text, root):
    results = run_shell(text, root)
    assert len(results) == len(text.strip().splitlines())
    assert all(result.stdout.strip() for result in results)
    assert rdbscope.load(root / "users.parquet").to_pandas()["key"].str.startswith("user:").all()
    kept = rdbscope.load(root / "keys.parquet")  # --stop-on-damage: the keys before the damage
    assert 0 < kept.num_rows < rdbscope.load(root / "dump.rdb").num_rows


def check_the_python_api(text, root):
    namespace = run_python(text, root)
    assert namespace["frame"].shape[0] == namespace["table"].num_rows == 2092
    assert namespace["batch"].num_rows > 0


def check_the_notebook_tour(text, root):
    namespace = run_python(text, root)
    assert len(namespace["res"].patterns) == 88


def check_the_budget_commands(text, root):
    """As written (the sample dump fits 1GB), then with a budget it does not fit: the same patterns."""
    run_shell(text, root)
    in_memory = json.loads((root / "big.json").read_text())
    run_shell(text.replace("1GB", "100KB"), root)
    bounded = json.loads((root / "big.json").read_text())
    assert bounded["overview"]["n_keys"] == in_memory["overview"]["n_keys"] == 2092
    assert bounded["patterns"] == in_memory["patterns"]


def check_the_budget_api(text, root):
    for budget in ('"1GB"', '"100KB"'):
        namespace = run_python("import rdbscope\n" + text.replace('"1GB"', budget), root)
        assert namespace["res"].bounded and namespace["res"].skipped == ()
        assert namespace["res"].n_keys == 2092 > namespace["res"].keys.num_rows


def check_the_cron_line(text, root):
    run_shell(text, root)
    (partition,) = (root / "srv" / "rdbscope" / "instance=cache-1").glob("date=*")
    assert {p.name for p in partition.iterdir()} == {"summary.parquet", "patterns.parquet", "findings.parquet"}


def check_the_textfile_cron_line(text, root):
    """The report into a .prom.tmp, renamed: the file node_exporter reads, which OpenMetrics' parser reads."""
    from prometheus_client.openmetrics.parser import text_string_to_metric_families

    (root / "var" / "lib" / "node_exporter").mkdir(parents=True, exist_ok=True)
    report, move = text.strip().split(" && ")
    run_shell_line(report, root)
    mv, source, target = shlex.split(localized(move, root))
    assert mv == "mv"
    os.replace(source, target)
    families = {f.name: f for f in text_string_to_metric_families((root / target).read_text())}
    assert families["rdbscope_keys"].samples[0].labels == {"dump": "dump.rdb.gz"}
    assert families["rdbscope_keys"].samples[0].value == 2092
    assert len(families["rdbscope_pattern_keys"].samples) == 10 + 3  # the top 10 and "(other)" in each of 3 dbs


def check_the_growth_gates(text, root):
    results = run_shell(text, root)
    assert [r.exit_code for r in results] == [0, 0, 0]
    assert "memory: -22.2 KB (-1.8%)" in results[0].stderr
    assert json.loads((root / "diff.json").read_text())["memory_change"]["memory_bytes_delta"] == -22748


def check_the_dataset_layout(text, root):
    from rdbscope.report.dataset import TABLES

    assert re.findall(r"(\w+)\.parquet", text) == list(TABLES)
    assert "only with --keys" in text.splitlines()[-1]


def check_the_lint_commands(text, root):
    results = run_shell(text, root)
    assert '"version": "2.1.0"' in (root / "lint.sarif").read_text()
    assert "NAM003" in results[-1].stdout


def check_the_layout(text, root):
    for line in text.splitlines():
        if line and not line[0].isspace():
            assert (ROOT / line.split()[0]).exists(), line


def check_the_config(text, root):
    import tomllib

    from rdbscope.config import load_config

    (root / "pyproject.toml").write_text(text)
    config = load_config(root / "pyproject.toml")
    assert tomllib.loads(text)["tool"]["rdbscope"]["rules"]["NAM006"]["max_bytes"] == 256
    assert config.is_enabled("NAM013", opt_in=True) and not config.is_enabled("NAM005")


def check_the_dask_how_to(text, root):
    """Every option the lines give is one their command takes (the run itself: tests/scale/test_executors.py)."""
    import subprocess
    import sys

    from typer.testing import CliRunner

    for line in text.strip().splitlines():
        words = shlex.split(re.sub(r"\s+#\s.*$", "", line))
        if words[:2] == ["pip", "install"]:
            continue
        assert words[0] in ("dask", "rdbscope"), line
        if words[0] == "dask":
            help_text = subprocess.run([sys.executable, "-m", "dask", words[1], "--help"], capture_output=True,
                                       text=True, check=True, env={**os.environ, "COLUMNS": "200"}).stdout
        else:
            help_text = CliRunner().invoke(app, [words[1], "--help"], terminal_width=200).stdout
        for option in (w for w in words if w.startswith("--")):
            assert re.search(rf"\s{re.escape(option)}[\s,=]", help_text), (line, option)


def check_the_live_commands(text, root):
    """Each line against a real server holding README's password, user and socket: exit 0, the report naming
    the server without the password, the password nowhere. ``--askpass`` is left out here, the password coming
    from REDISCLI_AUTH (the prompt: cli/test_live_cli.py, test_askpass_asks_on_the_terminal)."""
    import subprocess
    import sys

    from servers import make_sample_dumps, server

    socket_path = root / "redis.sock"
    with make_sample_dumps.RunningServer(server("redis-7.0"), {"unixsocket": str(socket_path), "save": ""}) \
            as running:
        client = running.client(0)
        client.set("user:1:name", "ada")
        client.execute_command("ACL", "SETUSER", "reader", "on", ">s3cret", "+sync", "+replconf")
        client.config_set("requirepass", "s3cret")
        env, outputs = dict(os.environ), []
        for line in text.strip().splitlines():
            line = re.sub(r"\s+#\s.*$", "", line).strip()
            if line.startswith("export "):
                name, value = line.removeprefix("export ").split("=", 1)
                env[name] = value
                continue
            line = line.replace("10.0.0.5:6379", f"127.0.0.1:{running.port}").replace(" --askpass", "")
            words = shlex.split(line.replace("/run/redis/redis.sock", str(socket_path)))
            assert words[0] == "rdbscope", line
            result = subprocess.run([sys.executable, "-m", *words], cwd=root, env=env, capture_output=True,
                                    text=True, timeout=120)
            assert result.returncode == 0, (line, result.stderr)
            assert "s3cret" not in result.stdout + result.stderr, line
            outputs.append(result.stdout)
    assert outputs[0].startswith(f"redis://reader@127.0.0.1:{running.port}: REDIS RDB 10")
    assert rdbscope.load(root / "snapshot.rdb").num_rows == 1


def checked_elsewhere(test):
    def check(text, root):
        assert (ROOT / "tests" / test).exists()
    return check


#: Each README block, by its language and first line, and how it is run or checked.
README_CHECKS = {
    ("sh", "pip install . && rdbscope report sample_dumps/redis-8.2-default.rdb --html report.html"):
        check_the_two_commands,
    ("sh", 'pip install -e ".[test]" && python -m pytest -q'):
        checked_elsewhere("test_docs.py"),  # test_ci_runs_the_readme_test_command_as_written
    ("sh", "rdbscope report dump.rdb.gz                           # a one-screen summary, then patterns, keys, "
           "TTL, expiry, findings"): check_the_report_tour,
    ("text", "redis-8.2-default.rdb: REDIS RDB 12, written by redis 8.2.3 at 2026-11-22 03:14:38Z"):
        checked_elsewhere("test_docs.py"),  # test_the_sample_output_is_what_the_command_prints
    ("text", "libraries.rdb: REDIS RDB 10, written by redis 7.0.15 at 2026-11-27 23:40:56Z"):
        checked_elsewhere("test_docs.py"),  # test_the_sample_output_is_what_the_command_prints
    ("sh", "rdbscope patterns dump.rdb --top 30 --sort keys      # the inferred patterns: keys, memory, TTL coverage"):
        check_the_focused_commands,
    ("python", "import rdbscope"): None,  # two blocks start so: told apart below
    ("sh", "15 4 * * *  rdbscope report /backups/cache-1/dump.rdb.gz --out /srv/rdbscope --instance cache-1 --quiet "
           "--format json > /dev/null"): check_the_cron_line,
    ("text", "/srv/rdbscope/instance=cache-1/date=2030-01-01/summary.parquet    one row: keys, memory, used-mem, "
             "finding counts, writer, ctime"): check_the_dataset_layout,
    ("sh", "45 4 * * *  rdbscope report /backups/cache-1/dump.rdb.gz --format openmetrics --quiet > "
           "/var/lib/node_exporter/rdbscope-cache-1.prom.tmp && mv /var/lib/node_exporter/rdbscope-cache-1.prom.tmp "
           "/var/lib/node_exporter/rdbscope-cache-1.prom"): check_the_textfile_cron_line,
    ("sh", "rdbscope diff yesterday.rdb today.rdb --fail-on-growth 20%    # its header shows the total memory "
           "change"): check_the_growth_gates,
    ("sql", "SELECT date, pattern, sum(memory_bytes_sum) AS memory_bytes"): checked_elsewhere(
        "report/test_readme_queries.py"),
    ("python", "import glob"): checked_elsewhere("report/test_readme_queries.py"),
    ("", "rdbscope/__init__.py  the public API (load, scan, analyze, lint, KeyTable, Result, errors), imported "
         "lazily"): check_the_layout,
    ("sh", "rdbscope lint dump.rdb                           # findings grouped by rule; exit 1 at a warning"):
        check_the_lint_commands,
    ("toml", "[tool.rdbscope]"): check_the_config,
    ("sh", "rdbscope report node-a.rdb node-b.rdb node-c.rdb --html cluster.html"):
        checked_elsewhere("report/test_cluster_report.py"),  # run over a real cluster's dumps
    ("python", 'keys = rdbscope.load(["node-a.rdb", "node-b.rdb", "node-c.rdb"])'):
        checked_elsewhere("report/test_cluster_report.py"),
    ("sh", 'pip install "rdbscope[dask]"                                  # the client and every worker'):
        check_the_dask_how_to,
    ("sh", "rdbscope report big.rdb --memory-budget 1GB --format json > big.json"): check_the_budget_commands,
    ("python", 'res = rdbscope.analyze("big.rdb", memory_budget="1GB")   # a path: read chunk by chunk'):
        check_the_budget_api,
    ("python", 'keys = rdbscope.load("redis://reader:s3cret@10.0.0.5:6379")   # the user needs +sync and +replconf'):
        checked_elsewhere("rdb/test_replication.py"),
    ("sh", "export REDISCLI_AUTH=s3cret                      # the password, kept off the command line"):
        check_the_live_commands,
    ("text", "error: redis://10.0.0.5:6379: cannot connect (Connection refused)"):
        checked_elsewhere("rdb/test_replication.py"),  # test_the_readme_errors_are_the_ones_raised
    ("sh", "ssh cache-1 cat /var/lib/redis/dump.rdb | rdbscope report -"):
        checked_elsewhere("cli/test_stdin.py"),  # real pipes into each command
    ("sh", 'pip install "rdbscope[s3]"                          # or [gcs], [azure], [http]'):
        checked_elsewhere("test_urls.py"),  # against moto's S3 server
    ("text", "error: s3://backups/cache-1/dump.rdb.gz: no such file        (a wrong key or bucket, or the endpoint "
             "is not set)"): checked_elsewhere("test_urls.py"),  # test_the_readme_errors_are_what_users_meet
}


def readme_check(language, text):
    if (language, first_line(text)) == ("python", "import rdbscope"):
        return check_the_notebook_tour if "rdbscope.analyze" in text else check_the_python_api
    return README_CHECKS.get((language, first_line(text)))


def test_every_readme_block_is_known():
    unknown = [f"README.md:{line} ```{language}: {first_line(text)!r}" for line, language, text in readme_blocks()
               if readme_check(language, text) is None]
    assert not unknown, "blocks tests/test_docs.py does not know how to run; add them to README_CHECKS: " + \
        "; ".join(unknown)


@pytest.mark.slow
def test_every_readme_block_runs_as_written(readme_files, monkeypatch):
    monkeypatch.chdir(readme_files)
    for line, language, text in readme_blocks():
        check = readme_check(language, text)
        try:
            check(text, readme_files)
        except AssertionError as exc:
            raise AssertionError(f"README.md:{line} ```{language} block: {exc}") from exc


@pytest.mark.slow
def test_the_sample_output_is_what_the_command_prints():
    import readme_output

    shown = readme_output.samples(README)
    assert shown, "README has no sample output"
    for command, text, _match in shown:
        assert readme_output.output_of(command) == text, (
            f"README's sample output of `{command}` is stale: run `python tests/readme_output.py` to rewrite it")
