"""The patterns pass: the pattern table and the namespace tree, over the pattern groups."""

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..keyspace.measures import MEASURE_DOCS
from ..libraries import recognize
from ..libraries.by_value import owners_with_values
from ..libraries.findings import CHECKS as LIBRARY_CHECKS
from ..libraries.findings import library_findings
from ..options import option, require_positive
from ..patterns import pattern_segments
from ..values.findings import CHECKS as SERIALIZATION_CHECKS
from ..values.findings import SerializationOptions, serialization_findings
from ..values.profile import describe
from .base import PassOutput

PATTERN_COLUMNS = {
    "db": "database number",
    "pattern": "the inferred pattern, e.g. user:{id}:profile",
    "library": "the library that writes such keys (Celery, RQ, BullMQ, ...); null for the application's own",
    "key_kind": "what such keys hold for their library (task result, job, session, ...); null without a library",
    "value_format": "the most common format of the sampled values (json, msgpack, pickle-5, php-serialize, "
                    "zstd, text, number, binary, ...), of a collection's elements; null when none was read",
    "element_format": "for collections, the most common format of their sampled elements (a hash whose field "
                      "values are JSON: json); null for strings",
    "value_bytes_typical": "median size in bytes of a sampled value (strings) or element (collections)",
    "value_zstd_ratio": "zstd-compressed size over size of the sampled values of at least 256 bytes; "
                        "null when none is that big",
    "values_sampled": "keys whose values were read (up to 32 per pattern, the same in any chunking)",
    "share": "share of the dump's keys",
    "memory_share": "share of the dump's memory",
    "memory_basis": "est_memory_bytes or rdb_bytes: what the memory_bytes_* columns measure",
    **MEASURE_DOCS,
}

NAMESPACE_COLUMNS = {
    "db": "database number",
    "node": "the namespace: the pattern's first segments, e.g. user:{id}",
    "depth": "how many segments the node has (1 for the top level)",
    "parent": "the node one level up; null at depth 1",
    "n_patterns": "patterns under the node (the node itself included when it is a pattern)",
    "share": "share of the dump's keys",
    "memory_share": "share of the dump's memory",
    "memory_basis": "est_memory_bytes or rdb_bytes: what the memory_bytes_* columns measure",
    **MEASURE_DOCS,
}


@dataclass(frozen=True)
class PatternOptions:
    """Options of the ``patterns`` pass (pattern table and namespace tree)."""

    n_examples: int = option(3, "example keys kept per pattern and per namespace node")
    library_min_keys: int = option(100, "LIB001: jobs or results of one pattern without TTL before they are reported")
    serialization_min_saving_bytes: int = option(1 << 20, "SER001-SER003: memory a change must save before "
                                                          "it is reported")
    serialization_big_pattern_bytes: int = option(64 << 20, "SER003: memory of a pattern before its text "
                                                            "serialization is reported")
    library_min_set_bytes: int = option(8192, "LIB001: memory of a finished/dead job set without TTL before it "
                                              "is reported")

    def __post_init__(self):
        require_positive(self, "n_examples")
        require_positive(self, "library_min_keys")


class PatternsPass:
    """Measure each pattern group and each namespace node.

    Tables:
        patterns: one row per (db, pattern), largest memory first.
        namespaces: one row per (db, namespace node), in tree order (children
            after their parent, larger memory first).
    Findings: LIB001-LIB005, leaks in the keys a known library owns (:mod:`rdbscope.libraries.findings`).
    Shares: the pattern groups with their measures (``PatternGroups.stats``).
    """

    id = "patterns"
    requires = ("pattern_groups",)
    uses = ("values",)  # the sampled values: their formats, the libraries they tell, the settings jobs stored
    Options = PatternOptions
    checks = LIBRARY_CHECKS + SERIALIZATION_CHECKS

    def run(self, ctx):
        columns = ctx.columns
        groups = ctx.output("pattern_groups").shared
        measures = groups.stats.table_columns(columns)  # the chunks' merged measures
        owners = recognize(groups.db.tolist(), list(groups.pattern), measures["types"].to_pylist(),
                           measures["examples"].to_pylist())
        values = ctx.output_if_run("values")
        samples = values.shared.by_group if values is not None else ((),) * groups.n
        owners = owners_with_values(groups.db.tolist(), list(groups.pattern), measures["types"].to_pylist(), owners,
                                    samples)
        profiles = [describe(s) for s in samples]
        patterns = _pattern_table(groups, measures, columns, owners, profiles)
        namespaces = _namespace_table(groups, columns, ctx.options.n_examples)
        names = list(zip(groups.db.tolist(), groups.pattern, strict=True))
        options = ctx.options
        rows = patterns.select(["db", "pattern", "n_keys", "memory_bytes_sum", "examples"]).to_pylist()
        findings = (
            *library_findings(patterns, ((*name, owner) for name, owner in zip(names, owners, strict=True)),
                              columns.memory_basis, options, dict(zip(names, samples, strict=True))),
            *serialization_findings(rows, dict(zip(names, profiles, strict=True)), columns.memory_basis,
                                    SerializationOptions(options.serialization_min_saving_bytes,
                                                         options.serialization_big_pattern_bytes)))
        return PassOutput(tables={"patterns": patterns, "namespaces": namespaces}, findings=findings,
                          shared=groups)


def _shares(measures, columns):
    n_keys = np.asarray(measures["n_keys"])
    memory = np.asarray(measures["memory_bytes_sum"]).astype(np.float64)
    share = n_keys / columns.n_keys if columns.n_keys else np.zeros(len(n_keys))
    memory_share = memory / columns.memory_total if columns.memory_total else np.zeros(len(n_keys))
    return pa.array(share, pa.float64()), pa.array(memory_share, pa.float64())


def _table(leading, measures, columns, docs):
    share, memory_share = _shares(measures, columns)
    n = len(measures["n_keys"])
    data = {**leading, "share": share, "memory_share": memory_share,
            "memory_basis": pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int8)),
                                                           pa.array([columns.memory_basis])),
            **measures}
    fields = [pa.field(name, array.type, metadata={"doc": docs[name]}) for name, array in data.items()]
    return pa.Table.from_arrays(list(data.values()), schema=pa.schema(fields))


def _pattern_table(groups, measures, columns, owners, profiles):
    leading = {"db": pa.array(groups.db, pa.int32()), "pattern": pa.array(groups.pattern, pa.string()),
               "library": pa.array([o.library.name if o else None for o in owners], pa.string()),
               "key_kind": pa.array([o.key_kind if o else None for o in owners], pa.string()),
               "value_format": pa.array([p.value_format for p in profiles], pa.string()),
               "element_format": pa.array([p.element_format for p in profiles], pa.string()),
               "value_bytes_typical": pa.array([p.typical_bytes for p in profiles], pa.uint64()),
               "value_zstd_ratio": pa.array([p.zstd_ratio for p in profiles], pa.float64()),
               "values_sampled": pa.array([p.n_samples for p in profiles], pa.int64())}
    table = _table(leading, measures, columns, PATTERN_COLUMNS)
    return table.sort_by([("memory_bytes_sum", "descending"), ("n_keys", "descending"),
                          ("db", "ascending"), ("pattern", "ascending")])


def _namespace_table(groups, columns, n_examples):
    """Nodes by delimiter depth, each measured as the union of the patterns under it."""
    node_ids = {}
    node_info = []  # (db, node, depth, parent)
    groups_of_node = []
    for g in range(groups.n):
        segments = list(pattern_segments(groups.pattern[g])) or [groups.pattern[g]]
        for depth, prefix in enumerate(segments, start=1):
            key = (int(groups.db[g]), prefix)
            if key not in node_ids:
                node_ids[key] = len(node_info)
                node_info.append((key[0], prefix, depth, segments[depth - 2] if depth > 1 else None))
                groups_of_node.append([])
            groups_of_node[node_ids[key]].append(g)
    members = [np.array(m, dtype=np.int64) for m in groups_of_node]
    measures = groups.stats.union_columns(members, columns, n_examples)
    db, node, depth, parent = zip(*node_info, strict=True) if node_info else ((), (), (), ())
    leading = {"db": pa.array(db, pa.int32()), "node": pa.array(node, pa.string()),
               "depth": pa.array(depth, pa.int32()), "parent": pa.array(parent, pa.string()),
               "n_patterns": pa.array([len(m) for m in members], pa.int64())}
    table = _table(leading, measures, columns, NAMESPACE_COLUMNS)
    return table.take(pa.array(_tree_order(node_info, np.asarray(measures["memory_bytes_sum"]), node_ids),
                               pa.int64()))


def _tree_order(node_info, memory, node_ids):
    """Pre-order: each node before its children; siblings by memory, largest first."""
    def path(n):
        db, prefix, _depth, parent = node_info[n]
        step = (-int(memory[n]), prefix)
        return (*path(node_ids[(db, parent)]), step) if parent is not None else (db, step)

    return sorted(range(len(node_info)), key=path)
