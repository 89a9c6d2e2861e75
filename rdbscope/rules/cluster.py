"""Redis Cluster: whether a dump is one node's share, and how its keys would spread over masters (CLU001)."""

import math
from dataclasses import dataclass

import numpy as np

from ..findings import Severity, format_share
from ..keyspace.grouping import counts
from ..options import option
from ..passes.bigkeys import top_per_code
from ..rdb.cluster import N_SLOTS
from .base import Rule


def slot_ranges(masters):
    """Contiguous, near-equal slot ranges ``[(first, last)]``, one per master, as
    ``redis-cli --cluster create`` assigns them (the float share rounded half up)."""
    per_node = N_SLOTS / masters
    ranges, first = [], 0
    for i in range(masters):
        last = N_SLOTS - 1 if i == masters - 1 else max(first, int(np.floor((i + 1) * per_node - 1 + 0.5)))
        ranges.append((first, last))
        first = last + 1
    return ranges


def node_of_slot(masters):
    """An array of 16384 node numbers: the master each slot belongs to."""
    nodes = np.zeros(N_SLOTS, np.int32)
    for node, (first, last) in enumerate(slot_ranges(masters)):
        nodes[first:last + 1] = node
    return nodes


def recorded_slots(info):
    """``[(slot, keys, expires)]`` the dump records about its own slots: the SLOT_INFO
    opcodes (Redis 7.4+), or Valkey's ``slot-info`` AUX field."""
    recorded = [(int(slot), int(keys), int(expires)) for _db, slot, keys, expires in info.slot_info]
    text = info.aux.get("slot-info") if info.aux else None
    if not recorded and text:
        try:
            slot, keys, expires = (int(v) for v in text.split(",")[:3])
        except ValueError:
            return recorded
        recorded.append((slot, keys, expires))
    return recorded


#: How unlikely an empty run of slots must be, were the keys spread over all slots, to call it a node's edge.
_CHANCE = 1e-6
#: Master counts tried when naming the `redis-cli --cluster create` range a node's keys fit in.
_MAX_MASTERS = 64


@dataclass(frozen=True)
class NodeSlots:
    """The slots a dump's keys are confined to, when it looks like one cluster node's dump.

    Attributes:
        ranges: ``[(first, last)]`` of the slots the node holds (as recorded,
            or as its keys show).
        recorded: True when the dump records them (SLOT_INFO, ``slot-info``).
        key_ranges: ``[(first, last)]`` of the slots its keys hash to.
        masters, master: when the keys fit one range ``redis-cli --cluster
            create`` gives, how many masters that was for and which (from 0).
    """

    ranges: tuple
    recorded: bool
    key_ranges: tuple
    masters: int | None = None
    master: int | None = None


def node_slots(info, slot_keys, dbs):
    """The :class:`NodeSlots` of a dump, or None when its keys are not one node's share.

    A dump records its slots (Redis 7.4+, Valkey) or not; when not, its keys
    give it away: a node holds only its slot ranges, so keys spread over all
    16384 slots leave no long empty run, while a node's dump leaves empty
    every slot of the other masters. A run counts as empty by design when
    keys spread over all slots would leave it empty with a chance below
    :data:`_CHANCE`. Cluster mode has only db 0, so keys in another db mean
    the dump is not a node's.
    """
    recorded = sorted({slot for slot, _keys, _expires in recorded_slots(info)})
    occupied = np.flatnonzero(slot_keys)
    if recorded:
        return NodeSlots(contiguous_ranges(np.array(recorded)), True, contiguous_ranges(occupied))
    if len(occupied) == 0 or np.any(np.asarray(dbs) != 0):
        return None
    longest = _longest_chance_gap(len(occupied))
    gaps = np.diff(occupied) - 1
    if max(occupied[0], N_SLOTS - 1 - occupied[-1], gaps.max(initial=0)) < longest:
        return None
    breaks = np.flatnonzero(gaps >= longest)
    firsts = np.concatenate(([occupied[0]], occupied[breaks + 1]))
    lasts = np.concatenate((occupied[breaks], [occupied[-1]]))
    key_ranges = tuple((int(a), int(b)) for a, b in zip(firsts, lasts, strict=True))
    if len(key_ranges) == 1:
        (first, last), = key_ranges
        for masters in range(_MAX_MASTERS, 1, -1):
            for master, (a, b) in enumerate(slot_ranges(masters)):
                if a <= first and last <= b and first - a < longest and b - last < longest:
                    return NodeSlots(((a, b),), False, key_ranges, masters, master)
    return NodeSlots(key_ranges, False, key_ranges)


def _longest_chance_gap(n_occupied):
    """The shortest run of empty slots that keys in ``n_occupied`` uniformly spread slots leave
    with a chance below :data:`_CHANCE` (a union bound over the run's 16384 starting slots)."""
    return math.ceil(N_SLOTS * (1 - (_CHANCE / N_SLOTS) ** (1 / n_occupied)))


def contiguous_ranges(slots):
    """``[(first, last)]`` of sorted, distinct slots."""
    breaks = np.flatnonzero(np.diff(slots) != 1)
    firsts = np.concatenate(([slots[0]], slots[breaks + 1])) if len(slots) else []
    lasts = np.concatenate((slots[breaks], [slots[-1]])) if len(slots) else []
    return tuple((int(a), int(b)) for a, b in zip(firsts, lasts, strict=True))


def ranges_text(ranges, limit=8):
    """``"0-5460, 7000"`` (the first ``limit`` ranges)."""
    parts = [f"{a}" if a == b else f"{a}-{b}" for a, b in ranges]
    return ", ".join(parts[:limit]) + (f", … ({len(parts)} ranges)" if len(parts) > limit else "")


class NodeImbalance(Rule):
    """Keys or memory that would pile up on one master of a cluster.

    ## What it does
    Given several dumps at once (a cluster's masters), each dump is a real
    node: it flags the node holding more than `max_ratio` (1.2) times the
    mean, by key count or by memory, and names it by its dump.

    Given one dump, it is off until `masters` is set (`--masters N`, or the
    option in the config): then it computes every key's hash slot (CRC16 of
    the key or of its hash tag), splits the 16384 slots over `masters`
    masters as `redis-cli --cluster create` does, and flags the dump when the
    heaviest master would hold more than `max_ratio` times the mean. Either
    way the finding names the heaviest slot and the patterns that hold more
    than their share on that node. Key sets of fewer than `min_keys` keys are
    not checked, nor the dump of one cluster node (CLU004), which holds only
    that node's slots. A dump with keys in several dbs is simulated as if
    they all moved to db 0, the only one cluster mode has.

    ## Why is this bad?
    The Key Design chapter (§30.5.2): "Cluster data skew: a 10 MB key on one node causes
    that node's memory, CPU, and network utilization to far exceed its
    neighbors, breaking load balance"; §30.1: a key's "slot determines which
    cluster node owns it". Baidu Cloud's guidelines (hashtag): avoid "large amounts of data
    falling into the same shard, causing imbalance between nodes". The
    heaviest master sets the memory every master needs, and it hits
    maxmemory first.

    ## Example
    A dump whose memory sits in a few huge keys, or in keys sharing a hash
    tag such as `{tenant:acme}:…`, loaded into a 3-master cluster.

    ## Use instead
    Split big keys (see BIG findings), spread hash tags (CLU002), or plan slot
    ranges by memory rather than by count when resharding.
    """

    code = "CLU001"
    name = "node-imbalance"
    prefetch = ("slots",)
    severity = Severity.WARNING
    message = ("{where} {memory_share} of the memory ({memory}) and {keys_share} of the keys, "
               "{ratio}× the mean {measure}; {cause}")

    @dataclass(frozen=True)
    class Options:
        masters: int = option(0, "how many masters share the 16384 slots; 0 leaves the check off")
        max_ratio: float = option(1.2, "report when the heaviest master holds this many times the mean")
        min_keys: int = option(1000, "dumps with fewer keys are not checked")

        def __post_init__(self):
            if self.masters < 0 or self.masters == 1:
                raise ValueError("masters must be 0 (off) or at least 2")
            if self.max_ratio < 1 or self.min_keys < 0:
                raise ValueError("max_ratio must be >= 1 and min_keys >= 0")

    bounded = True

    @classmethod
    def candidates(cls, ctx, options):
        """Per node, the keys holding the most memory (the examples of a finding about it)."""
        rows = [np.zeros(0, np.int64)]
        for _prefix, node_of_row, n_nodes in _node_kinds(ctx, options):
            rows.extend(top_per_code(ctx.memory, node_of_row, n_nodes, ctx.n_examples).values())
        return np.unique(np.concatenate(rows))

    @classmethod
    def pattern_sums(cls, ctx, options):
        """Memory per pattern on each node: ``memory@<dump>`` of several dumps (the dump's index),
        ``memory@master<i>`` of the masters of ``masters``."""
        sums = {}
        for prefix, node_of_row, n_nodes in _node_kinds(ctx, options):
            cells = node_of_row * ctx.groups.n + ctx.groups.group
            per_node = counts(cells, n_nodes * ctx.groups.n, ctx.memory).astype(np.int64).reshape(n_nodes, -1)
            for node in np.flatnonzero(np.bincount(node_of_row, minlength=n_nodes)):
                sums[f"memory@{prefix}{node}"] = per_node[node]
        return sums

    def check(self, ctx, options):
        if ctx.n_keys < options.min_keys:
            return
        if ctx.sources:
            nodes = real_nodes(ctx)
        elif options.masters and ctx.node_slots is None:
            nodes = simulated_nodes(ctx, options.masters)
        else:
            return
        keys_per_node, memory_per_node = nodes.n_keys, nodes.memory
        key_ratio = keys_per_node.max() / keys_per_node.mean()
        memory_ratio = memory_per_node.max() / memory_per_node.mean() if memory_per_node.sum() else 1.0
        if max(key_ratio, memory_ratio) <= options.max_ratio:
            return
        heavy = int(np.argmax(memory_per_node if memory_ratio >= key_ratio else keys_per_node))
        rows = nodes.rows(heavy)
        n_nodes = len(nodes.names)

        # Patterns holding more than their fair share of memory on this node.
        on_node = ctx.sums(self, options).get(f"memory@{'' if ctx.sources else 'master'}{heavy}",
                                              np.zeros(ctx.groups.n, np.int64))
        excess = on_node - ctx.pattern_memory / n_nodes
        top = [int(g) for g in np.argsort(-excess, kind="stable")[:3] if excess[g] > 0]
        by_pattern = [{"db": int(ctx.groups.db[g]), "pattern": ctx.groups.pattern[g],
                       "memory_bytes_on_master": int(on_node[g]), "excess_memory_bytes": int(excess[g])}
                      for g in top]
        slot_memory = nodes.slot_memory(heavy)
        hottest = int(np.argmax(slot_memory))
        biggest = rows[top_per_code(ctx.memory[rows], np.zeros(len(rows), np.int8), 1, ctx.n_examples)[0]]
        total_memory = memory_per_node.sum()
        cause = (f"most of the excess is {by_pattern[0]['pattern']}" if by_pattern else
                 "the excess is spread over many patterns")
        where = (f"Of {n_nodes} nodes, {nodes.names[heavy]} (slots {nodes.slots[heavy]}) holds" if ctx.sources else
                 f"With {n_nodes} masters, master {heavy} (slots {nodes.slots[heavy]}) would hold")
        yield self.dump_finding(
            ctx, n_keys=int(keys_per_node[heavy]), memory_bytes=int(round(memory_per_node[heavy])),
            examples=ctx.columns.key_text(biggest),
            masters=n_nodes, node=nodes.names[heavy], slots=nodes.slots[heavy], real_nodes=bool(ctx.sources),
            key_ratio=round(float(key_ratio), 3), memory_ratio=round(float(memory_ratio), 3),
            nodes=[{"node": name, "slots": slots, "n_keys": int(keys_per_node[i]),
                    "memory_bytes": int(round(memory_per_node[i]))}
                   for i, (name, slots) in enumerate(zip(nodes.names, nodes.slots, strict=True))],
            hottest_slot={"slot": hottest, "memory_bytes": int(round(slot_memory[hottest])),
                          "share_of_master": round(float(slot_memory[hottest] / memory_per_node[heavy]), 4)
                          if memory_per_node[heavy] else 0.0},
            patterns=by_pattern,
            say={"where": where,
                 "memory_share": format_share(memory_per_node[heavy] / total_memory) if total_memory else "0%",
                 "keys_share": format_share(keys_per_node[heavy] / keys_per_node.sum()),
                 "ratio": f"{max(memory_ratio, key_ratio):.2f}", "cause": cause,
                 "measure": "memory" if memory_ratio >= key_ratio else "key count"},
        )


def _node_kinds(ctx, options):
    """``(prefix, node of each key, nodes)`` of the real nodes (prefix "") and of the simulated masters
    (prefix "master") there are keys of."""
    for prefix, real in (("", True), ("master", False)):
        node_of_row = _node_of_row(ctx, options, real)
        if len(node_of_row):
            yield prefix, node_of_row.astype(np.int64), int(node_of_row.max()) + 1


def _node_of_row(ctx, options, real):
    """The node of each key: the dump of several it comes from (``real``), or the master of ``masters``
    its slot is on (not ``real``); empty when there are no such nodes."""
    if real:
        if ctx.sources:
            return ctx.source_of_row
        if ctx.source_index is not None:  # a chunk of one of several dumps
            return np.full(ctx.n_rows, ctx.source_index, np.int64)
        return np.zeros(0, np.int64)
    if not options.masters:
        return np.zeros(0, np.int64)
    return node_of_slot(options.masters)[ctx.slots]


@dataclass(frozen=True)
class Nodes:
    """The nodes CLU001 weighs: names, slot ranges as text, keys and memory per node,
    and how to find a node's keys (``rows``) and its memory per slot (``slot_memory``)."""

    names: list
    slots: list
    n_keys: np.ndarray
    memory: np.ndarray
    rows: object
    slot_memory: object


def simulated_nodes(ctx, masters):
    """``masters`` masters sharing the slots as ``redis-cli --cluster create`` splits them."""
    ranges = slot_ranges(masters)
    nodes = node_of_slot(masters)

    def rows(i):
        first, last = ranges[i]
        return np.flatnonzero((ctx.slots >= first) & (ctx.slots <= last))

    def slot_memory(i):
        first, last = ranges[i]
        memory = np.zeros(N_SLOTS)
        memory[first:last + 1] = ctx.slot_memory[first:last + 1]
        return memory

    return Nodes(
        names=list(range(masters)), slots=[f"{a}-{b}" for a, b in ranges],
        n_keys=np.bincount(nodes, weights=ctx.slot_keys, minlength=masters),
        memory=np.bincount(nodes, weights=ctx.slot_memory, minlength=masters),
        rows=rows, slot_memory=slot_memory)


def real_nodes(ctx):
    """The dumps of several nodes, each one node."""
    sources = ctx.sources
    return Nodes(
        names=[s.path for s in sources],
        slots=[node_ranges_text(s, node) for s, node in zip(sources, ctx.source_node_slots, strict=True)],
        n_keys=np.array([s.n_keys for s in sources], np.float64),
        memory=np.array([s.memory_bytes(ctx.memory_basis) for s in sources], np.float64),
        rows=lambda i: np.flatnonzero(ctx.source_of_row == i),
        slot_memory=lambda i: sources[i].slot_memory)


def node_ranges_text(source, node):
    """The slots of one dump of several as text: its node's ranges, else the ranges its keys hash to."""
    if node is not None:
        return ranges_text(node.ranges)
    occupied = np.flatnonzero(source.slot_keys)
    return ranges_text(contiguous_ranges(occupied)) if len(occupied) else ""
