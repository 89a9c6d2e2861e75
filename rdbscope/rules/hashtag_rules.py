"""Hash tags: ones that pin much of the data to one slot, ones that co-locate nothing (CLU002, CLU003)."""

from dataclasses import dataclass

import numpy as np

from ..findings import Severity, count, format_share
from ..options import option
from .base import Rule


class HashTagHotspot(Rule):
    """Hash tags that pin a large share of the keys or memory to one slot.

    ## What it does
    Finds every key's hash tag (the text between the first `{` and the next
    `}`) and flags tags shared by at least `min_tag_keys` (2) keys that hold
    `max_share` (2%) or more of the dump's keys or memory; one finding per
    pattern with such keys. Dumps of fewer than `min_dump_keys` keys are not
    checked. Given several dumps (a cluster's masters), the shares are of them
    all, and the finding names the node (dump) that holds the tag's slot.

    ## Why is this bad?
    Baidu Cloud's guidelines (hashtag): "take care that hash tags do not make large amounts
    of data fall into the same shard" (要注意使用 hashtag 避免大量数据落入同一个
    数据分片), which leaves the nodes unbalanced. The Key Design chapter (§30.2.3): keys with
    one tag "land on the same slot"; a slot lives on one master and cannot be
    split, so no resharding can spread what one tag holds.

    ## Example
    ```
    {tenant:acme}:orders:1
    {tenant:acme}:orders:2      (every key of the biggest tenant in one slot)
    ```

    ## Use instead
    ```
    {tenant:acme:order:1}:items  (tag only the keys one command must touch together)
    tenant:acme:orders:1
    ```
    """

    code = "CLU002"
    name = "hash-tag-hotspot"
    severity = Severity.WARNING
    message = ("Hash tag {{{tag}}} pins {tag_keys} ({keys_share} of the {whole} keys, {memory_share} of {its} "
               "memory) to slot {slot}{on_node}, among them keys of {pattern}{more} ({keys}, {memory})")

    @dataclass(frozen=True)
    class Options:
        max_share: float = option(0.02, "a tag with this share of the dump's keys or memory is reported")
        min_tag_keys: int = option(2, "tags of fewer keys are not reported")
        min_dump_keys: int = option(1000, "dumps with fewer keys are not checked")

    bounded = True

    @classmethod
    def candidates(cls, ctx, options):
        return ctx.hash_tags.rows

    def check(self, ctx, options):
        tags = ctx.hash_tags
        if ctx.n_keys < options.min_dump_keys or len(tags.rows) == 0:
            return
        memory = ctx.memory[tags.rows].astype(np.float64)
        tag_memory = np.bincount(tags.tag, weights=memory, minlength=len(tags.texts))
        total_memory = float(ctx.memory_total) or 1.0
        key_share = tags.n_keys / ctx.n_keys
        memory_share = tag_memory / total_memory
        hot = (tags.n_keys >= options.min_tag_keys) & ((key_share >= options.max_share)
                                                        | (memory_share >= options.max_share))
        hot_rows = np.flatnonzero(hot[tags.tag])
        if len(hot_rows) == 0:
            return
        rows, tag_of_row = tags.rows[hot_rows], tags.tag[hot_rows]
        slots = ctx.slots
        group_of_row = ctx.groups.group[rows]
        for hit in ctx.hits(rows):
            in_pattern = tag_of_row[group_of_row == hit.group]
            pattern_tags = np.unique(in_pattern)
            pattern_tags = pattern_tags[np.argsort(-memory_share[pattern_tags], kind="stable")]
            first = int(pattern_tags[0])
            listed = []
            for t in pattern_tags[:5]:
                first_row = tags.rows[tags.tag == t][0]
                listed.append({"tag": tags.texts[t], "slot": int(slots[first_row]),
                               "n_keys": int(tags.n_keys[t]), "keys_share": round(float(key_share[t]), 4),
                               "memory_bytes": int(tag_memory[t]), "memory_share": round(float(memory_share[t]), 4)})
                if ctx.sources:
                    listed[-1]["node"] = ctx.sources[ctx.source_of_row[first_row]].path
            more = f" (and {len(pattern_tags) - 1} more hot tags)" if len(pattern_tags) > 1 else ""
            on_node = f" on node {listed[0]['node']}" if ctx.sources else ""
            whole, its = (f"{len(ctx.sources)} dumps'", "their") if ctx.sources else ("dump's", "its")
            yield self.finding(ctx, hit, tags=listed, say={
                "on_node": on_node, "whole": whole, "its": its,
                "tag": tags.texts[first], "tag_keys": count(int(tags.n_keys[first]), "key"),
                "keys_share": format_share(key_share[first]), "memory_share": format_share(memory_share[first]),
                "slot": listed[0]["slot"], "more": more})


class NeedlessHashTag(Rule):
    """Hash tags that no two keys share.

    ## What it does
    Flags patterns whose keys carry a hash tag (`feed:{user42}:timeline`)
    while no key of the pattern shares its tag with any other key of the
    dump: the tags group nothing.

    ## Why is this bad?
    Baidu Cloud's guidelines (hashtag): "where a hash tag is not needed, do not use '{}'"
    (不需要使用 hashtag 的场景，禁止使用"{}"). The Key Design chapter (§30.2.3): the point of a tag
    is that several keys "land on the same slot" so they can be used in one
    pipeline or MULTI/EXEC. A tag that co-locates nothing only ties the key's
    slot to part of its name, so keys named alike (`{user42}` as a tag in
    several unrelated families) pile up together, and the braces confuse
    every reader and tool.

    ## Example
    ```
    feed:{user42}:timeline    (no other key has the tag user42)
    ```

    ## Use instead
    ```
    feed:user42:timeline
    ```
    or give the keys that are used together the same tag:
    `{user42}:feed` and `{user42}:inbox`.
    """

    code = "CLU003"
    name = "needless-hash-tag"
    severity = Severity.WARNING
    message = "Keys of {pattern} have hash tags that no other key shares ({keys}, {memory})"
    bounded = True

    @classmethod
    def candidates(cls, ctx, options):
        return ctx.hash_tags.rows

    def check(self, ctx, options):
        tags = ctx.hash_tags
        if len(tags.rows) == 0:
            return
        shared = tags.n_keys[tags.tag] > 1
        group = ctx.groups.group[tags.rows]
        n_shared = np.bincount(group[shared], minlength=ctx.groups.n)
        lonely = tags.rows[n_shared[group] == 0]
        for hit in ctx.hits(lonely):
            yield self.finding(ctx, hit)
