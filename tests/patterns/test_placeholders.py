"""Each placeholder type and edge case on small known inputs."""

import pyarrow as pa
import pytest

from rdbscope.patterns import infer_patterns


def patterns(keys):
    out = infer_patterns([k.encode() if isinstance(k, str) else k for k in keys])
    return out.to_pylist()


def only(keys):
    """The single pattern all ``keys`` share (fails if they get more than one)."""
    found = set(patterns(keys))
    assert len(found) == 1, found
    return found.pop()


@pytest.mark.parametrize(
    "keys, expected",
    [
        (["user:1000:profile", "user:42:profile"], "user:{id}:profile"),
        (["session:550e8400-e29b-41d4-a716-446655440000", "session:6ba7b810-9dad-11d1-80b4-00c04fd430c8"],
         "session:{uuid}"),
        (["session:abc123def456", "session:0a1b2c3d4e5f"], "session:{hex}"),
        (["doc:507f1f77bcf86cd799439011", "doc:5f2b8c9d1e3a4b6c7d8e9f01"], "doc:{hex}"),
        (["blob:d41d8cd98f00b204e9800998ecf8427e"], "blob:{hex}"),
        (["order:20240501:7", "order:20231231:8"], "order:{date}:{id}"),
        (["report:2024-05-01", "report:2023-12-31"], "report:{date}"),
        (["bill:202405", "bill:202312"], "bill:{date}"),
        (["leaderboard:game:101:2024W20", "leaderboard:game:7:2023W01"], "leaderboard:game:{id}:{date}"),
        (["lb:weekly:2030-w01", "lb:weekly:2030-w09"], "lb:weekly:{date}"),
        (["event:1712345678", "event:1700000000"], "event:{ts}"),
        (["click:1712345678123", "click:1700000000000"], "click:{ts}"),
        (["log:2024-05-01T10:00:00Z", "log:2024-06-01T11:30:05Z"], "log:{ts}"),
        (["rate:ip:12.65.136.147", "rate:ip:10.0.0.1"], "rate:ip:{ip}"),
        (["index:user:email:john.doe@example.com", "index:user:email:a_b@mail.co.uk"], "index:user:email:{email}"),
        (["jwt:eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"],
         "jwt:{token}"),
        (["tok:Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==", "tok:QUJDREVGR0hJSktMTU5PUFFSU1RVVldY"], "tok:{b64}"),
    ],
)
def test_placeholder(keys, expected):
    assert only(keys) == expected


def test_words_made_of_hex_letters_stay_literal():
    assert patterns(["menu:cafe", "menu:beef", "menu:facade"]) == ["menu:cafe", "menu:beef", "menu:facade"]


def test_ten_digit_number_outside_epoch_range_is_an_id():
    assert only(["phone:9876543210", "phone:9123456789"]) == "phone:{id}"


def test_eight_digit_number_that_is_no_date_is_an_id():
    assert only(["acct:99999999", "acct:87654321"]) == "acct:{id}"


def test_literal_siblings_stay_separate():
    keys = [f"user:{i}:{suffix}" for i in range(200) for suffix in ("profile", "cart", "orders")]
    assert set(patterns(keys)) == {"user:{id}:profile", "user:{id}:cart", "user:{id}:orders"}


def test_constant_digits_glued_to_letters_stay_literal():
    assert only([f"rate:api:user:{i}:v2" for i in range(50)]) == "rate:api:user:{id}:v2"


def test_varying_digits_glued_to_a_word_become_an_id():
    assert only([f"stats:bytes:disk{i:02d}" for i in range(8)]) == "stats:bytes:disk{id}"


def test_hash_tag_keeps_braces_and_is_inferred_inside():
    assert only(["{user:1000}:cart", "{user:1001}:cart"]) == "{user:{id}}:cart"


def test_non_utf8_keys_get_a_pattern():
    out = patterns([b"bin:\xff\xfe\x001", b"caf\xe9:menu", b"ok:1"])
    assert out == ["bin:\\xff\\xfe\x00{id}", "caf\\xe9:menu", "ok:{id}"]


def test_empty_key():
    assert patterns([b"", b"a:1"]) == ["", "a:{id}"]


def test_key_that_is_only_a_number():
    assert only(["12345", "7", "99999999999"]) == "{id}"


def test_very_long_key():
    long_key = "blob:" + "x" * 100_000 + ":1"
    assert patterns([long_key]) == ["blob:" + "x" * 100_000 + ":{id}"]


def test_no_keys():
    out = infer_patterns(pa.array([], pa.binary()))
    assert len(out) == 0 and out.type == pa.dictionary(pa.int32(), pa.string())


def test_result_is_dictionary_array_in_key_order():
    keys = pa.chunked_array([[b"b:1", b"a:2"], [b"b:3"]])
    out = infer_patterns(keys)
    assert out.type == pa.dictionary(pa.int32(), pa.string())
    assert out.to_pylist() == ["b:{id}", "a:{id}", "b:{id}"]
    assert out.dictionary.to_pylist() == ["a:{id}", "b:{id}"]


def test_arbitrary_bytes_never_crash():
    import random

    rng = random.Random(11)
    alphabet = b"abcXYZ0123456789:./|#_-{}@ \x00\xff\xe9"
    keys = [bytes(rng.choice(alphabet) for _ in range(rng.randrange(0, 40))) for _ in range(3000)]
    keys += ["\ue000id\ue001:x".encode(), b"{", b"}", b"{{}}", b"::::", b"a" * 5000]
    out = infer_patterns(keys)
    assert len(out) == len(keys)
    assert all(isinstance(p, str) for p in out.to_pylist())


def test_digits_glued_to_letters_vary_whatever_the_first_and_last_key():
    """``disk2`` between two ``disk1`` keys makes the number a variable: the lowest and highest key of a
    form settle it, not its first and last (which would name every key ``disk1``)."""
    assert only(["host:disk1:used", "host:disk2:used", "host:disk1:used"]) == "host:disk{id}:used"
    assert only(["host:disk2:used", "host:disk1:used", "host:disk2:used"]) == "host:disk{id}:used"
    assert only(["host:disk1:used", "host:disk1:used"]) == "host:disk1:used"
