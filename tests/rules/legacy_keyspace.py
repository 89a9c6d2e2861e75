"""A generated keyspace of a legacy application, with the habits the seeds warn against.

The sample dumps hold one or two keys of each awkward kind; this keyspace has
them at scale, the way they accumulate in a monolith that several teams wrote
to: camelCase families, a namespace written with two delimiters, generic
scratch keys, a deep hierarchy, query strings in keys, one tenant's hash tag
holding a sixth of the data, a million-key counter family in miniature, and
time series in single sorted sets. Memory figures come from the memory model
of Redis 7.2 with jemalloc, so the encoding rules estimate from realistic
numbers. ``node_dump()`` is one master's dump with keys restored outside its
slots.
"""

import random
import uuid

import numpy as np
import pyarrow as pa
from rule_keyspace import key_table

from rdbscope.rdb._memory import MemoryModel
from rdbscope.rdb.cluster import key_slots
from rdbscope.rdb.memory import ALLOCATORS, L_REDIS72

_MODEL = MemoryModel(L_REDIS72, ALLOCATORS["jemalloc"], 0)
_RAW, _EMBSTR, _INT = 2, 1, 0


def _string(key, value_bytes, *, ttl_s=None, encoding="raw"):
    enc = {"raw": _RAW, "embstr": _EMBSTR, "int": _INT}[encoding]
    memory = _MODEL.string_size(len(key.encode()), ttl_s is not None, enc, value_bytes)
    return {"key": key, "n_elements": value_bytes, "max_element_bytes": value_bytes, "encoding": encoding,
            "est_memory_bytes": int(memory), "rdb_bytes": len(key) + value_bytes + 3, "ttl_s": ttl_s}


def legacy_specs(seed=5):
    """Key specs (see keyspace.py) of the legacy keyspace; deterministic for a seed."""
    rng = random.Random(seed)
    specs = []
    specs += [_string(f"user:{1000 + i}:profile", 180) for i in range(3000)]
    specs += [_string(f"user.{1000 + i}.settings", 40, encoding="embstr") for i in range(500)]
    specs += [_string(f"hotSearch:rank:{i}", 30, encoding="embstr") for i in range(50)]
    specs += [_string(f"userSession:{uuid.UUID(int=rng.getrandbits(128), version=4)}", 60, ttl_s=3600)
              for _ in range(400)]
    specs += [_string(name, 12, encoding="embstr") for name in ("data", "temp", "test1", "test2")]
    specs += [_string(f"app:prod:eu:shop:cart:item:{i}:price", 5, encoding="int") for i in range(300)]
    filters = "&".join(f"{k}={v}" for k, v in (("category", "shoes"), ("size", "42"), ("color", "black"),
                                                ("brand", "acme"), ("material", "leather"), ("sort", "price"),
                                                ("in_stock", "true"), ("price_min", "20"), ("price_max", "200")))
    specs += [_string(f"cache:search:q=running+shoes+for+trail&{filters}&page={i}", 900, ttl_s=600)
              for i in range(200)]
    specs += [_string(f"{{tenant:acme}}:order:{i}", 150) for i in range(2000)]
    specs += [_string(f"{{tenant:globex}}:order:{i}", 150) for i in range(100)]
    specs += [_string(f"counter:page:{i}:views", 4, encoding="int") for i in range(5000)]
    for user in (7, 8, 9):
        n = 20000 + 1000 * user
        specs.append({"key": f"events:user:{user}", "type": "zset", "encoding": "skiplist", "n_elements": n,
                      "max_element_bytes": 18, "rdb_bytes": n * 26, "est_memory_bytes": n * 118})
    return specs


def legacy_keys():
    return key_table(legacy_specs())


def node_dump(restored=20, seed=11):
    """Master 0 of three (slots 0-5460): its own keys with SLOT_INFO, plus ``restored`` keys
    from a standalone backup that hash anywhere."""
    own = [f"order:{i}" for i in range(3000)]
    slots = key_slots(pa.array([k.encode() for k in own], pa.binary())).to_numpy()
    own = [k for k, s in zip(own, slots, strict=True) if s <= 5460]
    counts = np.bincount(key_slots(pa.array([k.encode() for k in own], pa.binary())).to_numpy(), minlength=16384)
    slot_info = [(0, int(s), int(counts[s]), 0) for s in np.flatnonzero(counts)]
    rng = random.Random(seed)
    extra = [f"legacy:import:{rng.randrange(10**9)}" for _ in range(restored)]
    return key_table(own + extra, slot_info=slot_info), len(own), extra
