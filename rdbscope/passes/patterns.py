"""The patterns pass: each key's inferred pattern, the pattern table, the namespace tree."""

import dataclasses

import numpy as np
import pyarrow as pa

from ..config import PatternOptions
from ..patterns import infer_patterns, pattern_segments
from .base import PassOutput
from .columns import dictionary_codes
from .grouping import SortedGroups
from .measures import MEASURE_DOCS, measure_groups
from .pattern_groups import PatternGroups

PATTERN_COLUMNS = {
    "db": "database number",
    "pattern": "the inferred pattern, e.g. user:{id}:profile",
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


class PatternsPass:
    """Infer a pattern per key; measure each pattern and each namespace node.

    Tables:
        patterns: one row per (db, pattern), largest memory first.
        namespaces: one row per (db, namespace node), in tree order (children
            after their parent, larger memory first).
    Columns added to the keys table: ``pattern``.
    """

    id = "patterns"
    requires = ()
    Options = PatternOptions
    checks = ()

    def run(self, ctx):
        columns = ctx.columns
        inferred = infer_patterns(columns.keys)
        if isinstance(inferred, pa.ChunkedArray):
            inferred = inferred.combine_chunks()
        codes, names = dictionary_codes(inferred)
        groups = PatternGroups.build(columns.db, codes, names)
        memory = SortedGroups.build(groups.group, columns.memory, groups.n)
        groups = dataclasses.replace(groups, memory=memory)
        measures = measure_groups(groups.group, groups.n, columns, ctx.options.n_examples, memory=memory)
        patterns = _pattern_table(groups, measures, columns)
        namespaces = _namespace_table(groups, measures, columns, ctx.options.n_examples)
        return PassOutput(
            tables={"patterns": patterns, "namespaces": namespaces},
            columns={"pattern": inferred},
            shared=groups,
        )


def _shares(measures, columns):
    n_keys = np.asarray(measures["n_keys"])
    memory = np.asarray(measures["memory_bytes_sum"]).astype(np.float64)
    total_memory = float(columns.memory.sum(dtype=np.uint64)) if columns.n else 0.0
    share = n_keys / columns.n if columns.n else np.zeros(len(n_keys))
    memory_share = memory / total_memory if total_memory else np.zeros(len(n_keys))
    return pa.array(share, pa.float64()), pa.array(memory_share, pa.float64())


def _table(leading, measures, columns, docs):
    share, memory_share = _shares(measures, columns)
    n = len(measures["n_keys"])
    data = {**leading, "share": share, "memory_share": memory_share,
            "memory_basis": pa.array([columns.memory_basis] * n, pa.string()).dictionary_encode(),
            **measures}
    fields = [pa.field(name, array.type, metadata={"doc": docs[name]}) for name, array in data.items()]
    return pa.Table.from_arrays(list(data.values()), schema=pa.schema(fields))


def _pattern_table(groups, measures, columns):
    table = _table({"db": pa.array(groups.db, pa.int32()), "pattern": pa.array(groups.pattern, pa.string())},
                   measures, columns, PATTERN_COLUMNS)
    return table.sort_by([("memory_bytes_sum", "descending"), ("n_keys", "descending"),
                          ("db", "ascending"), ("pattern", "ascending")])


def _namespace_table(groups, pattern_measures, columns, n_examples):
    """Nodes by delimiter depth; a node with one pattern under it reuses that pattern's row."""
    node_ids = {}
    node_info = []  # (db, node, depth, parent)
    groups_of_node = []
    max_depth = 0
    segments_of_group = []
    for g in range(groups.n):
        segments = list(pattern_segments(groups.pattern[g])) or [groups.pattern[g]]
        segments_of_group.append(segments)
        max_depth = max(max_depth, len(segments))
        for depth, prefix in enumerate(segments, start=1):
            key = (int(groups.db[g]), prefix)
            if key not in node_ids:
                node_ids[key] = len(node_info)
                node_info.append((key[0], prefix, depth, segments[depth - 2] if depth > 1 else None))
                groups_of_node.append([])
            groups_of_node[node_ids[key]].append(g)
    n_nodes = len(node_info)
    if n_nodes == 0:
        return _table({"db": pa.array([], pa.int32()), "node": pa.array([], pa.string()),
                       "depth": pa.array([], pa.int32()), "parent": pa.array([], pa.string()),
                       "n_patterns": pa.array([], pa.int64())},
                      pattern_measures, columns, NAMESPACE_COLUMNS)

    # Rows of the result: a node with one pattern copies that pattern's measures;
    # nodes with several are measured on their keys, one depth at a time.
    pieces = [pa.table(pattern_measures)]
    source = np.zeros(n_nodes, dtype=np.int64)  # row in the concatenation of pieces
    single = [n for n in range(n_nodes) if len(groups_of_node[n]) == 1]
    source[single] = [groups_of_node[n][0] for n in single]
    offset = groups.n
    for depth in range(1, max_depth + 1):
        multi = [n for n in range(n_nodes) if node_info[n][2] == depth and len(groups_of_node[n]) > 1]
        if not multi:
            continue
        local_of_group = np.full(groups.n, -1, dtype=np.int64)
        for local, n in enumerate(multi):
            local_of_group[groups_of_node[n]] = local
        local_of_key = local_of_group[groups.group]
        rows = np.flatnonzero(local_of_key >= 0)
        measured = measure_groups(local_of_key[rows], len(multi), columns, n_examples, rows=rows)
        pieces.append(pa.table(measured))
        source[multi] = offset + np.arange(len(multi))
        offset += len(multi)
    measures_table = pa.concat_tables(pieces).take(pa.array(source))
    measures = {name: measures_table[name].combine_chunks() for name in measures_table.column_names}

    db, node, depth, parent = zip(*node_info)
    leading = {"db": pa.array(db, pa.int32()), "node": pa.array(node, pa.string()),
               "depth": pa.array(depth, pa.int32()), "parent": pa.array(parent, pa.string()),
               "n_patterns": pa.array([len(g) for g in groups_of_node], pa.int64())}
    table = _table(leading, measures, columns, NAMESPACE_COLUMNS)
    return table.take(pa.array(_tree_order(node_info, np.asarray(measures["memory_bytes_sum"]), node_ids)))


def _tree_order(node_info, memory, node_ids):
    """Pre-order: each node before its children; siblings by memory, largest first."""
    def path(n):
        db, prefix, _depth, parent = node_info[n]
        step = (-int(memory[n]), prefix)
        return (*path(node_ids[(db, parent)]), step) if parent is not None else (db, step)

    return sorted(range(len(node_info)), key=path)
