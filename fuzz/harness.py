#!/usr/bin/env python3
"""Coverage-guided fuzzing of the scanner (its Python build) with atheris, which is libFuzzer.

Each input is a whole dump, read with ``verify_crc=False`` so that mutations are not all
stopped by the checksum: by ``load()`` when its length is even, by ``scan()`` in small batches
with ``on_error="stop"`` when odd (fuzz/bounded.py replays both ways). ``RdbError`` is the
expected way for a bad dump to fail; anything else raised, a signal, a timeout or running out
of memory is a failure that libFuzzer saves. A dump that loads (even length) also goes through
every pass and the views that print its instants. One mutation in four sets a value to an extreme
(fuzz/values.py: lengths, counts, expiry times, header integers), the others are libFuzzer's own.
rdbscope runs from its .py sources (``RDBSCOPE_PUREPYTHON=1``, and the compiled extensions are
not even imported), so atheris can instrument every module; ``fuzz/replay.py`` then runs what the
campaign saved on the compiled build. Run from the checkout's root, one process, niced:

    python fuzz/make_seeds.py /tmp/fuzz-seeds
    nice -n 10 fuzz/harness.py /tmp/fuzz-corpus /tmp/fuzz-seeds -artifact_prefix=/tmp/fuzz-failures/ \\
        -dict=fuzz/rdb.dict \\
        -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \\
        -max_len=16384 -timeout=10 -rss_limit_mb=3072 -print_final_stats=1 -max_total_time=3600

libFuzzer's fork mode re-runs this file for each job, which is why it is executable.
"""

import functools
import gc
import importlib.abc
import importlib.util
import io
import os
import pathlib
import resource
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["RDBSCOPE_PUREPYTHON"] = "1"

import atheris

#: Address space beyond what the interpreter holds after its imports (pyarrow alone reserves
#: over a gigabyte): a dump that asks for more raises MemoryError at once instead of swapping.
MEMORY_HEADROOM = 2 << 30
COLLECT_ABOVE = None  # mapped bytes above which the harness runs the cyclic collector (set in main)


class SourcesFirst(importlib.abc.MetaPathFinder):
    """Import rdbscope's modules from their .py files even where a compiled twin sits beside them.

    A compiled module would be invisible to atheris's coverage, and rdbscope's own fallback
    loads the source outside the import system, where atheris's hook does not reach.
    """

    def find_spec(self, fullname, path, target=None):
        if not fullname.startswith("rdbscope.") or not path:
            return None
        source = pathlib.Path(path[0]) / (fullname.rpartition(".")[2] + ".py")
        return importlib.util.spec_from_file_location(fullname, source) if source.is_file() else None


def mapped_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * resource.getpagesize()


def cap_address_space(headroom):
    """Let the process map ``headroom`` bytes more than it has mapped now; return that cap."""
    cap = mapped_bytes() + headroom
    resource.setrlimit(resource.RLIMIT_AS, (cap, resource.RLIM_INFINITY))
    return cap


def modules_a_load_never_runs():
    """rdbscope's passes, rules, reports and CLI: imported with the package but left
    uninstrumented, which saves seconds at the start of every fork-mode job."""
    package = ROOT / "rdbscope"
    names = (".".join(("rdbscope",) + path.relative_to(package).with_suffix("").parts).removesuffix(".__init__")
             for path in package.rglob("*.py"))
    reader = ("rdbscope.rdb", "rdbscope.compiled", "rdbscope.keys", "rdbscope.errors")
    return [name for name in names if name != "rdbscope" and not name.startswith(reader)]


#: The scanner's own modules, each with a compiled twin (their .pxd beside them).
READER_MODULES = sorted(path.stem for path in (ROOT / "rdbscope" / "rdb").glob("_*.pxd") if path.stem != "_words")


import numpy  # noqa: F401  (the big imports happen outside the instrumented block)
import pyarrow  # noqa: F401

with atheris.instrument_imports(include=["rdbscope"], exclude=modules_a_load_never_runs()):
    # Right after atheris's own finder (which sits after the builtin and frozen importers), which
    # instruments what the finders behind it find; before it, nothing this finds was instrumented.
    hook = next(i for i, finder in enumerate(sys.meta_path) if type(finder).__name__ == "AtherisMetaPathFinder")
    sys.meta_path.insert(hook + 1, SourcesFirst())
    import rdbscope
    import rdbscope.rdb
    # The scanner's modules load at the first scan otherwise, outside this block, uninstrumented.
    for name in READER_MODULES:
        importlib.import_module(f"rdbscope.rdb.{name}")
from fuzz import values
from rdbscope.report import views  # uninstrumented: see modules_a_load_never_runs

# A memory model depends only on (layout, allocator, list-compress-depth) and never changes
# once built, but building one computes 4,096 allocation sizes: 80% of a small dump's scan.
# Build each once, as a long-running process would, so the executions go to the parser.
memory_models = sys.modules["rdbscope.rdb._memory"]
memory_models.MemoryModel = functools.lru_cache(maxsize=None)(memory_models.MemoryModel)

assert pathlib.Path(rdbscope.__file__).parent == ROOT / "rdbscope", rdbscope.__file__
assert rdbscope.rdb.IMPLEMENTATION == "python" and "cython" not in rdbscope.rdb.implementations()


def test_one_input(data):
    # A scan stopped by an RdbError stays in a reference cycle with its presized column
    # mappings (~150 MB of address space for a stream) until the cyclic collector runs: collect
    # before they add up to the cap, so that only what one input does can reach it.
    if mapped_bytes() > COLLECT_ABOVE:
        gc.collect()
    try:
        if len(data) % 2:  # as `rdbscope scan` reads: small batches, keep what came before damage
            for _batch in rdbscope.scan(io.BytesIO(data), verify_crc=False, batch_rows=64, on_error="stop"):
                pass
        else:  # as load() and the reports read: batches presized for the whole database
            rdbscope.load(io.BytesIO(data), verify_crc=False)
    except rdbscope.RdbError:
        return
    if len(data) % 2 == 0:
        analyse(data)


def analyse(data):
    """A dump that loads goes through every pass and the views that print its instants: hostile values
    in valid dumps (an expiry of 2**63-1 ms, a ctime of 2**64) failed there (issue 29)."""
    keys = rdbscope.load(io.BytesIO(data), verify_crc=False)
    result = rdbscope.analyze(keys)
    views.big_key_rows(result, top=None)
    views.dump_ctime(keys.info)


def mutate(data, max_size, seed):
    """One in four mutations sets a value to an extreme (fuzz/values.py); the others are libFuzzer's."""
    if seed % 4 == 0:
        mutated = values.mutate(data, seed)
        if mutated is not None and len(mutated) <= max_size:
            return mutated
    return atheris.Mutate(data, max_size)


def main():
    global COLLECT_ABOVE
    COLLECT_ABOVE = cap_address_space(MEMORY_HEADROOM) - MEMORY_HEADROOM // 2
    atheris.Setup(sys.argv, test_one_input, custom_mutator=mutate)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
