"""value_format: each format as its real library writes it, read whole and cut at HEAD_BYTES; texts and
numbers stay text and numbers; short or arbitrary bytes fall to text or binary."""

import json
import random
import time
import uuid
import zlib
from collections import Counter

import msgpack
import pytest
from value_fixtures import LARGE, SMALL, WRITERS, json_bytes, protobuf_timestamp

from rdbscope.values.formats import FORMATS, value_format
from rdbscope.values.sample import HEAD_BYTES


@pytest.mark.parametrize("name", list(WRITERS))
def test_a_whole_value_is_recognised(name):
    data = WRITERS[name](SMALL)
    assert len(data) < HEAD_BYTES
    assert value_format(data) == name


@pytest.mark.parametrize("name", list(WRITERS))
def test_a_value_cut_at_head_bytes_is_recognised(name):
    data = WRITERS[name](LARGE)
    assert len(data) > HEAD_BYTES
    assert value_format(data[:HEAD_BYTES]) == name
    assert value_format(data) == name


@pytest.mark.parametrize("name", list(WRITERS))
def test_every_name_is_listed(name):
    assert name in FORMATS


def test_a_protobuf_timestamp_is_protobuf():
    assert value_format(protobuf_timestamp(None)) == "protobuf"


@pytest.mark.parametrize("value", [0, 7, -42, 12345678901234567890, 3.25, -0.001, 1e-9, 6.02e23])
def test_a_number_is_a_number_not_json(value):
    assert value_format(json.dumps(value).encode()) == "number"
    assert value_format(str(value).encode()) == "number"


@pytest.mark.parametrize("text", [
    "hello world", "true", "null", '"a JSON string"', "[INFO] worker started", "{not json}", "[1, 2",
    "Grüße aus Köln", "这是一个测试", str(uuid.UUID(int=7)), "5d41402abc4b2a76b9719d911017c592",
    "aGVsbG8=", "HelloWorldFooBarBazQux", "x^ looks like a zlib header", "a:2 not php", "s:5:\"hello",
])
def test_a_text_is_text(text):
    assert value_format(text.encode()) == "text"


def test_a_long_text_cut_at_head_bytes_is_text_even_when_it_opens_like_json():
    log = "".join(f"[2024-05-0{i % 9 + 1}] GET /api/items/{i} 200 — Grüße\n" for i in range(400)).encode()
    assert len(log) > HEAD_BYTES
    assert value_format(log[:HEAD_BYTES]) == "text"
    # Cut inside a multi-byte character: still text.
    cut_inside = log[:log.index("ü".encode()) + 1]
    assert value_format(cut_inside, cut=True) == "text"


def test_a_json_document_cut_short_counts_only_when_the_value_was_cut():
    data = json_bytes(SMALL)[:100]
    assert value_format(data, cut=True) == "json"
    assert value_format(data) == "text"  # a whole value that stops mid-document is not JSON


#: A cut document is recognised once this much of it is there (shorter cuts need not be).
SHOWN = 64


@pytest.mark.parametrize("name", ["json", "msgpack", "pickle-2", "pickle-4", "pickle-5"])
def test_a_document_cut_anywhere_is_recognised(name):
    data = WRITERS[name](SMALL)
    assert [n for n in range(SHOWN, len(data)) if value_format(data[:n], cut=True) != name] == []


def test_a_json_document_cut_anywhere_is_json():
    data = json_bytes(SMALL)
    assert [n for n in range(2, len(data)) if value_format(data[:n], cut=True) != "json"] == []


@pytest.mark.parametrize("value", [5, "hi", [1], {}, True, None, -3])
def test_short_msgpack_is_binary(value):
    data = msgpack.packb(value)
    assert len(data) < 4
    assert value_format(data) == "binary"


def test_arbitrary_bytes_are_binary():
    rng = random.Random(5)
    heads = [rng.randbytes(HEAD_BYTES) for _ in range(2000)]
    # Bytes that open like a MessagePack container or a pickle, but go on at random.
    openings = [bytes([rng.choice([*range(0x80, 0xA0), 0xDC, 0xDE])]), b"\x80\x02", b"\x80\x04", b"\x80\x05\x95"]
    heads += [rng.choice(openings) + rng.randbytes(HEAD_BYTES) for _ in range(2000)]
    shorter = [rng.randbytes(rng.randrange(16, 300)) for _ in range(2000)]
    assert Counter(value_format(head) for head in heads) == {"binary": len(heads)}
    # Protobuf's wire format is loose: a few short random strings parse as two fields or so.
    assert Counter(value_format(data) for data in shorter)["binary"] >= 0.998 * len(shorter)


def test_empty():
    assert value_format(b"") == "empty"


@pytest.mark.parametrize("data", [
    b"[" * HEAD_BYTES, b"\x91" * HEAD_BYTES, b"\x91" * 2000 + b"\x01", b"\n\xff\x7f" * 1365,
    b"\x1f\x8b\x08" + bytes(HEAD_BYTES), b"\x28\xb5\x2f\xfd" + b"\xff" * 10, b"\x80\x04\x95" + b"\xff" * 8 + b"." * 10,
    b"\xdd\xff\xff\xff\xff" + b"\x01" * 4091, b"\xdf\xff\xff\xff\xff" + b"\xa1a\x01" * 1363,
    zlib.compress(bytes(10_000_000))[:HEAD_BYTES], b'a:99999999999999999999:{i', b"\xc1" * 8,
], ids=lambda data: data[:6].hex())
def test_hostile_bytes_get_a_format_quickly(data):
    started = time.perf_counter()
    assert value_format(data) in FORMATS
    assert time.perf_counter() - started < 0.05
