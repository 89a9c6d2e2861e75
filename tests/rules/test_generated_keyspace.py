"""The rules on a generated legacy keyspace, where each finds what the sample dumps hold too little of."""

from legacy_keyspace import legacy_keys, node_dump

from rdbscope import lint
from rdbscope.config import Config

#: CLU001 simulates a cluster only when told how many masters it has.
THREE_MASTERS = Config().with_rule_options("CLU001", masters=3)

EXPECTED = {
    ("NAM002", "hotSearch:rank:{id}"): 50,
    ("NAM002", "userSession:{uuid}"): 400,
    # The filters are the same in every search: their numbers stay in the pattern.
    ("NAM006", "cache:search:q=running+shoes+for+trail&category=shoes&size=42&color=black&brand=acme&"
               "material=leather&sort=price&in_stock=true&price_min=20&price_max=200&page={id}"): 200,
    ("NAM008", "data"): 1, ("NAM008", "temp"): 1, ("NAM008", "test{id}"): 2,
    ("NAM009", "data"): 1, ("NAM009", "temp"): 1, ("NAM009", "test{id}"): 2,
    ("NAM010", "user"): 3500,
    ("NAM011", "app:prod:eu:shop:cart:item:{id}:price"): 300,
    ("CLU001", None): 5127,
    ("CLU002", "{tenant:acme}:order:{id}"): 2000,
    ("ENC002", "counter:page:{id}:views"): 5000,
    ("ENC004", "events:user:{id}"): 3,
}


def test_what_each_rule_finds():
    findings = lint(legacy_keys(), THREE_MASTERS).finding_list
    assert {(f.code, f.pattern): f.n_keys for f in findings} == EXPECTED
    assert {(f.code, f.pattern): f.n_keys for f in lint(legacy_keys()).finding_list} == {
        k: v for k, v in EXPECTED.items() if k[0] != "CLU001"}


def test_figures_of_the_findings():
    found = {f.code: f for f in lint(legacy_keys(), THREE_MASTERS).finding_list}
    assert found["NAM006"].details_dict["longest_bytes"] == 162
    assert found["NAM010"].details_dict["styles"][1] == {
        "delimiter": ".", "n_keys": 500, "memory_bytes": 56000, "patterns": ["user.{id}.settings"]}
    tags = found["CLU002"].details_dict["tags"]
    assert [(t["tag"], t["slot"], t["n_keys"]) for t in tags] == [("tenant:acme", 1612, 2000)]
    assert tags[0]["keys_share"] == round(2000 / 11557, 4)
    clu001 = found["CLU001"].details_dict
    assert (clu001["node"], clu001["key_ratio"]) == (0, round(5127 / (11557 / 3), 3))
    assert found["ENC002"].details_dict["n_hashes"] == 50
    assert 0.6 < found["ENC002"].details_dict["est_saving_bytes"] / found["ENC002"].est_memory_bytes < 0.8
    assert 0.6 < found["ENC004"].details_dict["est_saving_bytes"] / found["ENC004"].est_memory_bytes < 0.8


def test_restored_keys_outside_a_nodes_slots():
    keys, n_own, restored = node_dump()
    findings = lint(keys).finding_list
    node = [f for f in findings if f.code == "CLU004"]
    assert len(node) == 1 and node[0].details_dict["recorded_keys"] == n_own
    outside = {f.pattern: f for f in findings if f.code == "CLU005"}
    assert outside["legacy:import:{id}"].n_keys == len(restored) == 20
    # Own keys that share a slot with a restored one cannot be told apart from it.
    assert outside["order:{id}"].details_dict["n_keys_in_unlisted_slots"] == 0
    assert set(outside) == {"legacy:import:{id}", "order:{id}"}
