"""Run one function over many dumps: in this process, on a pool of local processes, or on a Dask cluster.

Each call reads one dump and returns something small (a partial aggregate);
the caller merges what comes back, in the order of the dumps. Whatever runs
the calls, a dump that cannot be read stops the run with an rdbscope error
that names it.
"""

import concurrent.futures
import functools
import multiprocessing
import os
import socket

from ..errors import ConfigError, InputError, RdbError, RdbscopeError
from ..sources import import_extra, input_error, item_name
from . import progress
from .allocator import keeps_freed_memory
from .budget import core_count

#: Seconds to wait for a Dask scheduler to answer, and then for it to have a worker.
CONNECT_TIMEOUT_S = 10

#: Seconds a TCP connection to the scheduler may take to open (on loopback or a LAN, well under one).
KNOCK_TIMEOUT_S = 2

#: The most a Dask server's first message (its handshake) can plausibly hold.
GREETING_MAX_BYTES = 1 << 16

#: How to install what --dask and URLs need.
DASK_INSTALL = 'pip install "rdbscope[dask]"'

def map_sources(function, items, *, jobs=None, client=None, then=None, on_progress=None):
    """``[function(item) for item in items]``, in order, run where the caller says.

    Args:
        function: called once per item; for ``jobs`` > 1 or a ``client`` it must
            pickle (a module-level function, or a :func:`functools.partial` of one),
            and so must what it returns.
        items: the dumps: paths, or fsspec URLs (see :func:`rdbscope.sources.open_dump`).
        jobs: local processes; None means one per core. One process (or one
            item) runs in this process.
        client: a ``dask.distributed.Client`` (see :func:`connect`): one task per
            item on its cluster, whose workers must be able to read the items.
            ``jobs`` does not apply then.
        then: called here on each result as it arrives (in order), before the next is fetched; its
            return value stands for the result (e.g. to move what came inline to disk).
        on_progress: on local processes, called here as ``on_progress(bytes read, bytes to read)``
            of all the items, from what the workers' scans report through a
            :class:`~.progress.WorkerProgress` given as their ``on_progress``.

    Local processes are started with "spawn" (a forked child could inherit locks
    held by the threads of the scanner or of Arrow): each imports the main module
    again, so a script that calls this needs the ``if __name__ == "__main__":`` guard.

    Raises:
        RdbscopeError: the first item (in the order given) whose call failed:
            its own rdbscope error, or an :class:`InputError` for a file that
            could not be read, either way naming the item.
        ConfigError: ``jobs`` below 1.
    """
    items = list(items)
    call = NamingErrors(function)
    if client is not None:
        return _on_dask(call, items, client, then or _same)
    jobs = core_count() if jobs is None else jobs
    if jobs < 1:
        raise ConfigError(f"jobs must be 1 or more, not {jobs}")
    if jobs == 1 or len(items) <= 1:
        return [call(item) for item in items]
    return _on_pool(call, items, min(jobs, len(items)), on_progress)


def _on_pool(call, items, workers, on_progress=None):
    # spawn: a forked child would inherit the locks of the threads the scanner and Arrow run
    context = multiprocessing.get_context("spawn")
    slots = context.Array("q", 2 * len(items), lock=False)  # bytes read and to read, per item
    slots[1::2] = [progress.expected_bytes(item) for item in items]
    pool = concurrent.futures.ProcessPoolExecutor(workers, mp_context=context, initializer=progress.start_worker,
                                                  initargs=(slots, keeps_freed_memory()))
    with pool, progress.drawn(slots, on_progress):
        futures = [pool.submit(progress.run_item, call, index, item) for index, item in enumerate(items)]
        try:
            return [_result(future, item) for future, item in zip(futures, items, strict=True)]
        finally:
            pool.shutdown(cancel_futures=True)


def _result(future, item):
    try:
        return future.result()
    except concurrent.futures.process.BrokenProcessPool:
        raise RdbscopeError(f"{item_name(item)}: a worker process stopped before it was read (killed, out of "
                            "memory, or it could not start: see map_sources)") from None


def _same(result):
    return result


def _on_dask(call, items, client, then):
    from distributed import KilledWorker

    futures = client.map(call, items, pure=False)
    try:
        results = []
        for future, item in zip(futures, items, strict=True):
            results.append(then(_dask_result(future, item, KilledWorker)))
            future.release()  # the worker may drop it: it is here now
        return results
    except BaseException:
        client.cancel(futures[len(results):])
        raise


def _dask_result(future, item, killed_worker):
    try:
        return future.result()
    except killed_worker:  # the scheduler gave the task to several workers in turn, and each died
        raise RdbscopeError(f"{item_name(item)}: every Dask worker that tried to read it died (killed, or out "
                            "of memory)") from None


class NamingErrors:
    """``function``, whose failures name the item they happened on, as rdbscope errors.

    It wraps the function where it runs (a worker process, a Dask worker), so what
    travels back is an error that pickles with its attributes (RdbError's offset),
    whatever the library that failed raised.
    """

    def __init__(self, function):
        self.function = function
        # what Dask names the tasks after (a partial by the function it wraps)
        self.__name__ = getattr(function, "__name__", None) or getattr(getattr(function, "func", None), "__name__",
                                                                        "call")

    def __call__(self, item):
        try:
            return self.function(item)
        except RdbError as exc:
            raise exc.with_path(item_name(item)) from None
        except RdbscopeError as exc:
            name = item_name(item)
            if name not in str(exc):
                exc.args = (f"{name}: {exc}",)
            raise
        except OSError as exc:
            raise input_error(item, exc) from None


def connect(address, timeout=CONNECT_TIMEOUT_S):
    """A ``dask.distributed.Client`` of the scheduler at ``address`` (``tcp://HOST:PORT``), once
    the scheduler has a worker. Use it as a context manager (``with connect(address) as client:``),
    or close it when done.

    A malformed address fails before anything is opened, a port nothing listens on as soon as the
    connection is refused, and one that answers but is not a scheduler within KNOCK_TIMEOUT_S: Dask's
    client is made only where a scheduler greets, so none is left half-made to close itself (and
    hang) when it is collected.

    Raises:
        InputError: dask is not installed; ``address`` is not an address; no
            scheduler answered there (what answered is not one), or it had no
            worker, within ``timeout`` seconds.
    """
    host, port = scheduler_host_port(address)
    distributed = import_extra("distributed", "--dask")
    _knock(address, host, port, min(timeout, KNOCK_TIMEOUT_S))
    failure = None
    try:
        client = distributed.Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError):  # it took the connection but did not answer as a scheduler
        failure = f"no Dask scheduler answered at {address} within {timeout:g} s"
    except ImportError as exc:  # the scheduler refused this client's versions of its packages
        failure = f"the Dask scheduler at {address} refused this client: {exc}"
    if failure:  # raised out here: as the context of an error, the half-made client would outlive the run
        raise InputError(failure)
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        client.close()
        raise InputError(f"the Dask scheduler at {address} has no worker "
                         f"(waited {timeout:g} s; start one with `dask worker {address}`)") from None
    except BaseException:
        client.close()
        raise
    return client


def scheduler_host_port(address):
    """``(host, port)`` of a Dask scheduler address: ``tcp://HOST:PORT``, or ``HOST:PORT`` (TCP to
    Dask too), an IPv6 host in brackets. Checked here, without importing dask.

    Raises:
        InputError: ``address`` is not one.
    """
    scheme, sep, location = address.rpartition("://")
    host, colon, port = location.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        host = ""  # an IPv6 address without its brackets: where its port starts is a guess
    if sep and scheme != "tcp":
        why = f"the scheme is {scheme}://, not tcp://"
    elif not (colon and port.isascii() and port.isdigit() and 0 < int(port) < 65536):
        why = "no port from 1 to 65535 after the last ':'"
    elif not host or any(c.isspace() or c in "/[]@" for c in host):
        why = "no host name before the port (an IPv6 address goes in brackets)"
    else:
        return host, int(port)
    raise InputError(f"{address!r} is not a Dask scheduler address (tcp://HOST:PORT): {why}")


def _knock(address, host, port, timeout):
    """Connect to the scheduler's port and read the first bytes of its greeting, then hang up.

    A refused connection is known at once, where Dask's client would retry until its timeout; and
    a server that is not a Dask scheduler (a mistyped port: Redis, a web server) is told within
    ``timeout``, where Dask's client would wait for its greeting for ever (distributed reads the
    handshake without a timeout)."""
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except socket.gaierror:
        raise InputError(f"no Dask scheduler at {address}: no host is named {host}") from None
    except TimeoutError:
        raise InputError(f"no Dask scheduler answered at {address} within {timeout:g} s") from None
    except OSError as exc:
        raise InputError(f"no Dask scheduler answered at {address}: {exc.strerror or exc}") from None
    with sock:
        try:
            greeting = _first_bytes(sock, 8)
        except OSError:  # a timeout, or a reset
            greeting = b""
    # a Dask server speaks first: its handshake, after 8 bytes of its length, little-endian
    # (distributed/comm/tcp.py, TCP.read); a handshake is a small dict
    if len(greeting) < 8 or not 0 < int.from_bytes(greeting, "little") <= GREETING_MAX_BYTES:
        raise InputError(f"{address} took the connection but is not a Dask scheduler "
                         f"(no Dask greeting within {timeout:g} s)")


def _first_bytes(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            break
        data += chunk
    return data


def load_on(client, paths, **scan_options):
    """The :class:`~rdbscope.KeyTable` of each of ``paths``, each read by a worker of the Dask ``client``
    (at the absolute path the client sees; the progress callback stays here).

    Raises:
        InputError: standard input, which is this process's: the workers cannot read it.
    """
    from ..keys import load_one
    from ..sources import STDIN, is_local

    if STDIN in paths:
        raise InputError("standard input (-) is this process's: Dask workers cannot read it")
    options = {name: value for name, value in scan_options.items() if name != "on_progress"}
    return map_sources(functools.partial(load_one, **options),
                       [os.path.abspath(path) if is_local(path) else path for path in paths], client=client)
