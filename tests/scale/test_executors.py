"""map_sources runs one function over real dumps in this process, on a pool of local processes and on a
real Dask cluster (a scheduler and two worker processes on 127.0.0.1), with the same ordered results and
the same errors naming the dump."""

import contextlib
import gc
import importlib.util
import json
import os
import socket
import subprocess
import sys
import threading
import time

import pytest
from conftest import SAMPLE_DUMPS, sample_dumps, skip_or_fail
from dask_cluster import MISSING, free_port, require_dask
from oracle import read_oracle

import rdbscope
from rdbscope.errors import ConfigError, InputError, RdbError, RdbFormatError, RdbscopeError, RdbTruncatedError
from rdbscope.scale.executors import (
    CONNECT_TIMEOUT_S,
    KNOCK_TIMEOUT_S,
    connect,
    core_count,
    map_sources,
    scheduler_host_port,
)
from rdbscope.sources import expand_url, import_extra, is_url, open_dump

#: Every sample dump, not in name order: results must come back in the order given.
DUMPS = [str(p) for p in sorted(sample_dumps(), key=lambda p: (p.stat().st_size, p.name), reverse=True)]


def count_keys(item):
    """``(item, keys in the dump)``: a real function of one dump, as the engine's per-dump function is."""
    source = open_dump(item)
    try:
        return item, sum(batch.num_rows for batch in rdbscope.scan(source))
    finally:
        if source is not item:
            source.close()


def stop_the_process(item):
    """A worker that dies (as one killed for its memory does) without raising anything."""
    os._exit(3)


def oracle_keys(path):
    """Keys in the dump by the INFO keyspace of the server that wrote it."""
    return sum(db["keys"] for db in read_oracle(str(path.with_suffix(".json")))["keyspace"].values())


@pytest.fixture(scope="module")
def dask_client(dask_address):
    with connect(dask_address) as client:
        yield client


# a pool and a cluster take seconds to start: the quick run (-m "not slow") keeps jobs=1
@pytest.fixture(params=["jobs=1", pytest.param("jobs=2", marks=pytest.mark.slow),
                        pytest.param("dask", marks=pytest.mark.slow)])
def where(request):
    """Keyword arguments of map_sources for each place the map runs."""
    if request.param == "dask":
        return {"client": request.getfixturevalue("dask_client")}
    return {"jobs": int(request.param.removeprefix("jobs="))}


def require_fsspec():
    if importlib.util.find_spec("fsspec") is None:
        skip_or_fail('fsspec is not installed; pip install -e ".[test]" (or "rdbscope[dask]") brings it')


def damaged(tmp_path, name, cut):
    """A sample dump cut short at ``cut`` bytes."""
    path = tmp_path / name
    path.write_bytes((SAMPLE_DUMPS / "redis-7.0-default.rdb").read_bytes()[:cut])
    return str(path)


def test_the_results_are_the_dumps_key_counts_in_the_order_given(where):
    results = map_sources(count_keys, DUMPS, **where)
    assert [item for item, _ in results] == DUMPS
    assert [n for _, n in results] == [oracle_keys(SAMPLE_DUMPS / os.path.basename(p)) for p in DUMPS]
    assert results == [count_keys(p) for p in DUMPS]


def test_fsspec_urls_are_read_where_the_map_runs(where):
    require_fsspec()
    urls = [f"file://{p}" for p in DUMPS[:3]]
    assert [n for _, n in map_sources(count_keys, urls, **where)] == [n for _, n in map(count_keys, DUMPS[:3])]


def test_a_missing_dump_among_several_stops_the_run_naming_it(where, tmp_path):
    missing = str(tmp_path / "node-b.rdb")
    with pytest.raises(InputError) as caught:
        map_sources(count_keys, [DUMPS[0], missing, DUMPS[1]], **where)
    assert str(caught.value) == f"{missing}: No such file or directory"


def test_the_first_damaged_dump_in_order_fails_the_run_with_its_offset(where, tmp_path):
    first, second = damaged(tmp_path, "node-b.rdb", 5000), damaged(tmp_path, "node-c.rdb", 3000)
    with pytest.raises(RdbError) as here:
        count_keys(first)
    with pytest.raises(RdbError) as caught:
        map_sources(count_keys, [DUMPS[0], first, second], **where)
    error = caught.value
    assert type(error) is type(here.value) and isinstance(error, RdbTruncatedError)
    assert (error.path, error.offset, error.context) == (first, here.value.offset, here.value.context)
    assert str(error) == str(here.value) and str(error).startswith(f"{first}: offset ")


def test_a_url_glob_names_the_files_it_matches_in_order(tmp_path):
    require_fsspec()
    url = f"file://{SAMPLE_DUMPS}/redis-7.0-*.rdb"
    assert expand_url(url) == [f"file://{p}" for p in sorted(SAMPLE_DUMPS.glob("redis-7.0-*.rdb"))]
    assert expand_url(f"file://{DUMPS[0]}") == [f"file://{DUMPS[0]}"]
    for missing, said in ((f"file://{tmp_path}/node-*.rdb", "no file matches"),
                          (f"file://{tmp_path}/node-b.rdb", "no such file")):
        with pytest.raises(InputError) as caught:
            expand_url(missing)
        assert str(caught.value) == f"{missing}: {said}"
    with pytest.raises(InputError, match="^nosuchscheme://bucket/node-a.rdb: Protocol not known: nosuchscheme$"):
        expand_url("nosuchscheme://bucket/node-a.rdb")


def test_a_url_whose_scheme_fsspec_does_not_know_is_named(where):
    require_fsspec()
    url = "nosuchscheme://bucket/node-a.rdb"
    with pytest.raises(InputError, match=r"^nosuchscheme://bucket/node-a.rdb: .*nosuchscheme"):
        map_sources(count_keys, [DUMPS[0], url], **where)


@pytest.mark.slow
def test_a_worker_process_that_dies_fails_the_run_naming_the_first_dump_not_read():
    with pytest.raises(RdbscopeError) as caught:
        map_sources(stop_the_process, ["node-a.rdb", "node-b.rdb"], jobs=2)
    assert str(caught.value).startswith("node-a.rdb: a worker process stopped before it was read (killed, ")


@pytest.mark.slow
def test_a_dump_every_dask_worker_dies_on_is_named(dask_client):
    with pytest.raises(RdbscopeError) as caught:
        map_sources(stop_the_process, ["node-a.rdb"], client=dask_client)
    assert str(caught.value) == "node-a.rdb: every Dask worker that tried to read it died (killed, or out of memory)"
    dask_client.wait_for_workers(2, timeout=60)  # their nannies restart them: the cluster serves the next tests
    assert map_sources(count_keys, DUMPS[:2], client=dask_client) == [count_keys(p) for p in DUMPS[:2]]


def test_one_item_or_one_job_runs_in_this_process():
    seen = []
    assert map_sources(seen.append, ["a.rdb", "b.rdb"], jobs=1) == [None, None]
    assert map_sources(seen.append, ["c.rdb"], jobs=4) == [None]
    assert seen == ["a.rdb", "b.rdb", "c.rdb"]  # a closure: no pool could have run it
    assert map_sources(seen.append, []) == []


def test_jobs_below_one_is_a_config_error():
    with pytest.raises(ConfigError, match="jobs must be 1 or more, not 0"):
        map_sources(count_keys, DUMPS, jobs=0)


def test_the_default_is_one_process_per_core():
    options = importlib.import_module("rdbscope.cli._options")  # what --jobs defaults to
    assert core_count() == options.core_count() == len(os.sched_getaffinity(0))


@pytest.mark.parametrize("error", [
    RdbTruncatedError("unexpected end of the dump", offset=18234, context="hash 'sess:1'", path="node-b.rdb"),
    RdbFormatError("bad length encoding", offset=7),
    InputError("node-b.rdb: No such file or directory"),
    ConfigError("jobs must be 1 or more, not 0"),
])
def test_rdbscope_errors_survive_pickling_with_their_attributes(error):
    import pickle

    # pickle crosses to local processes; Dask sends errors with pickle, or cloudpickle where pickle fails
    modules = [pickle]
    if importlib.util.find_spec("cloudpickle"):
        modules.append(importlib.import_module("cloudpickle"))
    for module in modules:
        copy = module.loads(module.dumps(error))
        assert type(copy) is type(error) and str(copy) == str(error) and vars(copy) == vars(error)


def test_urls_are_told_from_paths():
    assert is_url("s3://bucket/nightly/node-a.rdb") and is_url("file:///srv/dump.rdb")
    assert not is_url("node-a.rdb") and not is_url("/srv/a://b.rdb") and not is_url(SAMPLE_DUMPS)
    assert open_dump("node-a.rdb") == "node-a.rdb"


def test_a_missing_extra_says_how_to_install_it():
    with pytest.raises(InputError) as caught:
        import_extra("rdbscope_no_such_module", "--dask")
    assert str(caught.value) == '--dask needs the dask extra: pip install "rdbscope[dask]"'


def test_a_refused_connection_fails_at_once_with_one_line():
    require_dask()
    import distributed  # noqa: F401 - imported before the clock starts: a second or more on a busy machine

    address = f"tcp://127.0.0.1:{free_port()}"
    started = time.monotonic()
    error = connect_failure(address, CONNECT_TIMEOUT_S)  # nothing is waited for when nothing listens
    assert time.monotonic() - started < 2
    assert str(error) == f"no Dask scheduler answered at {address}: Connection refused"
    assert CONNECT_TIMEOUT_S == 10 and KNOCK_TIMEOUT_S == 2


def test_an_address_that_is_not_one_is_named():
    require_dask()
    with pytest.raises(InputError, match=r"^'scheduler' is not a Dask scheduler address \(tcp://HOST:PORT\)"):
        connect("scheduler", timeout=2)


@pytest.mark.parametrize(("address", "why"), [
    ("nonsense", "no port from 1 to 65535 after the last ':'"),
    ("tcp://127.0.0.1", "no port from 1 to 65535 after the last ':'"),
    ("tcp://127.0.0.1:0", "no port from 1 to 65535 after the last ':'"),
    ("tcp://127.0.0.1:65536", "no port from 1 to 65535 after the last ':'"),
    ("tcp://127.0.0.1:8786/", "no port from 1 to 65535 after the last ':'"),
    ("tcp://:8786", "no host name before the port (an IPv6 address goes in brackets)"),
    ("::1:8786", "no host name before the port (an IPv6 address goes in brackets)"),
    ("tls://127.0.0.1:8786", "the scheme is tls://, not tcp://"),
])
def test_a_malformed_address_is_refused_before_anything_is_opened(address, why):
    threads = threading.active_count()
    with pytest.raises(InputError) as caught:
        scheduler_host_port(address)
    assert str(caught.value) == f"{address!r} is not a Dask scheduler address (tcp://HOST:PORT): {why}"
    assert threading.active_count() == threads


def test_addresses_dask_takes_are_taken():
    assert scheduler_host_port("tcp://scheduler:8786") == ("scheduler", 8786)
    assert scheduler_host_port("127.0.0.1:8786") == ("127.0.0.1", 8786)
    assert scheduler_host_port("tcp://[::1]:8786") == ("::1", 8786)


@contextlib.contextmanager
def silent_listener():
    """The address of a TCP port that takes connections and never says anything (a mistyped port)."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"


def connect_failure(address, timeout, within=60):
    """The error ``connect(address, timeout)`` raised, which it must within ``within`` seconds (run in a
    daemon thread: a connect that hangs fails the test instead of hanging the run)."""
    failure = []

    def run():
        try:
            connect(address, timeout=timeout).close()
        except BaseException as exc:  # noqa: B036 - whatever it is, the test shows it
            failure.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(within)
    assert not thread.is_alive(), f"connect({address!r}) still waits after {within} s"
    (error,) = failure
    assert isinstance(error, InputError), repr(error)
    return error


@pytest.mark.slow
def test_a_port_that_is_not_a_scheduler_is_told_within_seconds():
    require_dask()
    with silent_listener() as address:
        started = time.monotonic()
        error = connect_failure(address, timeout=60)  # Dask's client would wait for its greeting for ever
        assert time.monotonic() - started < 10
    assert str(error) == (f"{address} took the connection but is not a Dask scheduler "
                                 f"(no Dask greeting within 2 s)")


def test_a_failed_connection_leaves_no_client_and_no_thread_behind():
    require_dask()
    import distributed

    def clients():
        gc.collect()
        return [o for o in gc.get_objects() if isinstance(o, distributed.Client)]

    before = (threading.active_count(), len(clients()))
    with silent_listener() as silent:
        for address in ("scheduler", f"tcp://127.0.0.1:{free_port()}", silent):
            connect_failure(address, timeout=2)
    assert (threading.active_count(), len(clients())) == before


@pytest.mark.slow
def test_connect_gives_a_client_of_the_cluster_with_its_workers(dask_client, dask_address):
    assert dask_client.scheduler.address == dask_address
    workers = dask_client.scheduler_info()["workers"].values()
    assert sorted(w["name"] for w in workers) == ["worker-0", "worker-1"]
    assert {w["nthreads"] for w in workers} == {1}


# --- The command line: report and lint take --jobs and --dask -------------------------------------------

def invoke(*args):
    from typer.testing import CliRunner

    from rdbscope.cli import app

    return CliRunner().invoke(app, [str(a) for a in args])


def one_line_error(result):
    assert result.exit_code == 2, (result.exit_code, result.output)
    (line,) = result.stderr.splitlines()
    return line


@pytest.mark.parametrize("command", ["report", "lint"])
def test_the_help_shows_both_options_and_the_core_count(command):
    from typer.testing import CliRunner

    from rdbscope.cli import app

    text = " ".join(CliRunner().invoke(app, [command, "--help"], terminal_width=200).stdout.split())
    assert "--jobs N Read this many dumps at once, or stretches of one large dump" in text
    assert f"[default: (one per core, {core_count()} here)" in text
    assert '--dask ADDRESS Read the dumps on the Dask cluster' in text and 'pip install "rdbscope[dask]"' in text


@pytest.mark.parametrize("command", ["report", "lint"])
def test_bad_parallel_options_are_one_line(command):
    line = one_line_error(invoke(command, DUMPS[0], "--jobs", "0"))
    assert line.startswith("error: invalid value for '--jobs'")
    if MISSING is None:
        line = one_line_error(invoke(command, DUMPS[0], "--dask", "scheduler"))
        assert line.startswith("error: 'scheduler' is not a Dask scheduler address (tcp://HOST:PORT)")


def run_rdbscope(*args):
    """``rdbscope ARGS`` in a process of its own, as a person runs it: what a client left to the garbage
    collector does at exit shows too."""
    return subprocess.run([sys.executable, "-m", "rdbscope", *map(str, args)], capture_output=True, text=True,
                          timeout=120)


@pytest.mark.slow  # three processes that import dask
def test_a_bad_dask_address_on_the_command_line_is_one_line_and_nothing_after(tmp_path):
    require_dask()
    (tmp_path / "node-a.rdb").write_bytes((SAMPLE_DUMPS / "redis-7.0-default.rdb").read_bytes())
    refused = f"tcp://127.0.0.1:{free_port()}"
    with silent_listener() as silent:
        for address, said in (("nonsense", "'nonsense' is not a Dask scheduler address (tcp://HOST:PORT): "
                                           "no port from 1 to 65535 after the last ':'"),
                              (refused, f"no Dask scheduler answered at {refused}: Connection refused"),
                              (silent, f"{silent} took the connection but is not a Dask scheduler "
                                       f"(no Dask greeting within 2 s)")):
            result = run_rdbscope("report", tmp_path, "--dask", address)
            assert (result.returncode, result.stderr, result.stdout) == (2, f"error: {said}\n", ""), address


@pytest.mark.slow
@pytest.mark.parametrize("command", [("report",), ("lint",), ("lint", "--select", "GRO001,NAM")],
                         ids=["report", "lint", "lint-read-whole"])
def test_a_run_on_dask_prints_what_a_local_run_prints(command, dask_address):
    """Chunked, and read whole (GRO001 needs every key: the workers load the tables)."""
    dumps = [DUMPS[0], DUMPS[-1], SAMPLE_DUMPS / "redis-8.2-default.rdb"]
    here = invoke(*command, *dumps, "--format", "json", "--jobs", "1", "--combine")  # three servers' dumps
    there = invoke(*command, *dumps, "--format", "json", "--dask", dask_address, "--combine")
    assert here.exit_code == there.exit_code == (0 if command == ("report",) else 1)
    assert there.stdout == here.stdout and json.loads(there.stdout)


@pytest.mark.slow
def test_a_damaged_dump_among_several_on_dask_is_the_same_one_line(dask_address, tmp_path):
    dumps = [DUMPS[0], damaged(tmp_path, "node-b.rdb", 5000), DUMPS[1]]
    there = one_line_error(invoke("report", *dumps, "--dask", dask_address))
    assert there == one_line_error(invoke("report", *dumps))
    assert there.startswith(f"error: {dumps[1]}: offset ")


PROBE = '''
from rdbscope.scale import allocator, executors


def kept(_item):
    return allocator.keeps_freed_memory()


if __name__ == "__main__":
    import sys
    if sys.argv[1] == "keep":
        allocator.keep_freed_memory()
    print(executors.map_sources(kept, [1, 2], jobs=2))
'''


@pytest.mark.skipif(not os.confstr("CS_GNU_LIBC_VERSION"), reason="the allocator's thresholds are glibc's")
def test_worker_processes_keep_freed_memory_as_the_command_does(tmp_path):
    (tmp_path / "probe.py").write_text(PROBE)
    for argument, expected in (("keep", "[True, True]"), ("leave", "[False, False]")):
        done = subprocess.run([sys.executable, "probe.py", argument], cwd=tmp_path, capture_output=True, text=True,
                              timeout=120)
        assert done.stdout.strip() == expected, done.stderr


ARENAS = '''
import ctypes, sys, threading
import numpy as np
from rdbscope.scale import allocator

if sys.argv[1] == "keep":
    allocator.keep_freed_memory()
held = []
thread = threading.Thread(target=lambda: held.append(np.ones(1 << 20)))  # 8 MB, below the mmap threshold
thread.start()
thread.join()
ctypes.CDLL(None).malloc_stats()  # to standard error, an "Arena N:" block per arena
'''


@pytest.mark.skipif(not os.confstr("CS_GNU_LIBC_VERSION"), reason="the allocator's arenas are glibc's")
def test_the_command_allocates_every_threads_memory_from_one_arena(tmp_path):
    (tmp_path / "arenas.py").write_text(ARENAS)
    arenas = {}
    for argument in ("keep", "leave"):
        done = subprocess.run([sys.executable, "arenas.py", argument], cwd=tmp_path, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        arenas[argument] = done.stderr.count("Arena ")
    assert arenas == {"keep": 1, "leave": 2}
