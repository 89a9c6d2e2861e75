"""The cluster_slots table: keys and memory per hash slot."""

import numpy as np
import pyarrow as pa

from ..rdb.cluster import N_SLOTS

SLOT_COLUMNS = {
    "slot": "Redis Cluster hash slot (0-16383)",
    "n_keys": "keys of the dump in the slot",
    "n_with_ttl": "of which with a TTL",
    "memory_bytes": "memory of those keys: est_memory_bytes, or rdb_bytes when the dump has no "
                    "estimates (column memory_basis says which)",
    "recorded_keys": "keys the dump's SLOT_INFO records for the slot; null when it records none",
    "recorded_expires": "keys with an expiry the dump's SLOT_INFO records; null when it records none",
    "memory_basis": "est_memory_bytes or rdb_bytes",
}


def slot_table(ctx):
    """One row per slot that holds keys or that the dump records, in slot order."""
    n_keys = ctx.slot_keys
    n_ttl = ctx.columns.slot_with_ttl
    memory = np.rint(ctx.slot_memory)
    recorded_keys = np.zeros(N_SLOTS, np.int64)
    recorded_expires = np.zeros(N_SLOTS, np.int64)
    is_recorded = np.zeros(N_SLOTS, bool)
    for slot, keys, expires in ctx.recorded_slots:
        recorded_keys[slot] += keys
        recorded_expires[slot] += expires
        is_recorded[slot] = True
    rows = np.flatnonzero((n_keys > 0) | is_recorded)
    missing = ~is_recorded[rows]
    data = {
        "slot": pa.array(rows.astype(np.uint16), pa.uint16()),
        "n_keys": pa.array(n_keys[rows], pa.int64()),
        "n_with_ttl": pa.array(n_ttl[rows], pa.int64()),
        "memory_bytes": pa.array(memory[rows].astype(np.uint64), pa.uint64()),
        "recorded_keys": pa.array(recorded_keys[rows], pa.int64(), mask=missing),
        "recorded_expires": pa.array(recorded_expires[rows], pa.int64(), mask=missing),
        "memory_basis": pa.array([ctx.memory_basis] * len(rows), pa.string()).dictionary_encode(),
    }
    fields = [pa.field(name, data[name].type, metadata={"doc": doc}) for name, doc in SLOT_COLUMNS.items()]
    return pa.Table.from_arrays([data[name] for name in SLOT_COLUMNS], schema=pa.schema(fields))
