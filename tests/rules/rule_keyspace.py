"""Build KeyTables for rule tests from short key specs, and run rules on them.

A key spec is a key name, or a mapping with ``key`` and any of ``type``,
``encoding``, ``n_elements``, ``max_element_bytes``, ``est_memory_bytes``,
``rdb_bytes``, ``ttl_s``, ``db`` and ``count``. With ``count``, ``$i`` in the
key becomes 0, 1, … (``{`` and ``}`` stay free for hash tags).
"""

import pyarrow as pa

from rdbscope import lint
from rdbscope.config import Config, config_from_mapping
from rdbscope.keys import KeyTable
from rdbscope.keyspace.columns import KeyColumns
from rdbscope.passes.pattern_groups import group_by_pattern
from rdbscope.rdb import KEYS_SCHEMA, DumpInfo
from rdbscope.rdb.format import ENCODING_NAMES, TYPE_NAMES
from rdbscope.rdb.memory import LAYOUTS, MemoryModelInfo, choose_layout
from rdbscope.rules import BY_CODE, RuleContext, RuleSettings
from rdbscope.rules.rules_pass import several_sources

CTIME_S = 1_893_456_000  # 2030-01-01T00:00:00Z
DEFAULT_ENCODING = {"string": "raw", "list": "quicklist", "set": "hashtable", "zset": "skiplist",
                    "hash": "hashtable", "stream": "stream", "module": "raw"}


def expand(specs):
    """Key specs -> one dict per key with every column of the keys table."""
    rows = []
    for spec in specs:
        spec = {"key": spec} if isinstance(spec, (str, bytes)) else dict(spec)
        count = spec.pop("count", None)
        names = [spec["key"]] if count is None else [spec["key"].replace("$i", str(i)) for i in range(count)]
        for name in names:
            rows.append(_row(name, **{k: v for k, v in spec.items() if k != "key"}))
    return rows


def _row(name, type="string", *, db=0, encoding=None, n_elements=None, max_element_bytes=None,
         est_memory_bytes=None, rdb_bytes=None, ttl_s=None):
    key = name.encode() if isinstance(name, str) else bytes(name)
    return {
        "db": db, "key": key, "type": type, "encoding": encoding or DEFAULT_ENCODING[type],
        "expire_at": None if ttl_s is None else (CTIME_S + ttl_s) * 1000,
        "rdb_bytes": rdb_bytes if rdb_bytes is not None else 20 + len(key),
        "n_elements": n_elements if n_elements is not None else 8,
        "max_element_bytes": max_element_bytes if max_element_bytes is not None else 8,
        "est_memory_bytes": est_memory_bytes if est_memory_bytes is not None else 64 + len(key),
        "lfu_freq": None, "idle_s": None, "offset": 0, "module_name": None,
        "n_fields_with_ttl": 0 if type == "hash" else None, "est_memory_fallback": False,
    }


def key_table(specs, *, writer="7.2.4", aux=None, slot_info=(), list_compress_depth=None):
    """A :class:`KeyTable` of the key specs, as if written by Redis ``writer``.

    ``list_compress_depth`` describes the memory model as a scan told so would.
    """
    rows = expand(specs)
    columns = {}
    for field in KEYS_SCHEMA:
        values = [r[field.name] for r in rows]
        if field.name in ("type", "encoding"):
            names = list(TYPE_NAMES if field.name == "type" else ENCODING_NAMES)
            columns[field.name] = pa.DictionaryArray.from_arrays(
                pa.array([names.index(v) for v in values], field.type.index_type), pa.array(names, pa.string()))
        else:
            columns[field.name] = pa.array(values, field.type)
    table = pa.Table.from_pydict(columns, schema=KEYS_SCHEMA)
    info = DumpInfo(magic="REDIS", rdb_version=11, aux={"redis-ver": writer, "ctime": str(CTIME_S), **(aux or {})},
                    slot_info=[tuple(s) for s in slot_info])
    if list_compress_depth is not None:
        layout, _exact = choose_layout(0, int(writer.split(".")[0]) * 100 + int(writer.split(".")[1]))
        name, servers = LAYOUTS[layout]
        info.memory_model = MemoryModelInfo(name, servers, "jemalloc", list_compress_depth, True, True)
    return KeyTable(table, info)


def config_for(code=None, options=None, **top):
    """A Config selecting ``code`` alone (opt-in or not), with ``options`` for it."""
    table = dict(top)
    if code is not None:
        table.setdefault("select", [code])
        if options:
            table["rules"] = {code: options}
    return config_from_mapping(table) if table else Config()


def run_rule(code, keys, options=None):
    """The findings of one rule that `lint` reports of a KeyTable, in (db, pattern, message) order."""
    settings = RuleSettings.from_config(config_for(code, options))
    assert settings.codes == (code,), settings.codes
    findings = [f for f in lint(keys, config_for(code, options)).finding_list if f.code == code]
    assert all(f.code == code and f.name == BY_CODE[code].name for f in findings)
    return sorted(findings, key=lambda f: (f.db if f.db is not None else -1, f.pattern or "", f.message))


def lint_codes(keys, config=None):
    """``{(code, pattern)}`` of every finding ``lint`` reports."""
    return {(f.code, f.pattern) for f in lint(keys, config).finding_list}


def rule_context(keys):
    """The :class:`RuleContext` of every key of ``keys`` in one chunk: patterns inferred and grouped, not
    measured (what rules read of a chunk's keys)."""
    columns = KeyColumns(keys.to_arrow(), keys.info)
    _patterns, groups = group_by_pattern(columns)
    return RuleContext(columns, groups, keys.info, sources=several_sources(keys))
