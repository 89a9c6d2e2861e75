"""A real Dask cluster on 127.0.0.1 for the tests that need one: a ``dask scheduler`` and
``dask worker`` processes (one thread each), started as a person would start them.

The scheduler and workers import rdbscope and the test modules from this checkout
(PYTHONPATH), as the tests do: a test's module-level function runs on them as it is.
Without dask the tests that need it skip, saying what to install; under
RDBSCOPE_REQUIRE_SERVERS=1 they fail instead.
"""

import contextlib
import importlib.util
import os
import socket
import subprocess
import sys
import time

from conftest import ROOT, skip_or_fail

#: Why a test that needs a Dask cluster cannot have one here, or None when it can.
MISSING = None if importlib.util.find_spec("distributed") else (
    'dask.distributed is not installed; pip install -e ".[test]" (or "rdbscope[dask]") brings it')

#: Seconds the scheduler and its workers get to start, and to stop.
START_TIMEOUT_S = 60
STOP_TIMEOUT_S = 15


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def require_dask():
    """Skip (or fail, where everything is required) when dask.distributed is not installed."""
    if MISSING:
        skip_or_fail(MISSING)


@contextlib.contextmanager
def running_dask_cluster(directory, workers=2, test_dirs=()):
    """Yield the address (``tcp://127.0.0.1:PORT``) of a scheduler with ``workers`` worker
    processes attached, each logging to ``directory``; stop them all after.

    The processes import from the checkout, tests/ and ``test_dirs`` (where the
    modules of the functions the tests send them are)."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    path = [str(ROOT), str(ROOT / "tests"), *map(str, test_dirs), os.environ.get("PYTHONPATH")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, path))}
    commands = [["scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"]]
    commands += [["worker", address, "--host", "127.0.0.1", "--nthreads", "1", "--nworkers", "1",
                  "--no-dashboard", "--name", f"worker-{n}", "--local-directory", str(directory / f"worker-{n}")]
                 for n in range(workers)]
    processes = []
    try:
        for n, command in enumerate(commands):
            log = open(directory / f"{command[0]}-{n}.log", "wb")
            processes.append(subprocess.Popen([sys.executable, "-m", "dask", *command], cwd=directory, env=env,
                                              stdout=log, stderr=subprocess.STDOUT))
            log.close()
        _wait_for_workers(address, workers, processes, directory)
        yield address
    finally:
        # the workers first, and gone before the scheduler goes: a worker whose scheduler vanished
        # waits for it to come back
        _stop(processes[1:])
        _stop(processes[:1])


def _stop(processes):
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_for_workers(address, workers, processes, directory):
    from rdbscope.errors import InputError
    from rdbscope.scale.executors import connect

    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        stopped = [p for p in processes if p.poll() is not None]
        if stopped:
            raise RuntimeError(f"a dask process exited with code {stopped[0].returncode}; logs: {_logs(directory)}")
        try:
            # connect makes a client only once the scheduler greets: one made before may hang closing itself
            with connect(address, timeout=5) as client:
                client.wait_for_workers(workers, timeout=max(1.0, deadline - time.monotonic()))
                return
        except (InputError, OSError, TimeoutError):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the Dask cluster did not start in {START_TIMEOUT_S} s; "
                                   f"logs: {_logs(directory)}") from None
            time.sleep(0.2)


def _logs(directory):
    return " | ".join(f"{p.name}: {p.read_text(errors='replace')[-800:]}" for p in sorted(directory.glob("*.log")))
