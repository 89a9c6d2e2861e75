"""The default memory budget heeds the memory cgroup the process runs in (a container's limit, a systemd slice),
not only the machine's free memory: tested in a real cgroup, made here when the machine lets us."""

import os
import subprocess
import sys
import uuid

import pytest

from rdbscope.scale.budget import DEFAULT_BUDGET, DEFAULT_SHARE, _read_bytes

LIMIT = 600 << 20
#: What the process's usage may move by between two readings of it: far below the machine's free memory,
#: which a budget that ignored the cgroup would follow.
SLACK = 1 << 20


def _cgroup():
    """A new memory cgroup limited to LIMIT bytes, as (its directory, the file a process joins it by), or a skip."""
    name = f"rdbscope-test-{uuid.uuid4().hex[:8]}"
    v2 = "/sys/fs/cgroup"
    if os.path.exists(f"{v2}/cgroup.controllers") and "memory" in open(f"{v2}/cgroup.subtree_control").read():
        directory, limit_file = os.path.join(v2, name), "memory.max"
    elif os.path.isdir("/sys/fs/cgroup/memory"):
        directory, limit_file = os.path.join("/sys/fs/cgroup/memory", name), "memory.limit_in_bytes"
    else:
        pytest.skip("no memory cgroup controller on this machine")
    try:
        os.mkdir(directory)
        with open(os.path.join(directory, limit_file), "w") as f:
            f.write(str(LIMIT))
    except OSError as exc:
        pytest.skip(f"cannot make a memory cgroup here ({exc})")
    return directory, os.path.join(directory, "cgroup.procs")


def test_the_default_budget_is_half_of_what_the_cgroup_still_allows():
    directory, procs = _cgroup()
    try:
        code = (f"open({procs!r}, 'w').write('0')\n"  # this process joins the cgroup
                "from rdbscope.scale.budget import cgroup_room, default_budget, available_memory\n"
                "print(cgroup_room(), available_memory(), default_budget())")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    finally:
        os.rmdir(directory)
    room, available, budget = map(int, out.split())
    # each call reads the cgroup's usage again, which moves by a page or so between the calls
    assert 0 < room <= LIMIT and abs(available - room) <= SLACK
    assert abs(budget - min(DEFAULT_BUDGET, int(room * DEFAULT_SHARE))) <= SLACK and budget <= LIMIT // 2


def test_a_file_without_a_number_reads_as_no_limit(tmp_path):
    (tmp_path / "memory.max").write_text("max\n")
    (tmp_path / "memory.current").write_text("123456\n")
    assert _read_bytes(tmp_path / "memory.max") is None
    assert _read_bytes(tmp_path / "memory.current") == 123456
