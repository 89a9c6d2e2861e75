"""rdbscope lint and rdbscope rule through typer's CliRunner."""

import json

import pytest
from conftest import SAMPLE_DUMPS
from typer.testing import CliRunner

import rdbscope
from rdbscope import lint
from rdbscope.cli import app
from rdbscope.passes import CHECKS
from rdbscope.rules import RULES

runner = CliRunner()
DUMP = SAMPLE_DUMPS / "redis-8.2-default.rdb"


def run(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def expected():
    return lint(rdbscope.load(DUMP)).finding_list


def test_text_groups_findings_by_rule(expected):
    result = run("lint", DUMP)
    assert result.exit_code == 1  # warnings reach the default --fail-on warning
    lines = result.stdout.splitlines()
    headers = [line for line in lines if line and not line.startswith(" ")]
    assert headers[0].startswith("CLU003 needless-hash-tag [warning] 2 findings, 3 keys")
    assert "NAM003 special-character [warning] 4 findings, 4 keys, 200 B" in headers
    assert headers[-1].startswith("NAM005 non-ascii-key [info] 1 finding, 1 key, ")
    assert len(headers) == len({f.code for f in expected})
    # Keys are printed with their control characters escaped.
    assert "      e.g. key\\twith\\ttabs" in lines and "\t" not in result.stdout
    assert "23 findings (16 warnings, 7 info) in 2,092 keys; 21 rules (CLU, ENC, NAM)" in result.stderr


@pytest.mark.parametrize("fail_on, code", [("info", 1), ("warning", 1), ("error", 0), ("never", 0)])
def test_fail_on(fail_on, code):
    assert run("lint", DUMP, "--fail-on", fail_on).exit_code == code


def test_json(expected):
    result = run("lint", DUMP, "--format", "json", "--fail-on", "never")
    document = json.loads(result.stdout)
    assert document["n_keys"] == 2092 and document["memory_basis"] == "est_memory_bytes"
    assert [f["code"] for f in document["findings"]] == [f.code for f in expected]
    first = document["findings"][0]
    assert first["code"] == "CLU003" and first["pattern"] == "feed:{user42}:timeline"
    assert document["passes"] == [] and len(document["rules"]) == 21


def test_sarif():
    result = run("lint", DUMP, "--format", "sarif", "--select", "NAM003,CLU003")
    log = json.loads(result.stdout)
    assert log["version"] == "2.1.0"
    [sarif_run] = log["runs"]
    driver = sarif_run["tool"]["driver"]
    assert [r["id"] for r in driver["rules"]] == ["CLU003", "NAM003"]
    assert driver["rules"][1]["help"]["markdown"].startswith("# special-character (NAM003)")
    results = sarif_run["results"]
    assert {r["ruleId"] for r in results} == {"NAM003", "CLU003"} and len(results) == 6
    assert {r["level"] for r in results} == {"warning"}
    for r in results:
        location = r["locations"][0]
        assert location["physicalLocation"]["artifactLocation"]["uri"] == str(DUMP)
        assert location["physicalLocation"]["region"] == {"startLine": 1}
        assert driver["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
    again = json.loads(run("lint", DUMP, "--format", "sarif", "--select", "NAM003,CLU003").stdout)
    assert [r["partialFingerprints"] for r in again["runs"][0]["results"]] == \
        [r["partialFingerprints"] for r in results]
    assert len({r["partialFingerprints"]["rdbscopeFinding/v1"] for r in results}) == 6


def test_select_ignore_preset_and_masters():
    def codes(*args):
        return {f["code"] for f in json.loads(run("lint", DUMP, "--format", "json", *args).stdout)["findings"]}

    assert codes("--select", "NAM003") == {"NAM003"}
    assert codes("--select", "nam00", "--ignore", "NAM003,NAM004") == {"NAM001", "NAM005", "NAM008"}
    assert {"NAM013", "NAM014"} <= codes("--preset", "layered-names")
    assert "NAM007" in codes("--select", "NAM", "--preset", "short-keys")
    assert {"TTL001", "TTL002"} <= codes("--extend-select", "TTL")
    assert codes("--select", "CLU001", "--masters", "2") == set()  # two halves balance within 1.2x
    [six] = json.loads(run("lint", DUMP, "--format", "json", "--select", "CLU001", "--masters", "6").stdout)["findings"]
    assert (six["details"]["masters"], six["details"]["node"], six["details"]["slots"]) == (6, 5, "13653-16383")


def test_keys_parquet_gives_the_same_findings(tmp_path, expected):
    parquet = tmp_path / "keys.parquet"
    assert run("scan", DUMP, "-o", parquet).exit_code == 0
    document = json.loads(run("lint", parquet, "--format", "json").stdout)
    assert [(f["code"], f["pattern"], f["n_keys"]) for f in document["findings"]] == \
        [(f.code, f.pattern, f.n_keys) for f in expected]


def test_config_file(tmp_path):
    config = tmp_path / "rdbscope.toml"
    config.write_text('select = ["NAM006"]\n\n[rules.NAM006]\nmax_bytes = 20\n')
    document = json.loads(run("lint", DUMP, "--format", "json", "--config", config).stdout)
    assert {f["code"] for f in document["findings"]} == {"NAM006"}
    assert document["findings"][0]["details"]["max_bytes"] == 20


@pytest.mark.parametrize("args, said", [
    (["--select", "XYZ"], "no code or family 'XYZ'"),
    (["--select", "NAM999"], "no code or family 'NAM999'"),
])
def test_usage_errors_exit_2(args, said):
    result = runner.invoke(app, ["lint", str(DUMP), *args])
    assert result.exit_code == 2 and said in result.output


def test_bad_input_exits_2(tmp_path):
    config = tmp_path / "rdbscope.toml"
    config.write_text("[rules.NAM006]\nmax_bytes = 'long'\n")
    result = run("lint", DUMP, "--config", config)
    assert result.exit_code == 2 and "max_bytes: not a size: 'long'" in result.stderr
    bad = tmp_path / "bad.rdb"
    bad.write_bytes(DUMP.read_bytes()[:3000])
    assert run("lint", bad).exit_code == 2
    assert runner.invoke(app, ["lint", str(tmp_path / "none.rdb")]).exit_code == 2


def test_rule_prints_the_docs():
    result = run("rule", "NAM003")
    assert result.exit_code == 0
    text = result.stdout
    assert text.startswith("# special-character (NAM003)")
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Options"):
        assert section in text
    assert run("rule", "special-character").stdout == text
    assert "opt-in: select NAM013 or use the preset layered-names" in run("rule", "nam013").stdout
    assert run("rule", "BIG001").stdout.startswith("# big-string (BIG001)")


def test_rule_all_and_unknown():
    listing = run("rule", "--all").stdout
    for code in [r.code for r in RULES] + [c.code for c in CHECKS]:
        assert code in listing
    docs = json.loads(run("rule", "--all", "--json").stdout)
    assert len(docs) == len(RULES) + len(CHECKS)
    assert docs[0]["code"] == "NAM001" and [o[:2] for o in docs[0]["options"]] == [["acronym_max_letters", 3]]
    assert [d["kind"] for d in docs].count("analysis") == len(CHECKS)
    result = runner.invoke(app, ["rule", "NAM999"])
    assert result.exit_code == 2 and "no finding code or name 'NAM999'" in result.stderr
