"""The slots a cluster node's dump records about itself (CLU004, CLU005)."""

import numpy as np

from ..findings import Severity
from ..rdb.cluster import N_SLOTS
from .base import Rule
from .cluster import recorded_slots


def slot_ranges_text(slots, limit=8):
    """``"0-5460, 7000"``: sorted slots as ranges (the first ``limit`` ranges)."""
    slots = np.unique(np.asarray(slots, np.int64))
    if len(slots) == 0:
        return ""
    breaks = np.flatnonzero(np.diff(slots) != 1)
    starts = np.concatenate(([slots[0]], slots[breaks + 1]))
    ends = np.concatenate((slots[breaks], [slots[-1]]))
    parts = [f"{a}" if a == b else f"{a}-{b}" for a, b in zip(starts, ends)]
    return ", ".join(parts[:limit]) + (f", … ({len(parts)} ranges)" if len(parts) > limit else "")


class ClusterNodeSlots(Rule):
    """The dump is from a cluster node and records the slots it held.

    ## What it does
    Reports the slots the dump records about itself: the SLOT_INFO opcodes
    Redis 7.4+ writes for each slot of a cluster node (slot, keys, keys with
    an expiry), or Valkey's `slot-info` AUX field. It says how many slots and
    which ranges, how many keys they held, and the busiest slot. Keys that do
    not agree with the record are CLU005's.

    ## Why is this bad?
    It is not bad; it is what the dump says about where it came from. Seed 004
    (§30.1): a key's "slot determines which cluster node owns it". A node's
    dump holds only that node's share of the data, so cluster-wide checks
    (CLU001) do not apply to it, and the slot list tells which shard a backup
    belongs to.

    ## Example
    A dump saved by a master of a Redis 7.4 cluster owning slots 0-5460.

    ## Use instead
    Nothing to change. Analyse the dumps of all masters to see the whole
    cluster.

    ## Options
    - none
    """

    code = "CLU004"
    name = "cluster-node-slots"
    severity = Severity.INFO
    message = ("The dump is from a cluster node: it records {n_slots} slots ({ranges}) holding "
               "{recorded_keys} keys; the busiest holds {busiest_keys}")

    def check(self, ctx, options):
        recorded = recorded_slots(ctx.info)
        if not recorded:
            return
        slots = np.array([s for s, _k, _e in recorded], np.int64)
        keys = np.array([k for _s, k, _e in recorded], np.int64)
        expires = np.array([e for _s, _k, e in recorded], np.int64)
        busiest = int(np.argmax(keys))
        yield self.dump_finding(
            ctx, n_keys=ctx.n_keys, memory_bytes=int(ctx.memory.sum(dtype=np.uint64)),
            n_slots=len(np.unique(slots)), ranges=slot_ranges_text(slots), recorded_keys=int(keys.sum()),
            recorded_expires=int(expires.sum()),
            busiest_slot={"slot": int(slots[busiest]), "keys": int(keys[busiest])},
            say={"busiest_keys": f"{int(keys[busiest]):,} keys (slot {int(slots[busiest])})"})


class SlotInfoMismatch(Rule):
    """Keys in slots the dump's SLOT_INFO does not record.

    ## What it does
    When the dump records its slots (CLU004), flags patterns with keys that
    hash to a slot the record does not list, or to a slot holding more keys
    than recorded. Keys filtered out of a scan (`--db`, `--match`) cannot
    cause a finding: only keys beyond the record are reported.

    ## Why is this bad?
    Seed 004 (§30.1): a key's "slot determines which cluster node owns it". A
    cluster node refuses commands for keys outside its slots, so keys the node
    does not own are unreachable in cluster mode: data restored from a
    non-cluster backup, left behind by an interrupted migration, or a dump
    that was edited or merged.

    ## Example
    A dump of the master owning slots 0-5460 whose SLOT_INFO lists its slots,
    but which also holds `order:77` (slot 9221): restored into the node from a
    standalone backup.

    ## Use instead
    Migrate the keys to the node that owns their slot (`CLUSTER
    COUNTKEYSINSLOT`, `MIGRATE`), or delete what is left behind.

    ## Options
    - none
    """

    code = "CLU005"
    name = "slot-info-mismatch"
    severity = Severity.WARNING
    message = "Keys of {pattern} are in slots the dump's slot record {why} ({keys}, {memory})"

    def check(self, ctx, options):
        recorded = recorded_slots(ctx.info)
        if not recorded:
            return
        expected = np.full(N_SLOTS, -1, np.int64)
        for slot, keys, _expires in recorded:
            expected[slot] = max(expected[slot], 0) + keys
        slots = ctx.slots.astype(np.int64)
        actual = np.bincount(slots, minlength=N_SLOTS)
        unlisted = expected[slots] < 0
        overfull = ~unlisted & (actual[slots] > expected[slots])
        rows = np.flatnonzero(unlisted | overfull)
        for hit in ctx.hits(rows):
            in_pattern = rows[ctx.groups.group[rows] == hit.group]
            n_unlisted = int(unlisted[in_pattern].sum())
            why = "does not list" if n_unlisted == len(in_pattern) else \
                "does not list, or lists with fewer keys" if n_unlisted else "lists with fewer keys"
            yield self.finding(ctx, hit, n_keys_in_unlisted_slots=n_unlisted,
                               slots=slot_ranges_text(slots[in_pattern]), say={"why": why})
