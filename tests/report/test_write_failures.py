"""Reports that cannot be written (a full disk, a directory nothing can be created in) are one line naming the
file and the cause, exit 2, and leave nothing behind. The full disk is a real one as the process sees it: a file
size limit (prlimit --fsize), under which the kernel refuses the write (EFBIG) as it would on ENOSPC."""

import shutil
import subprocess
import sys

import pytest
from conftest import ROOT, SAMPLE_DUMPS
from typer.testing import CliRunner

from rdbscope.cli import app

DUMP = SAMPLE_DUMPS / "redis-8.2-default.rdb"
PRLIMIT = shutil.which("prlimit")


def rdbscope(*args, fsize=None):
    limit = [PRLIMIT, f"--fsize={fsize}"] if fsize is not None else []
    return subprocess.run([*limit, sys.executable, "-m", "rdbscope", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT, timeout=180)


@pytest.mark.skipif(PRLIMIT is None, reason="prlimit (util-linux) is not installed")
@pytest.mark.parametrize("args, written", [
    pytest.param(["report", DUMP, "--html", "{out}/report.html", "--quiet"], "{out}/report.html",
                 marks=pytest.mark.slow),
    pytest.param(["scan", DUMP, "-o", "{out}/keys.parquet"], "{out}/keys.parquet", marks=pytest.mark.slow),
    pytest.param(["report", DUMP, "--out", "{out}/reports", "--quiet"], "{out}/reports", marks=pytest.mark.slow),
])
def test_a_full_disk_is_one_line_and_leaves_nothing(tmp_path, args, written):
    out = tmp_path / "out"
    out.mkdir()
    result = rdbscope(*(str(a).format(out=out) for a in args), fsize=8000)
    assert result.returncode == 2, result.stderr
    assert result.stderr == f"error: {written.format(out=out)}: cannot write it (File too large)\n"
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("option", ["-o", "--html"])
def test_a_directory_nothing_can_be_created_in_is_one_line_before_the_scan(option):
    """/proc refuses new files even to root, whom the directory's mode bits do not stop."""
    command = ["scan", DUMP, "-o", "/proc/keys.parquet"] if option == "-o" else \
        ["report", DUMP, "--html", "/proc/report.html"]
    result = CliRunner().invoke(app, [str(a) for a in command])
    assert result.exit_code == 2, result.output
    name = "'--output'" if option == "-o" else "'--html'"
    assert result.stderr == (f"error: invalid value for {name}: cannot write in /proc (No such file or directory) "
                             f"(see 'rdbscope {command[0]} --help')\n")
