"""Values in each format, written by the real library or tool of that format through its public API.

Each writer takes a document (dicts, lists, strings, numbers) and returns the bytes its library wrote.
The tools outside Python (PHP, Ruby, a JDK) are Debian packages; a writer whose tool is absent skips,
naming the package (where RDBSCOPE_REQUIRE_SERVERS=1, as in CI, it fails instead).
"""

import base64
import gzip
import json
import pathlib
import pickle
import random
import shutil
import subprocess
import zlib

import lz4.frame
import msgpack
import zstandard
from conftest import skip_or_fail

HERE = pathlib.Path(__file__).resolve().parent


def record(rng, i):
    """One order record of a real shape: ids, names, nested items, numbers, flags."""
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda omicron".split()
    return {
        "order_id": f"{rng.getrandbits(64):016x}",
        "customer": {"id": rng.randrange(10**6), "name": f"Customer {i}", "email": f"c{i}@example.com"},
        "status": rng.choice(["new", "paid", "shipped"]),
        "vip": rng.random() < 0.1,
        "items": [{"sku": f"SKU-{rng.randrange(10**5):05d}", "qty": rng.randrange(1, 5),
                   "price_cents": rng.randrange(100, 50_000), "title": " ".join(rng.choices(words, k=3))}
                  for _ in range(rng.randrange(2, 6))],
    }


def document(n_records, seed=1):
    """A JSON-able document of ``n_records`` records, with random ids (so compression leaves it large)."""
    rng = random.Random(seed)
    return {"version": 3, "records": [record(rng, i) for i in range(n_records)]}


#: A document every writer turns into a few hundred bytes (read whole), and one that runs past 4096 bytes
#: in every format, compressed ones included (read cut).
SMALL = document(2)
LARGE = document(400)


def json_bytes(doc):
    return json.dumps(doc).encode()


def msgpack_bytes(doc):
    return msgpack.packb(doc)


def pickle_writer(protocol):
    return lambda doc: pickle.dumps(doc, protocol=protocol)


def php_serialize(doc):
    """PHP's ``serialize`` of the document (decoded by PHP's own json_decode into arrays)."""
    return _run("php", "php-cli", ["-r", "echo serialize(json_decode(stream_get_contents(STDIN), true));"],
                json_bytes(doc))


def ruby_marshal(doc):
    """Ruby's ``Marshal.dump`` of the document (parsed by Ruby's JSON)."""
    return _run("ruby", "ruby", ["-rjson", "-e", "print Marshal.dump(JSON.parse(STDIN.read))"], json_bytes(doc))


def java_serialized(doc):
    """``ObjectOutputStream.writeObject`` of a HashMap of the document's records (JavaSerialize.java, launched
    from source by the JDK)."""
    if not shutil.which("javac"):
        skip_or_fail("no JDK on this machine (java with its compiler); apt-get install default-jdk-headless")
    lines = "\n".join(json.dumps(r, sort_keys=True) for r in doc["records"]).encode()
    return _run("java", "default-jdk-headless", [str(HERE / "JavaSerialize.java")], lines)


def protobuf_struct(doc):
    """The document as a ``google.protobuf.Struct`` message."""
    from google.protobuf import struct_pb2

    message = struct_pb2.Struct()
    message.update(doc)
    return message.SerializeToString(deterministic=True)


def protobuf_timestamp(_doc):
    """A ``google.protobuf.Timestamp`` message (seconds and nanos)."""
    from google.protobuf import timestamp_pb2

    return timestamp_pb2.Timestamp(seconds=1_700_000_123, nanos=456_789_000).SerializeToString()


def gzip_bytes(doc):
    return gzip.compress(json_bytes(doc))


def zlib_bytes(doc):
    return zlib.compress(json_bytes(doc))


def zstd_bytes(doc):
    return zstandard.ZstdCompressor(level=3).compress(json_bytes(doc))


def lz4_bytes(doc):
    return lz4.frame.compress(json_bytes(doc))


def snappy_bytes(doc):
    """Snappy's framing format (cramjam's ``snappy.compress`` writes the framed stream)."""
    import cramjam

    return bytes(cramjam.snappy.compress(json_bytes(doc)))


def base64_bytes(doc):
    return base64.b64encode(pickle.dumps(doc, protocol=4))


#: format name -> writer.
WRITERS = {
    "json": json_bytes,
    "msgpack": msgpack_bytes,
    "pickle-2": pickle_writer(2),
    "pickle-4": pickle_writer(4),
    "pickle-5": pickle_writer(5),
    "php-serialize": php_serialize,
    "ruby-marshal": ruby_marshal,
    "java-serialized": java_serialized,
    "protobuf": protobuf_struct,
    "gzip": gzip_bytes,
    "zlib": zlib_bytes,
    "zstd": zstd_bytes,
    "lz4": lz4_bytes,
    "snappy": snappy_bytes,
    "base64": base64_bytes,
}


def _run(tool, package, args, stdin):
    if not shutil.which(tool):
        skip_or_fail(f"no {tool} on this machine; apt-get install {package}")
    return subprocess.run([tool, *args], input=stdin, capture_output=True, check=True, timeout=120).stdout


def string_sample(value):
    """The ValueSample the value sample reads of a string ``value``."""
    from rdbscope.values.sample import HEAD_BYTES, ValueSample

    return ValueSample("string", "raw", len(value), head=value[:HEAD_BYTES])


def collection_sample(kind, values, fields=None):
    """The ValueSample the value sample reads of a collection of ``values`` (a hash's, with ``fields``)."""
    from rdbscope.values.sample import HEAD_BYTES, HEAD_ELEMENTS, ValueSample

    first = values[:HEAD_ELEMENTS]
    return ValueSample(kind, "hashtable" if kind == "hash" else "listpack", len(values),
                       fields=tuple(fields[:HEAD_ELEMENTS]) if fields else (),
                       elements=tuple(v[:HEAD_BYTES] for v in first), element_lengths=tuple(len(v) for v in first))


def write_values(client, values, prefix="doc"):
    """SET (or HSET, for dicts) ``values`` under ``prefix:<i>`` on an emptied server: their total MEMORY USAGE."""
    client.flushall()
    pipe = client.pipeline(transaction=False)
    keys = [f"{prefix}:{i}" for i in range(len(values))]
    for key, value in zip(keys, values, strict=True):
        if isinstance(value, dict):
            pipe.hset(key, mapping=value)
        else:
            pipe.set(key, value)
    pipe.execute()
    for key in keys:
        pipe.execute_command("MEMORY", "USAGE", key, "SAMPLES", "0")
    return sum(pipe.execute())
