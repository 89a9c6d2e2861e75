"""What a dump says about itself, besides its keys."""

import dataclasses
import json
import re
from dataclasses import dataclass, field

from .format import module_type_name
from .memory import MemoryModelInfo

_LIBRARY_NAME = re.compile(rb"^#!\s*\w+\s+.*?\bname=([^\s]+)")
_FUNCTION_NAME = re.compile(
    rb"register_function\s*\(\s*['\"]([^'\"]+)['\"]|function_name\s*=\s*['\"]([^'\"]+)['\"]"
)


@dataclass
class FunctionLibrary:
    """A function library stored in the dump (Redis 7.0+ FUNCTION LOAD)."""

    name: str
    engine: str
    functions: list
    code_bytes: int


@dataclass
class DumpInfo:
    """Metadata of a dump: format, AUX fields, size hints, functions.

    Attributes:
        path: the file name, when the dump came from a file.
        compression: how the file was compressed, or None.
        magic: "REDIS" or "VALKEY".
        rdb_version: the RDB format version.
        aux: every AUX field, decoded as text (bytes escaped), in file order; a
            field written more than once (Valkey's ``slot-info``) keeps its last value.
        aux_fields: every AUX field as ``(name, value)`` pairs, repeats included.
        resizedb: ``{db: (keys, expires)}`` from RESIZEDB hints.
        slot_info: ``[(db, slot, keys, expires)]`` from SLOT_INFO opcodes.
        slot_imports: ``[(job name, [(first slot, last slot)])]`` (Valkey 9).
        functions: function libraries stored in the dump.
        module_aux: names of modules that stored auxiliary data.
        key_meta_entries: keys that carried Redis 8.6 KEY_META module metadata.
        checksum: the CRC64 stored in the trailer (0 when the writer had checksums off).
        checksum_verified: True when the trailer was checked and matched.
        end_offset: where the RDB data ended (after the checksum); bytes after
            it, if any, are not read.
        truncated_at / stopped_by: where and why a scan with on_error="stop" ended early.
        memory_model: the :class:`~rdbscope.rdb.memory.MemoryModelInfo` behind
            ``est_memory_bytes`` (None before the first key).
    """

    path: str | None = None
    compression: str | None = None
    magic: str | None = None
    rdb_version: int | None = None
    aux: dict = field(default_factory=dict)
    aux_fields: list = field(default_factory=list)
    resizedb: dict = field(default_factory=dict)
    slot_info: list = field(default_factory=list)
    slot_imports: list = field(default_factory=list)
    functions: list = field(default_factory=list)
    module_aux: list = field(default_factory=list)
    key_meta_entries: int = 0
    checksum: int | None = None
    checksum_verified: bool = False
    end_offset: int | None = None
    truncated_at: int | None = None
    stopped_by: Exception | None = None
    memory_model: MemoryModelInfo | None = None

    @property
    def writer(self) -> str | None:
        """"redis 7.0.15" / "valkey 8.1.1" from the AUX fields, or None."""
        if "valkey-ver" in self.aux:
            return f"valkey {self.aux['valkey-ver']}"
        if "redis-ver" in self.aux:
            return f"redis {self.aux['redis-ver']}"
        return None

    @property
    def complete(self) -> bool:
        """True when the scan reached the end of the dump."""
        return self.stopped_by is None

    def to_json(self) -> str:
        """The metadata a keys table needs to stand in for its dump, as JSON text.

        Stored in every Parquet file rdbscope writes (key ``rdbscope.dump``);
        :meth:`from_json` reads it back.
        """
        return json.dumps({
            "magic": self.magic,
            "rdb_version": self.rdb_version,
            "writer": self.writer,
            "compression": self.compression,
            "aux": self.aux,
            "resizedb": {str(db): list(sizes) for db, sizes in self.resizedb.items()},
            "functions": [{"name": f.name, "engine": f.engine, "functions": f.functions, "code_bytes": f.code_bytes}
                          for f in self.functions],
            "module_aux": self.module_aux,
            "checksum_verified": self.checksum_verified,
            "truncated_at": self.truncated_at,
            "memory_model": dataclasses.asdict(self.memory_model) if self.memory_model else None,
        })

    @classmethod
    def from_json(cls, text: str | bytes, path=None) -> "DumpInfo":
        """The :class:`DumpInfo` that :meth:`to_json` wrote; ``path`` names the file it came from."""
        meta = json.loads(text)
        model = meta.get("memory_model")
        return cls(
            path=str(path) if path is not None else None,
            compression=meta.get("compression"),
            magic=meta.get("magic"),
            rdb_version=meta.get("rdb_version"),
            aux=dict(meta.get("aux") or {}),
            resizedb={int(db): tuple(sizes) for db, sizes in (meta.get("resizedb") or {}).items()},
            functions=[FunctionLibrary(f["name"], f["engine"], list(f["functions"]), f.get("code_bytes"))
                       for f in meta.get("functions") or []],
            module_aux=list(meta.get("module_aux") or []),
            checksum_verified=bool(meta.get("checksum_verified")),
            truncated_at=meta.get("truncated_at"),
            memory_model=MemoryModelInfo(**model) if model else None,
        )

    def update_from(self, scanner) -> None:
        """Copy what the scanner has learned so far."""
        if scanner.version:
            self.magic = "VALKEY" if scanner.valkey else "REDIS"
            self.rdb_version = scanner.version
        self.aux_fields = [(_text(k), _text(v)) for k, v in scanner.aux]
        self.aux = dict(self.aux_fields)
        self.resizedb = {db: (keys, expires) for db, keys, expires in scanner.resizedb}
        self.slot_info = list(scanner.slot_info)
        self.slot_imports = [(_text(name), ranges) for name, ranges in scanner.slot_imports]
        if len(self.functions) != len(scanner.functions):
            self.functions = [_library(*f) for f in scanner.functions]
        self.module_aux = sorted({module_type_name(mid) for mid, _when in scanner.module_aux})
        self.key_meta_entries = scanner.key_meta_entries
        self.checksum = scanner.checksum
        self.checksum_verified = scanner.checksum_verified
        if scanner.done:
            self.end_offset = scanner.bytes_read()


def _text(b):
    return b.decode("utf-8", "backslashreplace")


def _library(name, engine, code):
    if name is None:
        match = _LIBRARY_NAME.match(code)
        name = match.group(1) if match else b""
        engine_match = re.match(rb"^#!\s*(\w+)", code)
        engine = engine_match.group(1) if engine_match else b""
    functions = sorted({(a or b).decode("utf-8", "backslashreplace") for a, b in _FUNCTION_NAME.findall(code)})
    return FunctionLibrary(_text(name), _text(engine).upper(), functions, len(code))
