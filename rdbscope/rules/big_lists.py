"""Big lists kept uncompressed in memory (ENC003)."""

from dataclasses import dataclass

import numpy as np

from ..findings import Severity, format_memory, format_share
from ..options import option
from .base import Rule
from .compact import memory_model


class UncompressedBigList(Rule):
    """Big lists whose nodes compress well but are kept uncompressed.

    ## What it does
    When the server keeps list nodes uncompressed (`list-compress-depth 0`,
    the default, as told to the memory model with `--list-compress-depth`),
    flags patterns of lists holding at least `min_memory_bytes` (64 KB) each
    whose nodes the dump stores in far fewer bytes: the dump keeps LZF-
    compressed nodes, so its size tells how well they compress. The saving
    estimated is what `list-compress-depth 1` would give: every node but the
    first and the last (`node_bytes`, 8 KB each) at the dump's ratio. It is
    reported when it reaches `min_saving_share` (25%) of the lists' memory.
    Needs memory estimates; a dump written with `rdbcompression no` shows no
    ratio and is not reported.

    ## Why is this bad?
    The Key Design chapter (§30.3.3): "For values exceeding 10 KB, compress", "typical
    result: 10 KB JSON → 2 KB compressed". Baidu Cloud's guidelines (大文本): store large text
    compressed. A long list (a log, a queue, a timeline) is read at its ends;
    its middle sits in memory uncompressed for nothing. Redis compresses list
    nodes itself when told to, at the cost of some CPU on access to the
    middle.

    ## Example
    `RPUSH log:app:errors …` with 10,000 stack traces and
    `list-compress-depth 0`.

    ## Use instead
    `CONFIG SET list-compress-depth 1` (keeps the head and tail nodes
    uncompressed), or trim the list (`LTRIM`) to what is read.
    """

    code = "ENC003"
    name = "uncompressed-big-list"
    severity = Severity.INFO
    message = ("Lists of {pattern} are kept uncompressed: list-compress-depth 1 would save about {saving} "
               "({share}), as the dump holds them in {dump_share} of their memory ({keys}, {memory})")

    @dataclass(frozen=True)
    class Options:
        min_memory_bytes: int = option(65536, "lists holding less memory are not reported")
        min_saving_share: float = option(0.25, "report when compression would save this share")
        node_bytes: int = option(8192, "size of the uncompressed head and tail nodes")

    bounded = True

    @classmethod
    def candidates(cls, ctx, options):
        rows = ctx.rows_of("list", "quicklist")
        return rows[ctx.memory[rows] >= options.min_memory_bytes]

    def check(self, ctx, options):
        if not ctx.has_memory_estimates or memory_model(ctx.info).list_compress_depth > 0:
            return
        rows = self.candidates(ctx, options)
        if len(rows) == 0:
            return
        memory = ctx.memory[rows].astype(np.int64)
        in_dump = ctx.columns.rdb_bytes[rows].astype(np.float64)
        ratio = np.clip(in_dump / memory, 0.0, 1.0)
        saving = np.maximum(memory - 2 * options.node_bytes, 0) * (1.0 - ratio)
        for hit in ctx.hits(rows):
            mine = ctx.groups.group[rows] == hit.group
            saved = int(saving[mine].sum())
            share = saved / hit.memory_bytes if hit.memory_bytes else 0.0
            if share < options.min_saving_share:
                continue
            dump_share = float(in_dump[mine].sum()) / hit.memory_bytes
            yield self.finding(ctx, hit, est_saving_bytes=saved, rdb_bytes=int(in_dump[mine].sum()), say={
                "saving": format_memory(saved, ctx.memory_basis), "share": format_share(share),
                "dump_share": format_share(dump_share)})
