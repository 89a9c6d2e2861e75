"""The fuzz campaign's value mutations (fuzz/values.py, issue 29): on a real Redis 7.0 dump they set expiry
times and header integers to the extremes that byte flips almost never reach, and every dump they make goes
through the CLI as a user would run it: to the end, or one error line and exit 2."""

import importlib
import io
import pathlib
import random
import sys

import pyarrow as pa
import pytest
from typer.testing import CliRunner

import rdbscope
from rdbscope.cli import app

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))
values = importlib.import_module("fuzz.values")

#: A two-key dump Redis 7.0 wrote (one key with a TTL, one expiring in the year 9999).
SEED = ROOT / "tests" / "rdb" / "fuzz_regressions" / "hostile-expiry-year-9999.rdb"
INT64 = {(1 << 63) - 1, -(1 << 63), 1 << 62}
SEEDS = range(300)


def mutated(mutation):
    """The distinct dumps ``mutation`` makes of the seed dump."""
    data = SEED.read_bytes()
    made = {mutation(data, random.Random(seed)) for seed in SEEDS}
    return sorted(dump for dump in made - {None} if dump != data)


def loaded(dump):
    try:
        return rdbscope.load(io.BytesIO(dump), verify_crc=False)
    except rdbscope.RdbError:
        return None


def run(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code in (0, 2), (args, result.exit_code, result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), (args, result.exception)
    if result.exit_code == 2:
        (line,) = result.stderr.splitlines()
        assert line.startswith(f"error: {args[1]}"), line
    return result


def loaded_values(mutation, read):
    """What ``read`` gives of each dump ``mutation`` makes that loads."""
    found = set()
    for dump in mutated(mutation):
        keys = loaded(dump)
        if keys is not None:
            found |= read(keys)
    return found


def test_expiry_mutations_reach_both_ends_of_int64():
    expiries = loaded_values(values.set_expiry, lambda keys: set(keys.to_arrow()["expire_at"].cast(pa.int64())
                                                                 .to_pylist()))
    assert INT64 <= expiries, sorted(INT64 - expiries)


def test_aux_mutations_put_ctime_and_redis_ver_out_of_range():
    ctimes = loaded_values(values.set_aux, lambda keys: {keys.info.aux.get("ctime")})
    assert {str((1 << 64) - 1), str((1 << 63) - 1), str(-(1 << 63))} <= ctimes
    versions = loaded_values(values.set_aux, lambda keys: {keys.info.aux.get("redis-ver")})
    assert {f"{(1 << 64) - 1}.0.0", str((1 << 63) - 1)} & versions, versions


@pytest.mark.slow
def test_every_command_ends_on_what_the_expiry_mutations_make(tmp_path):
    path = tmp_path / "mutated.rdb"
    for dump in mutated(values.set_expiry):
        path.write_bytes(dump)
        for command in ("ttl", "expiry", "bigkeys"):
            run(command, path, "--no-crc")


@pytest.mark.slow
def test_info_shows_what_the_aux_mutations_make(tmp_path):
    path = tmp_path / "mutated.rdb"
    for dump in mutated(values.set_aux):
        path.write_bytes(dump)
        shown = run("info", path, "--no-crc")
        keys = loaded(dump)
        if keys is not None and keys.info.aux.get("ctime") in (str((1 << 64) - 1), str((1 << 63) - 1)):
            assert "(out of range)" in shown.stdout, shown.stdout


@pytest.mark.slow
@pytest.mark.parametrize("mutation", [values.set_length, values.set_word])
def test_length_and_count_mutations_fail_on_one_line_or_load(mutation, tmp_path):
    dumps = mutated(mutation)
    assert len(dumps) > 100
    path = tmp_path / "mutated.rdb"
    for dump in dumps[::5]:
        path.write_bytes(dump)
        run("info", path, "--no-crc")
