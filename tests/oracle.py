"""Compare a scanned KeyTable with an oracle JSON read from a live server."""

import gzip
import json
import os
from dataclasses import dataclass, field

BASIC_TYPES = {"string", "list", "set", "zset", "hash", "stream", "array"}


def read_oracle(path):
    if os.path.exists(path + ".gz"):
        with gzip.open(path + ".gz", "rt") as f:
            return json.load(f)
    with open(path) as f:
        return json.load(f)


def rows_by_key(keytable):
    """{(db, key bytes): row dict} of a KeyTable."""
    table = keytable.to_arrow()
    rows = table.to_pylist()
    return {(r["db"], r["key"]): r for r in rows}


def expire_ms(row):
    value = row["expire_at"]
    if value is None:
        return None
    return int(value.timestamp() * 1000 + 0.5) if value.tzinfo else None


@dataclass
class Comparison:
    """Differences between a scan and an oracle, by field."""

    missing: list = field(default_factory=list)
    extra: list = field(default_factory=list)
    diffs: dict = field(default_factory=dict)

    def add(self, what, key, ours, theirs):
        self.diffs.setdefault(what, []).append((key, ours, theirs))

    def summary(self):
        parts = [f"{len(self.missing)} missing", f"{len(self.extra)} extra"]
        parts += [f"{what}: {len(items)} e.g. {items[:3]}" for what, items in self.diffs.items()]
        return "; ".join(parts)


def element_bytes_from_value(record):
    """max_element_bytes computed from a corpus oracle's canonical value, when present."""
    if "value" not in record or record["type"] not in BASIC_TYPES:
        return None
    value = record["value"]
    t = record["type"]
    if t == "string":
        return len(value) // 2
    if not value:
        return 0
    if t in ("list", "set"):
        return max(len(v) // 2 for v in value)
    if t == "zset":
        return max(len(m) // 2 for m, _score in value)
    if t == "hash":
        return max((len(f) + len(v)) // 2 for f, v in value)
    if t == "stream":
        return max(sum((len(f) + len(v)) // 2 for f, v in pairs) for _id, pairs in value)
    if t == "array":
        return max(len(v) // 2 for _index, v in value)
    return None


def compare(keytable, oracle, *, check_encoding, count_field="count"):
    """Compare key by key; return a Comparison."""
    ours = rows_by_key(keytable)
    result = Comparison()
    for record in oracle["keys"]:
        key = (record["db"], bytes.fromhex(record["key"]))
        row = ours.pop(key, None)
        if row is None:
            result.missing.append(key)
            continue
        if record["type"] in BASIC_TYPES:
            if row["type"] != record["type"]:
                result.add("type", key, row["type"], record["type"])
        elif row["type"] != "module" or row["module_name"] != record["type"]:
            result.add("type", key, (row["type"], row["module_name"]), record["type"])
        if expire_ms(row) != record["expire_at_ms"]:
            result.add("expire", key, expire_ms(row), record["expire_at_ms"])
        count = record.get("count_incl_expired_fields", record.get(count_field))
        if count is not None and row["n_elements"] != count:
            result.add("count", key, row["n_elements"], count)
        if check_encoding and record["type"] in BASIC_TYPES and row["encoding"] != record["encoding"]:
            result.add("encoding", key, row["encoding"], record["encoding"])
        expected_max = record.get("max_element_bytes", element_bytes_from_value(record))
        if expected_max is not None and row["max_element_bytes"] != expected_max:
            result.add("max_element_bytes", key, row["max_element_bytes"], expected_max)
        if "n_fields_with_ttl" in record and row["n_fields_with_ttl"] != record["n_fields_with_ttl"]:
            result.add("n_fields_with_ttl", key, row["n_fields_with_ttl"], record["n_fields_with_ttl"])
        if "lfu_freq" in record and row["lfu_freq"] != record["lfu_freq"]:
            result.add("lfu_freq", key, row["lfu_freq"], record["lfu_freq"])
        if "idle_s" in record and record["idle_s"] is not None:
            # The oracle read OBJECT IDLETIME a moment before SAVE wrote the dump.
            if row["idle_s"] is not None and abs(row["idle_s"] - record["idle_s"]) > 3:
                result.add("idle_s", key, row["idle_s"], record["idle_s"])
    result.extra = sorted(ours)
    return result
