"""Several dumps read as one keyspace: which files an input names, and each dump's summary.

A cluster's dumps (or any set of dumps) are loaded one by one and joined; the
figures the per-node table and the cluster rules need are taken from each dump
on its own, as a :class:`SourceSummary`, small enough for a worker to return
in place of its keys.

An input is a local path, ``-`` (standard input, read once as a stream), a URL
that fsspec opens (``s3://``, ``gs://``, ``az://``, ``https://``, ``file://``; its
backend comes with an extra, and a missing one is named), or a live server's
URL (``redis://``, ``rediss://``, ``unix://``), passed on as it is to the scanner.
"""

import contextlib
import dataclasses
import glob
import importlib
import os
import re
import sys
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .errors import InputError
from .rdb.cluster import N_SLOTS, key_slots
from .rdb.replication import is_server_url, public_name
from .summary import estimate_memory

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+://")

#: The extra that brings each fsspec scheme's backend.
EXTRAS = {"s3": "s3", "s3a": "s3", "gs": "gcs", "gcs": "gcs", "az": "azure", "abfs": "azure", "abfss": "azure",
          "adl": "azure", "http": "http", "https": "http"}

#: What botocore (s3fs's client) is told: an endpoint that does not answer fails within seconds, not after
#: its default retries (five attempts, ten seconds and more), and one that takes the connection and never
#: answers within about a minute (with its 60 s read timeout, tried by botocore and by s3fs: 2.6 min); a user's own
#: config_kwargs for s3 win.
S3_CLIENT_CONFIG = {"connect_timeout": 3, "read_timeout": 5, "retries": {"total_max_attempts": 2, "mode": "standard"}}

#: What names standard input where a dump is expected.
STDIN = "-"
#: What messages and reports call standard input (the name Python gives it).
STDIN_NAME = "<stdin>"

#: Names of the dumps a directory holds: a dump, or a compressed backup of one.
DUMP_SUFFIXES = (".rdb", ".rdb.gz", ".rdb.zst", ".rdb.lz4", ".rdb.bz2", ".rdb.xz")

#: The column a keys table of several dumps gets: which dump each key came from.
SOURCE_FIELD = pa.field(
    "source", pa.dictionary(pa.int16(), pa.string()), nullable=False,
    metadata={"doc": "the dump (path as given) the key was read from; only in a table of several dumps"})


@dataclass(frozen=True)
class SourceSummary:
    """What one dump of several contributes, summed over its keys.

    Attributes:
        path: the dump's path as given.
        info: its :class:`~rdbscope.rdb.DumpInfo`.
        n_keys, n_with_ttl: keys; keys with a TTL.
        rdb_bytes: bytes of its key entries.
        est_memory_bytes: estimated memory of its keys (``rdb_bytes`` for keys without an estimate).
        dbs: the databases its keys are in.
        slot_keys: keys per hash slot (16384 int64).
        slot_memory: estimated memory per hash slot (16384 float64).
        est_total_memory_bytes: estimated memory of its keys and key tables (its
            own memory model); None without one.
        used_mem_bytes: its writer's ``used-mem`` AUX field, or None.
    """

    path: str
    info: object
    n_keys: int
    n_with_ttl: int
    rdb_bytes: int
    est_memory_bytes: int
    dbs: tuple
    slot_keys: np.ndarray
    slot_memory: np.ndarray
    est_total_memory_bytes: int | None = None
    used_mem_bytes: int | None = None

    def memory_bytes(self, basis):
        """Memory of the dump's keys in ``basis`` (``est_memory_bytes`` or ``rdb_bytes``)."""
        return self.rdb_bytes if basis == "rdb_bytes" else self.est_memory_bytes


def summarize_source(path, keys):
    """The :class:`SourceSummary` of one dump's :class:`~rdbscope.KeyTable`."""
    table, info = keys.to_arrow(), keys.info
    estimate = estimate_memory(keys)
    memory = pc.coalesce(table["est_memory_bytes"], table["rdb_bytes"]) if table.num_rows else table["rdb_bytes"]
    slots = key_slots(table["key"])
    slot_numbers = np.concatenate([c.to_numpy(zero_copy_only=False) for c in slots.chunks]) \
        if slots.num_chunks else np.zeros(0, np.uint16)
    memory_values = np.asarray(memory.to_numpy(), np.float64) if table.num_rows else np.zeros(0)
    return SourceSummary(
        path=str(path),
        info=info,
        n_keys=table.num_rows,
        n_with_ttl=table.num_rows - table["expire_at"].null_count,
        rdb_bytes=int(pc.sum(table["rdb_bytes"]).as_py() or 0),
        est_memory_bytes=int(pc.sum(memory).as_py() or 0),
        dbs=tuple(sorted(pc.unique(table["db"]).to_pylist())),
        slot_keys=np.bincount(slot_numbers, minlength=N_SLOTS).astype(np.int64),
        slot_memory=np.bincount(slot_numbers, weights=memory_values, minlength=N_SLOTS),
        est_total_memory_bytes=estimate.total_bytes if estimate.model else None,
        used_mem_bytes=estimate.used_mem_bytes,
    )


def add_summaries(a, b):
    """The summary of two parts of one dump (its chunks): counts and sums added."""
    return dataclasses.replace(
        a, n_keys=a.n_keys + b.n_keys, n_with_ttl=a.n_with_ttl + b.n_with_ttl, rdb_bytes=a.rdb_bytes + b.rdb_bytes,
        est_memory_bytes=a.est_memory_bytes + b.est_memory_bytes, dbs=tuple(sorted(set(a.dbs) | set(b.dbs))),
        slot_keys=a.slot_keys + b.slot_keys, slot_memory=a.slot_memory + b.slot_memory)


def check_one_cluster(summaries):
    """Refuse dumps that cannot be the nodes of one cluster (a directory of one server's daily backups, a
    master and its replica): a cluster's nodes hold db 0 only, and each hash slot on one node. Two dumps
    holding keys of one slot (any key they share is one) are not two nodes.

    Reads the :class:`SourceSummary` of each dump: its slot counts (16384 per dump, never the keys).

    Raises:
        InputError: which dumps, and what they share; it names ``diff``/``trend``, which compare such
            dumps, and ``--combine`` (``combine=True``), which reads them as one keyspace anyway.
    """
    if len(summaries) < 2:
        return
    advice = ("compare them with 'rdbscope diff' or 'rdbscope trend', or give --combine (combine=True) to read "
              "them as one keyspace anyway")
    for summary in summaries:
        other_dbs = [db for db in summary.dbs if db != 0]
        if other_dbs:
            said = ", ".join(map(str, other_dbs))
            raise InputError(f"{summary.path}: keys in db {said}, and a cluster's nodes hold db 0 only: "
                             f"these {len(summaries)} dumps are not the nodes of one cluster; {advice}")
    owner = np.full(N_SLOTS, -1, np.int32)  # which dump holds keys of each slot
    for i, summary in enumerate(summaries):
        occupied = summary.slot_keys > 0
        taken = occupied & (owner >= 0)
        if taken.any():
            first = int(owner[np.flatnonzero(taken)[0]])
            shared = int(np.count_nonzero(taken & (owner == first)))
            raise InputError(f"{summaries[first].path} and {summary.path} both hold keys of {shared:,} hash "
                             f"slot{'s' if shared != 1 else ''}: not two nodes of one cluster (dumps of one "
                             f"server at two times, or a master and its replica?); {advice}")
        owner[occupied] = i


def source_column(lengths, paths):
    """The ``source`` column of tables of ``lengths`` rows read from ``paths``: one chunk per dump,
    all sharing one dictionary of the paths."""
    dictionary = pa.array([str(p) for p in paths], pa.string())
    chunks = [pa.DictionaryArray.from_arrays(pa.array(np.full(n, i, np.int16), pa.int16()), dictionary)
              for i, n in enumerate(lengths)]
    return pa.chunked_array(chunks, SOURCE_FIELD.type)


def input_paths(source):
    """The files a source names: a list of them (each expanded), a directory (its dumps, by name),
    a glob (``node-*.rdb``, matched here) or one file; ``-`` (standard input) and a live server's
    URL (``redis://``…) as they are; an fsspec URL, or the URLs its glob matches (``s3://b/nodes/*.rdb``).

    Raises:
        InputError: a path that does not exist, a directory without dumps, a glob matching nothing,
            standard input named twice, or more dumps than a ``source`` column can name.
    """
    if isinstance(source, (list, tuple)):
        paths = [path for one in source for path in input_paths(one)]
        if not paths:
            raise InputError("no dumps given")
    else:
        paths = _expand(os.fspath(source))
    if paths.count(STDIN) > 1:
        raise InputError("standard input (-) can be read only once")
    if len(paths) > np.iinfo(np.int16).max:
        raise InputError(f"{len(paths)} dumps: at most {np.iinfo(np.int16).max} can be read as one keyspace")
    return paths


def _expand(path):
    if path == STDIN or is_live(path):
        return [path]
    if is_url(path):
        return expand_url(path)
    if os.path.isdir(path):
        found = sorted(os.path.join(path, name) for name in os.listdir(path)
                       if name.endswith(DUMP_SUFFIXES) and os.path.isfile(os.path.join(path, name)))
        if not found:
            raise InputError(f"{path}: a directory without dumps (*.rdb, or *.rdb.gz/.zst/.lz4/.bz2/.xz)")
        return found
    if os.path.exists(path):
        return [check_dump(path)]
    if glob.has_magic(path):
        found = sorted(p for p in glob.glob(path) if os.path.isfile(p))
        if not found:
            raise InputError(f"{path}: no file matches")
        return found
    raise InputError(f"{path}: no such file")


def check_dump(path):
    """``path``, when it names one dump a command can read: ``-``, a URL, or a readable file.

    Raises:
        InputError: no such file, a directory, or a file this user cannot read.
    """
    path = os.fspath(path)
    if path == STDIN or is_url(path) or is_live(path):
        return path
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file")
    if os.path.isdir(path):
        raise InputError(f"{path}: a directory, not a dump")
    if not os.access(path, os.R_OK):
        raise InputError(f"{path}: permission denied")
    return path


def size_and_head(item):
    """``(bytes, the first 5 bytes)`` of a dump file or an fsspec URL's object, or None when its size is
    not known before it is read (standard input, a live server, a store that gives no size).

    Raises:
        InputError: the file or object cannot be read.
    """
    if item == STDIN or is_live(item):
        return None
    if not is_url(item):
        with open(item, "rb") as f:
            return os.fstat(f.fileno()).st_size, f.read(5)
    fs, path = open_url_fs(item)
    try:
        size = fs.size(path)
        if size is None:
            return None
        with fs.open(path, "rb") as f:
            return size, f.read(5)
    except storage_errors() as exc:
        raise url_error(item, exc) from None


def item_name(item):
    """How an error names an item: a path or URL as given."""
    return os.fspath(item) if isinstance(item, (str, os.PathLike)) else str(item)


def input_error(item, exc):
    """The :class:`InputError` of an item that could not be opened or read (``exc``, an OSError or
    ImportError), in one line: ``node-b.rdb: No such file or directory``."""
    said = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return InputError(f"{item_name(item)}: {said}")


def is_url(item):
    """True for a URL with a scheme (``s3://bucket/dump.rdb``, ``file:///srv/dump.rdb``), which fsspec opens,
    and not a live server's (``redis://``, ``rediss://``, ``unix://``)."""
    return isinstance(item, str) and _URL.match(item) is not None and not is_live(item)


def is_live(item):
    """True for a live server's URL (``redis://host:port``, ``rediss://…``, ``unix:///path/redis.sock``)."""
    return is_server_url(item)


def without_password(item):
    """An input as given, except standard input (``<stdin>``) and a live server's URL, whose password is left
    out (it must never be shown)."""
    if item == STDIN:
        return STDIN_NAME
    return public_name(item) if is_live(item) else str(item)


def shown_name(item):
    """What a message calls an input: a file's name, a URL as given, a live server's URL without its
    password."""
    return os.path.basename(str(item)) if is_local(item) else without_password(item)


def is_local(item):
    """True for a path of this machine's file system: not standard input, an fsspec URL or a live server."""
    return not (item == STDIN or is_url(item) or is_live(item))


@contextlib.contextmanager
def opened(item):
    """What :func:`rdbscope.scan` reads for ``item``: standard input's bytes for ``-``, a file object
    opened with fsspec for a URL (closed after), else ``item`` itself."""
    if item == STDIN:
        if sys.stdin.isatty():  # waiting for a dump typed in would look like a hang
            raise InputError("- reads the dump from standard input, which is a terminal here: pipe a dump in")
        yield sys.stdin.buffer
    elif is_url(item):
        stream = open_dump(item)
        try:
            yield stream
        finally:
            stream.close()
    else:
        yield item


@contextlib.contextmanager
def scanning(source, **scan_options):
    """The :class:`~rdbscope.rdb.ScanResult` of ``source`` (a dump's path, ``-``, a URL or a running
    server), opened as :func:`opened` says: the one way in of every reader of dumps. A format error
    raised in the block names ``source`` as given; the scan is closed after, and its info names the
    URL it was read from.
    """
    from .rdb import RdbError, scan

    with opened(source) as readable:
        result = scan(readable, **scan_options)
        try:
            yield result
        except RdbError as exc:
            raise error_naming(exc, source) from None
        finally:
            result.close()
    name_by_url(result.info, source)


def error_naming(exc, item):
    """``exc`` (an RdbError) naming ``item`` as given: for a URL, the URL rather than the path fsspec's file
    object carries."""
    if is_url(item) or is_live(item):
        exc.path = None
    return exc.with_path(without_password(item) if isinstance(item, (str, os.PathLike)) else None)


def name_by_url(info, item):
    """Name a scan's DumpInfo by ``item`` where ``item`` is a URL: the file object fsspec opened names the
    object without its scheme."""
    if is_url(item):
        info.path = item


def open_dump(item):
    """What :func:`rdbscope.scan` reads for ``item``: the path itself, or for a URL a binary file
    object opened with fsspec (the caller closes it).

    Raises:
        InputError: fsspec is not installed, or does not know the URL's scheme
            (its message says which package would), or the file cannot be opened.
    """
    if not is_url(item):
        return item
    fsspec = import_extra("fsspec", f"reading {item}", _extra_of(item))
    try:
        return fsspec.open(item, "rb", **storage_options(item)).open()
    except storage_errors() as exc:
        raise url_error(item, exc) from None


def open_ranged(url, block_size):
    """A binary file object of an fsspec URL's object that fetches ``block_size`` bytes ahead of each read
    it cannot serve from the block fetched last, where the backend's own default (s3fs: 50 MiB) would take
    all of a smaller object for one value. The caller closes it.

    Raises:
        InputError: fsspec or the scheme's backend is not installed.
        OSError, or the storage client's errors (:func:`storage_errors`): the object cannot be opened.
    """
    fs, path = open_url_fs(url)
    return fs.open(path, "rb", block_size=block_size, cache_type="readahead")


def reread_failure(item, exc):
    """What a note says of a dump (a path or URL) that could not be read again after its scan, in one line:
    ``s3://b/dump.rdb could not be read again (no such file)``."""
    error = exc if isinstance(exc, InputError) else url_error(item, exc) if is_url(item) else input_error(item, exc)
    return f"{item} could not be read again ({str(error).removeprefix(f'{item_name(item)}: ')})"


def expand_url(url):
    """The dumps a URL names: the URL itself, or for a glob (``s3://bucket/nightly/*.rdb``) the
    URLs of the files it matches, in name order.

    Raises:
        InputError: fsspec, or the package of the URL's scheme, is not installed; a glob that
            matches nothing; no such file.
    """
    fsspec = import_extra("fsspec", f"reading {url}", _extra_of(url))
    try:
        fs, path = fsspec.core.url_to_fs(url, **storage_options(url))
        if glob.has_magic(path):
            found = sorted(fs.unstrip_protocol(p) for p in fs.glob(path) if fs.isfile(p))
        else:  # not fs.isfile, which takes any failure (no credentials, say) for "no such file"
            found = [url] if _is_file(fs, path) else []
    except storage_errors() as exc:
        raise url_error(url, exc) from None
    if not found:
        raise InputError(f"{url}: {'no file matches' if glob.has_magic(path) else 'no such file'}")
    return found


def _is_file(fs, path):
    try:
        return fs.info(path)["type"] == "file"
    except FileNotFoundError:
        return False


def storage_errors():
    """What reading or writing through fsspec may raise: OSError, ValueError and ImportError, and botocore's
    own errors (no credentials, an endpoint that does not answer, a refusal) once s3fs has loaded it."""
    errors = [OSError, ValueError, ImportError]
    botocore = sys.modules.get("botocore.exceptions")
    if botocore is not None:
        errors += [botocore.BotoCoreError, botocore.ClientError]
    return tuple(errors)


def storage_options(url):
    """The options fsspec opens ``url`` with: for s3://, botocore's timeouts (:data:`S3_CLIENT_CONFIG`)
    under the user's own."""
    if url.split("://", 1)[0].lower() not in ("s3", "s3a"):
        return {}
    import fsspec.config

    own = fsspec.config.conf.get("s3", {}).get("config_kwargs", {})
    return {"config_kwargs": {**S3_CLIENT_CONFIG, **own}}


def open_url_fs(url, doing="reading"):
    """``(file system, path)`` of an fsspec URL, to be read from or (``doing="writing"``) written to.

    Raises:
        InputError: fsspec or the URL scheme's backend is not installed (naming the extra to install,
            and ``doing`` what needs it).
    """
    fsspec = import_extra("fsspec", f"{doing} {url}", _extra_of(url))
    try:
        return fsspec.core.url_to_fs(url, **storage_options(url))
    except storage_errors() as exc:
        raise url_error(url, exc, doing) from None


def import_extra(module, needed_by, extra="dask"):
    """Import ``module``, part of the extra ``extra``, or say how to install it.

    Raises:
        InputError: ``--dask needs the dask extra: pip install "rdbscope[dask]"``
            (``needed_by`` is what needs it).
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError(f"{needed_by} needs the {extra} extra: {install(extra)}") from None


def install(extra):
    """The command that installs an extra: ``pip install "rdbscope[s3]"``."""
    return f'pip install "rdbscope[{extra}]"'


def _extra_of(url):
    """The extra whose packages read ``url``'s scheme (``s3`` for ``s3://``); ``dask`` brings fsspec alone."""
    return EXTRAS.get(url.split("://", 1)[0].lower(), "dask")


def url_error(url, exc, doing="reading"):
    """:func:`input_error` of a URL; a missing fsspec backend (an ImportError) names the extra to install, for
    ``doing`` (reading or writing) such URLs."""
    if isinstance(exc, ImportError) or "install" in str(exc).lower() and "protocol" in str(exc).lower():
        extra = _extra_of(url)
        return InputError(f"{url}: {doing} {url.split('://', 1)[0]}:// URLs needs the {extra} extra: {install(extra)}")
    if isinstance(exc, FileNotFoundError):  # fsspec's carry the object's path, not a reason
        return InputError(f"{url}: no such file")
    if type(exc).__name__ == "NoCredentialsError":  # botocore's
        return InputError(f"{url}: no credentials for {doing} it (set AWS_ACCESS_KEY_ID and "
                          "AWS_SECRET_ACCESS_KEY, or AWS_PROFILE)")
    if not isinstance(exc, (OSError, ValueError, ImportError)):  # the storage client's own, one line
        said = " ".join(str(exc).split())
        return InputError(f"{url}: {said[:1].lower() + said[1:]}")
    return input_error(url, exc)
