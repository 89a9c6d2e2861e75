"""Which slots a cluster node's dump holds (CLU004), and keys outside its record (CLU005)."""

import numpy as np

from ..findings import Severity, count
from ..rdb.cluster import N_SLOTS
from .base import NeedsEveryKey, Rule
from .cluster import contiguous_ranges, ranges_text, recorded_slots


def slot_ranges_text(slots, limit=8):
    """``"0-5460, 7000"``: slots (any order, repeats allowed) as ranges (the first ``limit`` ranges)."""
    return ranges_text(contiguous_ranges(np.unique(np.asarray(slots, np.int64))), limit)


def _ordinal(n):
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


class ClusterNodeSlots(Rule):
    """The dump is from a cluster node, and these are its slots.

    ## What it does
    Names the slots of a cluster node's dump. Where the dump records them,
    from the record: the SLOT_INFO opcodes Redis 7.4+ writes for each slot of
    a cluster node (slot, keys, keys with an expiry), or Valkey's `slot-info`
    AUX field; it says how many slots and which ranges, how many keys they
    held, and the busiest slot. Where it does not (Redis up to 7.2), from the
    keys: all in db 0 and hashing only to some slots, leaving empty runs of
    slots far longer than keys spread over all 16384 slots would leave (a
    chance below one in a million); the range is named as `redis-cli
    --cluster create` assigned it when the keys fit one. Keys that do not
    agree with a record are CLU005's. Given several dumps, one finding per
    dump that is a node's, naming it.

    ## Why is this bad?
    It is not bad; it is what the dump says about where it came from. The Key Design chapter
    (§30.1): a key's "slot determines which cluster node owns it". A node's
    dump holds only that node's share of the data, so cluster-wide checks
    (CLU001) do not apply to it, and the slot list tells which shard a backup
    belongs to.

    ## Example
    A dump saved by the first of three masters of a Redis cluster, owning
    slots 0-5460: "Cluster node dump: slots 0-5460; …".

    ## Use instead
    Nothing to change. Analyse the dumps of all masters to see the whole
    cluster.
    """

    code = "CLU004"
    name = "cluster-node-slots"
    severity = Severity.INFO
    message = "Cluster node dump{of}: slots {ranges}; {evidence}"
    prefetch = ("slots",)
    bounded = True

    def check(self, ctx, options):
        if ctx.sources:
            for source, node in zip(ctx.sources, ctx.source_node_slots, strict=True):
                if node is not None:
                    yield self._node_finding(ctx, node, source.info, source.n_keys,
                                             source.memory_bytes(ctx.memory_basis), source.path)
        elif ctx.node_slots is not None:
            yield self._node_finding(ctx, ctx.node_slots, ctx.info, ctx.n_keys,
                                     ctx.memory_total)

    def _node_finding(self, ctx, node, info, n_keys, memory_bytes, source=None):
        fields = {"ranges": ranges_text(node.ranges), "n_slots": sum(b - a + 1 for a, b in node.ranges),
                  "recorded": node.recorded, "key_ranges": ranges_text(node.key_ranges)}
        if source is not None:
            fields["node"] = source
        if node.recorded:
            recorded = recorded_slots(info)
            keys = np.array([k for _s, k, _e in recorded], np.int64)
            busiest = int(np.argmax(keys))
            slot, n = recorded[busiest][0], int(keys[busiest])
            fields.update(recorded_keys=int(keys.sum()), recorded_expires=int(sum(e for _s, _k, e in recorded)),
                          busiest_slot={"slot": slot, "keys": n})
            evidence = (f"the dump records {count(fields['n_slots'], 'slot')} holding "
                        f"{count(fields['recorded_keys'], 'key')}; the busiest holds {count(n, 'key')} (slot {slot})")
        else:
            fields.update(masters=node.masters, master=node.master)
            evidence = (f"{'all ' if n_keys > 1 else ''}{count(n_keys, 'key')} hash only to slots "
                        f"{fields['key_ranges']}")
            if node.masters:
                evidence += (f", within the range `redis-cli --cluster create` gives the "
                             f"{_ordinal(node.master + 1)} of {node.masters} masters")
            evidence += " (the dump records no slots)"
        of = f" {source}" if source is not None else ""
        return self.dump_finding(ctx, n_keys=n_keys, memory_bytes=memory_bytes,
                                 say={"evidence": evidence, "of": of}, **fields)


def _expected_keys(recorded):
    """Keys per slot as ``recorded`` (``[(slot, keys, expires)]``), -1 where not listed; None: no record."""
    if not recorded:
        return None
    expected = np.full(N_SLOTS, -1, np.int64)
    for slot, keys, _expires in recorded:
        expected[slot] = max(expected[slot], 0) + keys
    return expected


class SlotInfoMismatch(Rule):
    """Keys in slots the dump's SLOT_INFO does not record.

    ## What it does
    When the dump records its slots (CLU004), flags patterns with keys that
    hash to a slot the record does not list, or to a slot holding more keys
    than recorded. Keys filtered out of a scan (`--db`, `--match`) cannot
    cause a finding: only keys beyond the record are reported.

    ## Why is this bad?
    The Key Design chapter (§30.1): a key's "slot determines which cluster node owns it". A
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
    """

    code = "CLU005"
    name = "slot-info-mismatch"
    severity = Severity.WARNING
    message = "Keys of {pattern} are in slots the dump's slot record {why} ({keys}, {memory})"
    bounded = True

    @classmethod
    def candidates(cls, ctx, options):
        expected = _expected_keys(ctx.recorded_slots)
        if expected is None:
            return np.zeros(0, np.int64)
        return np.flatnonzero(expected[ctx.slots] < 0)

    def check(self, ctx, options):
        expected = _expected_keys(ctx.recorded_slots)
        if expected is None:
            return
        slots = ctx.slots.astype(np.int64)
        actual = ctx.slot_keys
        if ctx.n_rows < ctx.n_keys and np.any((expected >= 0) & (actual > expected)):
            raise NeedsEveryKey  # which keys of an overfull slot: the run kept only some
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
