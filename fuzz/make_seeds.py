"""Cut the sample dumps into tiny dumps, one type and encoding each: the fuzzer's seed corpus.

A sample dump holds ~2,000 keys, far too many for one execution of the Python build. Each
seed here is that dump's header (magic, version, AUX fields, functions, the first SELECTDB
and RESIZEDB) + one to three key records + EOF + a zero checksum (the harness does not check
it). Records are cut with the key table's ``offset`` and ``rdb_bytes`` columns. A few seeds
come again compressed (gzip, bz2, xz, zstd, lz4), and the small public dumps of
../shared/rdb-corpus and the valid dumps with hostile values of tests/rdb/fuzz_regressions
are copied in as they are.

    python fuzz/make_seeds.py /tmp/fuzz-corpus
"""

import argparse
import hashlib
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import rdbscope

SAMPLE_DUMPS = ROOT / "sample_dumps"
REGRESSIONS = ROOT / "tests" / "rdb" / "fuzz_regressions"
# ../shared/rdb-corpus beside the checkout, or beside the folder of worktrees.
CORPUS = next((parent / "shared" / "rdb-corpus" / "public" for parent in ROOT.parents
               if (parent / "shared" / "rdb-corpus" / "public").is_dir()), None)
EOF_AND_ZERO_CHECKSUM = b"\xff" + bytes(8)
MAX_RECORD_BYTES = 4096
MAX_CORPUS_DUMP_BYTES = 16384
COMPRESSED_SEEDS = 3


def records_by_shape(path):
    """(header bytes, {(type, encoding, has TTL): [(offset, size), ...]} smallest first, tail bytes)."""
    data = path.read_bytes()
    table = rdbscope.load(path).to_arrow().sort_by("offset")
    offsets = table.column("offset").to_pylist()
    sizes = table.column("rdb_bytes").to_pylist()
    shapes = {}
    for offset, size, type_, encoding, expire in zip(
            offsets, sizes, table.column("type").to_pylist(), table.column("encoding").to_pylist(),
            table.column("expire_at").to_pylist(), strict=True):
        shapes.setdefault((type_, encoding, expire is not None), []).append((offset, size))
    for records in shapes.values():
        records.sort(key=lambda record: record[1])
    last_end = offsets[-1] + sizes[-1]
    return data, data[:offsets[0]], shapes, data[last_end:]


def seeds_from_sample(path):
    """Tiny dumps cut from one sample dump."""
    data, header, shapes, tail = records_by_shape(path)
    def cut(record):
        return data[record[0]:record[0] + record[1]]

    small = {shape: [r for r in records if r[1] <= MAX_RECORD_BYTES] for shape, records in shapes.items()}
    for records in small.values():
        if not records:
            continue
        yield header + cut(records[0]) + EOF_AND_ZERO_CHECKSUM
        if len(records) > 1:  # the largest that fits too: longer runs, other node layouts
            yield header + cut(records[-1]) + EOF_AND_ZERO_CHECKSUM
    # One seed with a record of every shape in a row, and the dump's own ending
    # (module AUX fields written after the keys, the real checksum position).
    mixed = b"".join(cut(records[0]) for records in small.values() if records)
    yield header + mixed[:4 * MAX_RECORD_BYTES] + EOF_AND_ZERO_CHECKSUM
    yield header + tail


def compressed_seeds(seeds):
    """A few seeds again in each compression rdbscope reads, for the decompressing streams."""
    import bz2
    import gzip
    import lzma

    import lz4.frame
    import zstandard

    for seed in seeds[:COMPRESSED_SEEDS]:
        yield gzip.compress(seed)
        yield bz2.compress(seed)
        yield lzma.compress(seed)
        yield zstandard.ZstdCompressor().compress(seed)
        yield lz4.frame.compress(seed)


def corpus_seeds():
    if CORPUS is None:
        return
    for path in sorted(CORPUS.rglob("*.rdb")):
        if path.stat().st_size <= MAX_CORPUS_DUMP_BYTES:
            yield path.read_bytes()


def regression_seeds():
    """The valid dumps with hostile values of the regressions (expiries past 9999, a ctime of 2**64...)."""
    for path in sorted(REGRESSIONS.glob("hostile-*.rdb")):
        yield path.read_bytes()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=pathlib.Path, help="folder to write the seeds into")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    written = 0
    sources = [list(seeds_from_sample(path)) for path in sorted(SAMPLE_DUMPS.glob("*.rdb"))]
    smallest = sorted((seed for seeds in sources for seed in seeds), key=len)
    for seeds in sources + [compressed_seeds(smallest[len(smallest) // 2:]), corpus_seeds(),
                            regression_seeds()]:
        for seed in seeds:
            name = args.out / f"seed-{hashlib.sha1(seed).hexdigest()[:16]}"
            if not name.exists():
                name.write_bytes(seed)
                written += 1
    print(f"{written} seeds written to {args.out}")


if __name__ == "__main__":
    main()
