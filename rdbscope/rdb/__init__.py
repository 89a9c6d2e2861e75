"""The binary format and nothing else: ``scan()`` a dump into Arrow batches.

``IMPLEMENTATION`` says which scanner runs: ``"cython"`` (the compiled build of
``_scan.py``) or ``"python"`` (the same source, interpreted). Set
``RDBSCOPE_PUREPYTHON=1`` to force the interpreted one.
"""


import os
from collections.abc import Generator, Iterator

import pyarrow as pa

from ..compiled import compiled_module, pure_python_forced, python_module
from ..errors import InputError, RdbError, RdbTruncatedError
from . import _mapguard
from .batches import build_batch
from .dump_info import DumpInfo
from .format import TYPE_NAMES
from .keyglob import glob_matcher
from .memory import ALLOCATORS, model_factory, model_info, parse_server_version
from .replication import is_server_url, public_name, url_db
from .schema import KEYS_SCHEMA
from .source import Source


def _load_python_scanner():
    """The scanner source run as Python, even where the compiled module exists."""
    return python_module("rdb._scan")


def _load_compiled_scanner():
    """The Cython build of the scanner, or None when it was not built."""
    return compiled_module("rdb._scan")


def implementations() -> dict:
    """The scanner implementations available here: {"cython": module, "python": module}."""
    found = {"python": _load_python_scanner()}
    compiled = _load_compiled_scanner()
    if compiled is not None:
        found["cython"] = compiled
    return found


if pure_python_forced() or _load_compiled_scanner() is None:
    _scan, IMPLEMENTATION = _load_python_scanner(), "python"
else:
    _scan, IMPLEMENTATION = _load_compiled_scanner(), "cython"

__all__ = ["scan", "Scan", "ReadPast", "DumpInfo", "KEYS_SCHEMA", "IMPLEMENTATION", "implementations", "keys_at"]

DEFAULT_BATCH_ROWS = 65536


class Scan:
    """An iterator of ``pyarrow.RecordBatch`` over a dump, plus what it learned.

    Iterate it to get batches of :data:`KEYS_SCHEMA`. ``info`` (a
    :class:`DumpInfo`) is complete once the iteration ends; the header fields
    (magic, version) are there from the first batch.
    """

    def __init__(self, source, *, db=None, types=None, key_glob=None, batch_rows=DEFAULT_BATCH_ROWS,
                 verify_crc=True, on_error="raise", on_progress=None, relaxed_version=False,
                 implementation=None, allocator=None, list_compress_depth=0, estimate_memory=True,
                 contiguous=False, save_dump=None, timeout=None, layout=None, read_past=None,
                 server_version=None) -> None:
        for name, given in (("save_dump (--save-dump)", save_dump), ("timeout (--timeout)", timeout)):
            if given is not None and not is_server_url(source):
                raise InputError(f"{name} applies to a running server's URL (redis://, rediss://, unix://) only")
        if timeout is not None and not timeout > 0:
            raise ValueError("timeout must be a positive number of seconds")
        if on_error not in ("raise", "stop"):
            raise ValueError("on_error must be 'raise' or 'stop'")
        if batch_rows < 1:
            raise ValueError("batch_rows must be positive")
        self._source_arg = source
        self._save_dump = save_dump
        self._timeout = timeout
        self._db = None if db is None else frozenset([db] if isinstance(db, int) else db)
        if is_server_url(source):
            self._db = _with_url_db(source, self._db)
        self._types = _type_indices(types)
        self._key_filter = _key_matcher(key_glob)
        self._batch_rows = batch_rows
        self._contiguous = contiguous
        self._verify_crc = verify_crc
        self._on_error = on_error
        self._on_progress = on_progress
        self._relaxed_version = relaxed_version
        if implementation is None:
            self._module = _scan
        else:
            available = implementations()
            if implementation not in available:
                raise ValueError(f"scanner implementation {implementation!r} is not available here")
            self._module = available[implementation]
        self._allocator_given = allocator is not None
        allocator = "jemalloc" if allocator is None else allocator
        if allocator not in ALLOCATORS:
            raise ValueError(f"unknown allocator {allocator!r}; expected one of {', '.join(ALLOCATORS)}")
        self._estimate_memory = estimate_memory
        self._read_past = read_past
        self._allocator = allocator
        self._list_compress_depth = list_compress_depth
        self._layout = layout
        self._named_version = 0 if server_version is None else parse_server_version(server_version)
        self._memory_model_for = model_factory(allocator, list_compress_depth, layout=layout,
                                               pure=self._module is not _load_compiled_scanner())
        self.info = DumpInfo()
        self._iter: Generator[pa.RecordBatch, None, None] | None = None

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        if self._iter is None:
            self._iter = self._run()
        return self._iter

    def close(self) -> None:
        """Stop a scan before its end: its helper threads stop and its input closes."""
        if self._iter is not None:
            self._iter.close()

    def _run(self):
        with Source(self._source_arg, save_dump=self._save_dump, timeout=self._timeout) as src:
            self.info.path = src.name
            self.info.compression = src.compression
            # The compiled scanner reads a plain dump file mapped in memory, without copies,
            # where a truncation of the file under the scan can be caught (_mapguard).
            whole = src.mapped() if self._module is _load_compiled_scanner() else None
            slot = _mapguard.guard(whole) if whole is not None else -1
            if slot < 0:
                whole = None
            scanner = self._module.Scanner(src.stream, self._batch_rows, self._verify_crc,
                                           self._relaxed_version, self._memory_model_for, whole,
                                           self._contiguous)
            scanner.want_db = self._db
            scanner.named_version = self._named_version
            scanner.want_types = self._types
            scanner.key_filter = self._key_filter
            batches = 0
            self._plan_batch(scanner, batches)
            size = src.size if src.compression is None else None  # a plain file's, to see it shrink
            try:
                scanner.read_header()
                _raise_if_shrunk(src, slot, size)
                self.info.update_from(scanner)
                while not scanner.done:
                    scanner.scan_batch()
                    _raise_if_shrunk(src, slot, size)
                    self.info.update_from(scanner)
                    if self._on_progress is not None:
                        self._on_progress(src.position() or scanner.bytes_read(), src.size)
                    if scanner.rows and (scanner.full or scanner.done):
                        yield self._batch(scanner)
                        scanner.new_batch()
                        batches += 1
                        self._plan_batch(scanner, batches)
            except RdbError as exc:
                error = _shrunk(src, slot, size) or exc
                if error is not exc:  # what was read past the cut is not the dump's
                    scanner.keep_rows_before(error.offset)
                error.with_path(src.name)
                if self._on_error == "raise" or scanner.version == 0:
                    raise error from None
                self.info.stopped_by = error
                self.info.truncated_at = error.offset
                if scanner.rows:  # the keys of the batch the damage cut short
                    yield self._batch(scanner)
            finally:
                scanner.close()
                _mapguard.release(slot)
                self.info.update_from(scanner)
                if self._estimate_memory:
                    self.info.memory_model = model_info(scanner, self._allocator, self._list_compress_depth,
                                                           self._layout, self._allocator_given)


    def _plan_batch(self, scanner, batch):
        scanner.reading_past = self._read_past is not None and self._read_past(batch, scanner.bytes_read())
        scanner.estimating = self._estimate_memory and not scanner.reading_past

    @staticmethod
    def _batch(scanner):
        return ReadPast(scanner.rows) if scanner.reading_past else build_batch(scanner, scanner.rows)


class ReadPast:
    """What a scan yields for a batch it only read past (see ``read_past``): its number of rows."""

    __slots__ = ("num_rows",)

    def __init__(self, num_rows):
        self.num_rows = num_rows

    def __repr__(self):
        return f"ReadPast({self.num_rows})"


def _raise_if_shrunk(src, slot, size):
    error = _shrunk(src, slot, size)
    if error is not None:
        raise error


def _shrunk(src, slot, size):
    """The error for a dump file of ``size`` bytes that another process truncated under the scan, or None.

    A mapped dump's guard (``slot``) says where the scan found its pages gone; the
    file's size now says where it ends, whichever build reads it.
    """
    if size is None:
        return None
    at = _mapguard.cut(slot)
    now = src.current_size()
    if at < 0 and (now is None or now >= size):
        return None
    if at < 0 or (now is not None and now < at):
        at = now
    return RdbTruncatedError("dump ends early: the file was truncated during the scan", at, context="file")


def _with_url_db(url, dbs):
    """``dbs`` (the db option) narrowed to the db the server's URL names, if it names one.

    Raises:
        InputError: the URL names a db that ``dbs`` leaves out.
    """
    named = url_db(url)
    if named is None:
        return dbs
    if dbs is not None and named not in dbs:
        asked = ", ".join(map(str, sorted(dbs)))
        raise InputError(f"{public_name(url)}: the URL selects db {named} but --db (db=) asks for {asked}: "
                         "give one of them")
    return frozenset([named])


def scan(source, **options) -> Scan:
    """Scan a dump into ``pyarrow.RecordBatch``es of :data:`KEYS_SCHEMA`.

    Args:
        source: a path, or a binary file object; gzip, zstd, lz4, bz2 and xz
            compressed dumps are decompressed as a stream. A live server's URL
            (``redis://[user:password@]host:port``, ``rediss://…``,
            ``unix:///path/to.sock``) is read as a replica reads it (SYNC), as
            the snapshot streams in; the password may also come from
            ``REDISCLI_AUTH`` and is left out of ``info.path`` and errors.
        db: keep only this database number (or any of an iterable of them). A live server's URL
            that names a db (``redis://host:6379/2``, ``?db=2``) keeps that db's keys.
        types: keep only these types ("string", "hash", ...).
        key_glob: keep only keys matching this glob (Redis KEYS syntax).
        batch_rows: rows per batch (default 65536).
        verify_crc: check the CRC64 trailer (default True).
        on_error: "raise" (default) or "stop": keep the keys read before the
            damage and record where it stopped in ``info``.
        on_progress: called as ``on_progress(bytes_done, bytes_total)`` once per batch.
        relaxed_version: read versions newer than the known ones with the newest rules.
        implementation: "cython" or "python" to pick a scanner; default: the
            compiled one unless RDBSCOPE_PUREPYTHON is set.
        allocator: the allocator of the server the estimates are for:
            "jemalloc" (Redis's and Valkey's own builds), "jemalloc-16"
            (distribution packages such as Debian's) or "libc". A dump does not
            record it; when not given, jemalloc is assumed and
            ``info.memory_model`` says so.
        layout: the server layout the estimates follow, a name of
            ``rdbscope.rdb.memory.LAYOUTS`` ("redis-8.6", "valkey-8", ...);
            default: the one the dump's ``redis-ver``/``valkey-ver`` implies.
        server_version: the release ("8.4", "7.4") an unstable build (``redis-ver``
            or ``valkey-ver`` 255.255.255) corresponds to: its layout and string
            encodings are then that release's; without it they are guessed from
            the RDB version (``info.memory_model.layout_guessed``). A dump that
            names its release keeps it.
        list_compress_depth: the server's list-compress-depth (default 0),
            which decides the memory of list nodes.
        estimate_memory: fill ``est_memory_bytes`` (default True); False
            leaves it null and saves the model's share of the scan.
        read_past: ``f(i, offset) -> bool``: the batches ``i`` (from 0; ``offset``: where in the
            dump it starts) it is True for are only read past: yielded as a :class:`ReadPast` holding
            their number of rows, not built, not estimated, their buffers used again; a process that
            measures part of a dump reads the rest at a fraction of the cost.
        contiguous: make each batch as large as the database it reads
            (from the dump's RESIZEDB counts) instead of ``batch_rows``, so
            a whole-dump table comes in one chunk or a few; what ``load()``
            uses. ``batch_rows`` then only spaces the ``on_progress`` calls.
        save_dump: for a live server, also write the snapshot to this path
            (under a temporary name, renamed once it has arrived whole).
        timeout: for a live server, the seconds to wait for the connection and, after it, for
            each reply and each part of the snapshot (default 5 s to connect, then 60 s: a server
            writing a large dump to disk first may be silent for long).

    Returns:
        A :class:`Scan`: iterate it for batches; its ``info`` holds the metadata.

    Raises:
        RdbFormatError, RdbTruncatedError, RdbUnsupportedError: the dump is
        damaged or uses something rdbscope does not read (with on_error="raise");
        RdbTruncatedError also when a live server's connection ends mid-snapshot.
        InputError: a live server cannot be reached, rejects the password or refuses SYNC.
    """
    return Scan(source, **options)


def keys_at(path, offsets, implementation=None) -> dict:
    """``{offset: key}`` (bytes) of the entries of a plain (uncompressed) dump file that start at
    ``offsets`` (values of its ``offset`` column): a few keys read again, not kept from the scan.
    ``implementation``: as for :func:`scan`.

    Raises:
        RdbError: the file is not a dump, or no entry starts at one of ``offsets`` (naming ``path``).
    """
    module = _scan if implementation is None else implementations()[implementation]
    found: dict = {}
    with open(path, "rb") as file:
        scanner = module.Scanner(file, 1, False, False)
        try:
            scanner.read_header()
            for offset in sorted(set(int(o) for o in offsets)):
                found[offset] = scanner.key_of_entry(offset)
        except RdbError as error:
            raise error.with_path(os.fspath(path)) from None
        finally:
            scanner.close()
    return found


def _type_indices(types):
    if types is None:
        return None
    if isinstance(types, str):
        types = [types]
    out = set()
    for t in types:
        if t not in TYPE_NAMES:
            raise ValueError(f"unknown type {t!r}; expected one of {', '.join(TYPE_NAMES)}")
        out.add(TYPE_NAMES.index(t))
    return frozenset(out)


def _key_matcher(glob):
    return None if glob is None else glob_matcher(glob)
