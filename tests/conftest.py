"""Shared fixtures: where the dumps are, and the scanner implementations."""

import os
import pathlib

import pytest

import rdbscope.rdb
from rdbscope.values import VALUE_COLUMNS

ROOT = pathlib.Path(__file__).resolve().parent.parent
SAMPLE_DUMPS = ROOT / "sample_dumps"
# What the full run reads beside the checkout (README, "Tests"); a fresh clone skips those tests.
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "rdb-corpus"
SEEDS = SHARED / "seeds"
CORPUS_MISSING = (f"needs the public RDB corpus in ../shared/rdb-corpus beside the checkout "
                  f"(not found at {CORPUS}; see README, Tests)")
SEEDS_MISSING = (f"needs the seed documents in ../shared/seeds beside the checkout "
                 f"(not found at {SEEDS}; see README, Tests)")

IMPLEMENTATIONS = sorted(rdbscope.rdb.implementations())


@pytest.fixture(params=IMPLEMENTATIONS)
def implementation(request):
    """Each scanner implementation available here: "cython" and "python"."""
    return request.param


@pytest.fixture(scope="session")
def dask_address(tmp_path_factory):
    """The address of a real Dask cluster on 127.0.0.1 (a scheduler and two worker processes, see
    dask_cluster.py), started once for the whole run; the workers import tests/scale's modules too."""
    from dask_cluster import require_dask, running_dask_cluster

    require_dask()
    with running_dask_cluster(tmp_path_factory.mktemp("dask"), test_dirs=[ROOT / "tests" / "scale"]) as address:
        yield address


def sample_dumps():
    """The dumps of make_sample_dumps.py, each with its oracle (libraries.rdb has a truth of its own)."""
    return sorted(p for p in SAMPLE_DUMPS.glob("*.rdb") if p.stem != "libraries")


#: The sample dump that a test run once per sample dump takes in the quick run (-m "not slow").
QUICK_DUMP = "redis-7.0-default"


def one_quick(paths):
    """``paths`` as test parameters, each but the quick dump marked slow: a sweep over every dump runs
    whole in the full run and on one dump in the quick run."""
    return [p if pathlib.Path(p).stem == QUICK_DUMP else pytest.param(p, marks=pytest.mark.slow) for p in paths]


def corpus_available():
    return (CORPUS / "public" / "MANIFEST.tsv").exists()


def needs_corpus():
    """A skip mark for tests that read ../shared/rdb-corpus."""
    return pytest.mark.skipif(not corpus_available(), reason=CORPUS_MISSING)


def require_compiled():
    """CI sets RDBSCOPE_REQUIRE_COMPILED=1: there the compiled scanner must load."""
    return os.environ.get("RDBSCOPE_REQUIRE_COMPILED") == "1"


def require_servers():
    """CI sets RDBSCOPE_REQUIRE_SERVERS=1: there a missing server, browser or font fails instead of skipping."""
    return os.environ.get("RDBSCOPE_REQUIRE_SERVERS") == "1"


def skip_or_fail(reason):
    """Skip with ``reason``, or fail with it where everything is required."""
    if require_servers():
        pytest.fail(f"{reason} (RDBSCOPE_REQUIRE_SERVERS=1)")
    pytest.skip(reason)


def module_builds(name):
    """``{"python": ..., "cython": ...}``: ``rdbscope.rdb.<name>`` run as Python, and compiled where it was
    built (where RDBSCOPE_REQUIRE_COMPILED=1, it must have been)."""
    from rdbscope.compiled import compiled_module, python_module

    builds = {"python": python_module(name)}
    if compiled_module(name) is not None:
        builds["cython"] = compiled_module(name)
    elif require_compiled():
        pytest.fail(f"rdbscope.rdb.{name} was not compiled (RDBSCOPE_REQUIRE_COMPILED=1)")
    return builds


def without_value_columns(patterns):
    """Pattern rows (dicts) without :data:`VALUE_COLUMNS`: a report whose input cannot be read again (a running
    server, standard input, a keys table) says no more than that of its values."""
    return [{name: value for name, value in row.items() if name not in VALUE_COLUMNS} for row in patterns]


def values_not_read(patterns):
    """Whether no pattern row says anything of its values."""
    return all(row[name] in (None, 0) for row in patterns for name in VALUE_COLUMNS)


def assert_same_but_values(not_reread, reread):
    """``not_reread`` (a report document, or its pattern rows, from an input that is not read twice: standard
    input, a running server) is ``reread`` (the same from the dump file) but for the value columns,
    which say nothing of values in the first and something in the second."""
    rows_of = (lambda doc: doc["patterns"]) if isinstance(reread, dict) else (lambda rows: rows)
    assert values_not_read(rows_of(not_reread)) and not values_not_read(rows_of(reread))
    if isinstance(reread, dict):
        assert {**not_reread, "patterns": without_value_columns(not_reread["patterns"])} == \
            {**reread, "patterns": without_value_columns(reread["patterns"])}
    else:
        assert without_value_columns(not_reread) == without_value_columns(reread)
