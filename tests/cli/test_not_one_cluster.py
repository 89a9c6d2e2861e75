"""Several dumps that are not one cluster's nodes (one server's backups of two days, a dump with db 3) are
refused with one line, in memory and in bounded memory; --combine reads them as one keyspace all the same.

A real 3-master cluster's dumps are still one keyspace: tests/report/test_cluster_report.py."""

import json
import shutil

import pytest
import redis
from redis.crc import key_slot  # redis-py's CRC16 slot, not ours
from servers import make_sample_dumps, server
from typer.testing import CliRunner

from rdbscope.cli import app

pytestmark = [pytest.mark.server, pytest.mark.slow]  # each writes its dumps with a real server


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def backups(tmp_path_factory):
    """One server's dump saved on two days (day 2 holds day 1's keys and more), and a third dump from
    another server whose keys are in db 3: ``(directory of the two days, the db-3 dump, keys of day 1, of day 2)``."""
    out = tmp_path_factory.mktemp("backups")
    days = out / "days"
    days.mkdir()
    with make_sample_dumps.RunningServer(server("redis-7.0"), {"save": ""}) as running:
        client = running.client(0)
        day_1 = [f"user:{i}:name" for i in range(40)]
        for key in day_1:
            client.set(key, "x")
        client.execute_command("SAVE")
        shutil.copy(running.dump_path, days / "dump-2026-11-22.rdb")
        for i in range(40, 60):
            client.set(f"user:{i}:name", "x")
        client.execute_command("SAVE")
        shutil.copy(running.dump_path, days / "dump-2026-11-23.rdb")
        day_2 = client.dbsize()
    with make_sample_dumps.RunningServer(server("redis-7.0"), {"save": ""}) as running:
        redis.Redis(port=running.port, db=3).set("job:1", "x")
        running.client(0).execute_command("SAVE")
        shutil.copy(running.dump_path, out / "db3.rdb")
    return days, out / "db3.rdb", day_1, day_2


ADVICE = ("compare them with 'rdbscope diff' or 'rdbscope trend', or give --combine (combine=True) to read them as "
          "one keyspace anyway")


@pytest.mark.parametrize("command, budget", [("report", []), ("report", ["--memory-budget", "100KB"]),
                                             ("lint", [])])
def test_one_servers_backups_are_refused_saying_which_slots_they_share(backups, command, budget):
    days, _db3, day_1, _day_2 = backups
    result = invoke(command, days, *budget)
    assert result.exit_code == 2, result.output
    shared = len({key_slot(key.encode()) for key in day_1})
    assert result.stderr == (
        f"error: {days}/dump-2026-11-22.rdb and {days}/dump-2026-11-23.rdb both hold keys of {shared} hash slots: "
        f"not two nodes of one cluster (dumps of one server at two times, or a master and its replica?); "
        f"{ADVICE}\n")
    assert result.stdout == ""


@pytest.mark.parametrize("budget", [[], ["--memory-budget", "100KB"]])
def test_combine_reads_them_as_one_keyspace_all_the_same(backups, budget):
    days, _db3, day_1, day_2 = backups
    result = invoke("report", days, "--combine", "--format", "json", *budget)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["overview"]["n_keys"] == len(day_1) + day_2


def test_a_dump_with_keys_in_another_db_is_not_a_cluster_node(backups):
    days, db3, _day_1, _day_2 = backups
    result = invoke("report", days / "dump-2026-11-22.rdb", db3)
    assert result.exit_code == 2, result.output
    assert result.stderr == (f"error: {db3}: keys in db 3, and a cluster's nodes hold db 0 only: these 2 dumps are "
                             f"not the nodes of one cluster; {ADVICE}\n")
