"""README keeps up with the code: the schema table, the commands, the CI test command."""

import pathlib
import re

from rdbscope.cli import app
from rdbscope.rdb.schema import COLUMNS

ROOT = pathlib.Path(__file__).resolve().parent.parent
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
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert command in ci
    requirements = ci.index("export RDBSCOPE_REQUIRE_COMPILED=1 RDBSCOPE_REQUIRE_SERVERS=1")
    assert requirements < ci.index(command)
    installs = next(line for line in ci if line.startswith("apt-get install"))
    for package in re.findall(r"`apt-get install ([^`]+)`", README):
        assert set(package.split()) <= set(installs.split()), package
