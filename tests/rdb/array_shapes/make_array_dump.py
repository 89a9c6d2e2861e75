#!/usr/bin/env python3
"""Write ``arrays.rdb`` and its oracle ``arrays.json``: Redis 8.8 arrays of every shape the memory model tells apart.

Usage: ``python make_array_dump.py PATH/TO/redis-server`` (a build that has ``ARSET``, such as unstable at
commit e5804197, the build of the RDB 14 sample dumps). The server is started on 127.0.0.1 with the
plumbing of ``sample_dumps/make_sample_dumps.py``; each array is written with ``ARSET`` (some out of
index order), the server reloads its own dump (``DEBUG RELOAD``), and the oracle records, per key,
``ARCOUNT`` and ``MEMORY USAGE ... SAMPLES 0`` as the server reports them after that load.

The shapes: slices of 1 to 12 elements (sparse of 4, 8 and 10 slots, then dense), dense windows that
grow, or end at the slice's end, full slices, a flat directory of many slices, directories in blocks
(from index 8,388,608 on; more than four blocks), and strings kept in the tagged word or allocated
apart (short and long length headers), integers past 62 bits, floats.
"""

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2] / "sample_dumps"))
import make_sample_dumps  # noqa: E402

SLICE = 4096  # array-slice-size, the server's default
BLOCK = 2048 * SLICE  # the first index of the second directory block


def shapes(rng: random.Random) -> dict[str, list[tuple[int, str]]]:
    """``{key: [(index, value), ...]}``, in the order they are written."""
    arrays = {f"array:slice:{n}": [(37 * i, f"v{i}") for i in range(n)] for n in range(1, 13)}
    arrays["array:dense:grows"] = [(i, str(rng.randrange(-500, 5000))) for i in range(300)]
    arrays["array:dense:wide-first-ten"] = [(100 * i, "w") for i in range(11)] + [(4000, "x")]
    arrays["array:dense:at-slice-end"] = [(4070 + 2 * i, str(i)) for i in range(13)]
    arrays["array:dense:grows-to-slice-end"] = [(3000 + i, "y") for i in range(12)] + [(3500, "z"), (4095, "z")]
    arrays["array:dense:full-slices"] = [(i, "f") for i in range(2 * SLICE + 100)]
    arrays["array:dense:across-slices"] = [(SLICE - 20 + i, str(i)) for i in range(40)]
    arrays["array:flat:many-slices"] = [(3 * SLICE * k, str(k)) for k in range(300)]
    arrays["array:flat:last-flat-slice"] = [(2047 * SLICE + 1, "a"), (5, "b")]
    arrays["array:blocks:one-far"] = [(10**12, "far")]
    arrays["array:blocks:nine"] = [(k * BLOCK + 5, f"block-{k}-value") for k in range(9)]
    arrays["array:strings:7-and-8"] = [(i, "x" * 7 if i % 2 else "y" * 8) for i in range(30)]
    arrays["array:strings:long-headers"] = [(0, "z" * 40000), (1, "w" * 32767), (2, "q" * 32768)]
    arrays["array:strings:int-and-float-like"] = [(i, "1234567890123" if i % 2 else "3.25") for i in range(12)]
    arrays["array:ints:past-62-bits"] = ([(i, str(2**61 + i)) for i in range(20)]
                                         + [(100, str(-(2**61) - 1)), (101, str(2**61 - 1))])
    arrays["array:floats"] = [(i, f"{rng.random():.3f}") for i in range(50)]
    shuffled = [(3 * i, "abcdefghij") for i in range(700)]
    rng.shuffle(shuffled)
    arrays["array:out-of-order"] = shuffled
    choices = ["a", "12", "3.25", "a longer string value", str(10**15)]
    arrays["array:mixed"] = [(rng.randrange(10**7), rng.choice(choices)) for _ in range(400)]
    arrays["array:with-ttl"] = [(i, str(i)) for i in range(10)]
    return arrays


def main() -> None:
    binary = make_sample_dumps.describe_server(sys.argv[1])
    if binary is None:
        sys.exit(f"{sys.argv[1]}: not a redis-server")
    arrays = shapes(random.Random(28))
    config = {"save": "", "appendonly": "no", "enable-debug-command": "local"}
    with make_sample_dumps.RunningServer(binary, config) as running:
        client = running.client(0)
        for key, pairs in arrays.items():
            pipe = client.pipeline(transaction=False)
            for index, value in pairs:
                pipe.execute_command("ARSET", key, index, value)
            pipe.execute()
        client.execute_command("PEXPIREAT", "array:with-ttl", 1_900_000_000_000)
        client.execute_command("DEBUG", "RELOAD")
        keys = []
        for key in arrays:
            keys.append({"key": key, "count": client.execute_command("ARCOUNT", key),
                         "memory_usage_loaded": client.execute_command("MEMORY", "USAGE", key, "SAMPLES", 0)})
        client.execute_command("SAVE")
        dump = running.dump_path.read_bytes()
    (HERE / "arrays.rdb").write_bytes(dump)
    oracle = {"server": binary.label, "version": binary.version,
              "build": make_sample_dumps.BUILDS[binary.label].origin if binary.label in make_sample_dumps.BUILDS
              else None, "config": config, "keys": keys}
    (HERE / "arrays.json").write_text(json.dumps(oracle, indent=1) + "\n")


if __name__ == "__main__":
    main()
