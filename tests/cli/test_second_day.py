"""The second day with rdbscope (issue 29): units, options and the small things, through the CLI."""

import json

from conftest import SAMPLE_DUMPS
from typer.testing import CliRunner

from rdbscope.cli import app

DUMP = SAMPLE_DUMPS / "redis-8.2-default.rdb"


def invoke(*args, **kwargs):
    return CliRunner().invoke(app, [str(a) for a in args], terminal_width=200, **kwargs)


def test_a_byte_threshold_in_the_config_takes_a_size_read_1024_based(tmp_path):
    config = tmp_path / "rdbscope.toml"
    config.write_text('[bigkeys]\nmemory_bytes = "250KB"\n')  # 256,000 bytes: the 261,464-byte list is over it
    result = invoke("bigkeys", DUMP, "--format", "json", "--config", config)
    assert result.exit_code == 0, result.output
    flagged = {row["key"]: row["memory_bytes"] for row in json.loads(result.stdout) if "BIG004" in row["codes"]}
    assert flagged == {"feed:{user42}:timeline": 261_464}
    config.write_text('[bigkeys]\nmemory_bytes = "255.4 KiB"\n')  # 261,529 bytes: over that list
    result = invoke("bigkeys", DUMP, "--format", "json", "--config", config)
    assert not [row for row in json.loads(result.stdout) if "BIG004" in row["codes"]]
    config.write_text('[bigkeys]\nmemory_bytes = "lots"\n')
    result = invoke("bigkeys", DUMP, "--config", config)
    assert result.exit_code == 2
    assert result.stderr.strip() == (f"error: {config}: [bigkeys] memory_bytes: not a size: 'lots' "
                                     "(write e.g. 512MB, 2GB or 1.5GiB; 1KB is 1024 bytes)")


def test_a_memory_budget_reads_and_prints_1024_based_with_a_space():
    result = invoke("report", DUMP, "--format", "json", "--memory-budget", "1000KB")
    assert result.exit_code == 0, result.output
    assert ("note: analysed in bounded memory (1000 KB), chunk by chunk (every key in memory would need "
            "about 3.5 MB)") in result.stderr
    assert "bounded memory (1000 KB)" in invoke("report", DUMP, "--format", "json", "--memory-budget",
                                                "1000KiB").stderr
