"""Finding messages count in good English: "1 key", "1 hash", "has"; never "1 keys"."""

import re

from keytables import key, make_keys

import rdbscope
from rdbscope.config import Config
from rdbscope.passes.ttl import TtlOptions

MB = 1024 * 1024
ONE_PLURAL = re.compile(r"(?<![\d,.])1 (keys|hashes|levels|elements|patterns)\b")


def messages(rows, config=None, select=("TTL", "BIG", "ENC", "NAM")):
    keys = make_keys(rows)
    found = [f for f in rdbscope.analyze(keys, config or Config()).finding_list if f.code.startswith(select)]
    return {f.code: f.message for f in found}


def test_ttl_findings_about_one_key():
    rows = [key(f"job:{i}", ttl_s=60) for i in range(10)] + [key("job:10")]
    said = messages(rows, Config(ttl=TtlOptions(mixed_min_keys=2)))
    assert said["TTL001"].startswith("10 keys of job:{id} have a TTL but 1 (") and said["TTL001"].endswith(
        "does not")
    rows = [key("session:1"), key("session:2", ttl_s=60), key("user:1", rdb_bytes=10 * MB)]
    said = messages(rows, Config(ttl=TtlOptions(mixed_min_keys=2)))
    assert "1 of the 2 keys of session:{id}" in said["TTL002"] and ") has no TTL" in said["TTL002"]
    assert said["TTL003"].startswith("2 keys without TTL") and " hold " in said["TTL003"]
    rows = [key("cache:1", ttl_s=-5), key("cache:2", ttl_s=60)]
    assert messages(rows)["TTL004"].startswith("1 key (")


def test_big_key_findings_about_one_key():
    rows = [key("feed:1", "list", n_elements=20_000), key("feed:2", "list", n_elements=3)]
    said = messages(rows)
    assert said["BIG002"].startswith("1 list key of feed:{id} with more than 5,000 elements")
    for message in said.values():
        assert not ONE_PLURAL.search(message), message
