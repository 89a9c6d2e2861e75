"""A cluster node's dump told apart by its keys' slots (CLU004), and CLU001 left off for it."""

import numpy as np
import pytest
from rule_keyspace import key_table, run_rule

from rdbscope.rdb import DumpInfo
from rdbscope.rdb.cluster import N_SLOTS, key_slot
from rdbscope.rules.cluster import node_slots, slot_ranges


def keys_in(first, last, n, db=0, stem="order:{i}:status"):
    """``n`` key specs, in ``db``, whose names hash to slots ``first``..``last``."""
    names, i = [], 0
    while len(names) < n:
        name = stem.replace("{i}", str(i))
        if first <= key_slot(name) <= last:
            names.append({"key": name, "db": db})
        i += 1
    return names


@pytest.mark.parametrize("master", [0, 1, 2])
def test_a_node_of_three_is_named_by_its_slot_range(master):
    first, last = slot_ranges(3)[master]
    keys = key_table(keys_in(first, last, 1200))
    (finding,) = run_rule("CLU004", keys)
    details = finding.details_dict
    assert (details["ranges"], details["masters"], details["master"]) == (f"{first}-{last}", 3, master)
    assert details["recorded"] is False and details["n_slots"] == last - first + 1
    assert finding.message.startswith(f"Cluster node dump: slots {first}-{last}; all 1,200 keys hash only to")
    assert run_rule("CLU001", keys, {"masters": 3}) == []


def test_keys_of_other_dbs_are_never_a_node():
    specs = keys_in(0, 5460, 600) + keys_in(0, 5460, 600, db=1, stem="cart:{i}")
    keys = key_table(specs)
    assert run_rule("CLU004", keys) == []
    (finding,) = run_rule("CLU001", keys, {"masters": 3})
    assert finding.details_dict["node"] == 0 and "100% of the keys" in finding.message


@pytest.mark.parametrize("n_keys", [20, 100, 1000, 20_000])
def test_keys_over_all_slots_are_not_a_node(n_keys):
    rng = np.random.default_rng(n_keys)
    for _ in range(50):
        slot_keys = np.bincount(rng.integers(0, N_SLOTS, n_keys), minlength=N_SLOTS)
        assert node_slots(DumpInfo(), slot_keys, np.zeros(1, np.int32)) is None


def test_a_resharded_node_lists_its_ranges():
    slot_keys = np.zeros(N_SLOTS, np.int64)
    slot_keys[0:3000] = 1
    slot_keys[9000:10000] = 1
    node = node_slots(DumpInfo(), slot_keys, np.zeros(1, np.int32))
    assert node.ranges == ((0, 2999), (9000, 9999)) and node.masters is None
