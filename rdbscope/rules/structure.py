"""How keys are organised: flat, generic, mixed delimiters, too deep (NAM008-NAM011)."""

import re
from dataclasses import dataclass

from ..findings import Severity, count, format_memory
from ..options import option
from ..patterns.text import HIERARCHY_DELIMITERS, delimiter, has_hierarchy, is_placeholder, segments
from .base import PatternHit, Rule


class FlatKey(Rule):
    """Keys with no namespace.

    ## What it does
    Flags patterns with no hierarchy delimiter (`:`, `/`, `|`, `#`, `.`; see
    `namespace_delimiters`) outside their placeholders: `john_email`,
    `product_SKU123_name`, `leaderboard`. `_` and `-` join words, they do not
    make a namespace.

    ## Why is this bad?
    OneUptime's guide (anti-pattern 4, "Flat Key Structure"): `john_email`,
    `john_orders`, `product_SKU123_name` are "BAD: No organization"; the fix is
    a "hierarchical structure" such as `user:john` and `user:john:orders`.
    Without a namespace nothing says which application or entity owns a key,
    `SCAN MATCH` cannot select a family of keys, and memory cannot be
    attributed per feature. (OneUptime's guide also lists `user_1000_profile` as a
    less common delimiter style; to lint that style as namespaced, add `_` to
    `namespace_delimiters`.)

    ## Example
    ```
    john_email
    product_SKU123_name
    ```

    ## Use instead
    ```
    user:john            (a hash with field email)
    product:SKU123       (a hash with field name)
    ```
    """

    code = "NAM008"
    bounded = True  # reads only what is per pattern
    name = "flat-key"
    severity = Severity.WARNING
    message = "Keys of {pattern} have no namespace ({keys}, {memory})"

    @dataclass(frozen=True)
    class Options:
        namespace_delimiters: tuple = option(HIERARCHY_DELIMITERS, "characters that separate namespace levels")

    def check(self, ctx, options):
        for g, pattern in enumerate(ctx.groups.pattern):
            if pattern and not has_hierarchy(pattern, options.namespace_delimiters):
                yield self.finding(ctx, ctx.pattern_hit(g))


#: The generic names in OneUptime's guide (data, temp, config) and their usual companions.
GENERIC_WORDS = ("data", "temp", "tmp", "config", "test", "foo", "bar", "baz", "qux", "key", "value",
                 "cache", "stuff", "misc", "example", "sample", "mykey")


class GenericKeyName(Rule):
    """Keys named only with a generic word.

    ## What it does
    Flags patterns that are a generic word alone (`data`, `temp`, `tmp`,
    `config`, `test`, `foo`, …; see `words`), in any case, optionally followed
    by a number (`test1`, `tmp_2`).

    ## Why is this bad?
    OneUptime's guide (anti-pattern 5, "Overly Generic Keys"): `data`, `temp` and
    `config` are "BAD: Ambiguous keys"; use "specific, namespaced keys". Two
    services (or two tests) that both write `config` overwrite each other, and
    nobody can tell what `data` holds or whether it may be deleted.

    ## Example
    ```
    data
    temp
    config
    ```

    ## Use instead
    ```
    user:1000:profile:data
    job:ABC123:temp:results
    app:myapp:config:database
    ```
    """

    code = "NAM009"
    bounded = True  # reads only what is per pattern
    name = "generic-key-name"
    severity = Severity.WARNING
    message = "Keys of {pattern} are named only '{word}' ({keys}, {memory})"

    @dataclass(frozen=True)
    class Options:
        words: tuple = option(GENERIC_WORDS, "names that say nothing when they are the whole key")

    def check(self, ctx, options):
        words = "|".join(re.escape(w) for w in options.words)
        generic = re.compile(rf"({words})(?:[-_ ]?(?:\{{id\}}|[0-9]+))?", re.IGNORECASE)
        for g, pattern in enumerate(ctx.groups.pattern):
            match = generic.fullmatch(pattern)
            if match:
                yield self.finding(ctx, ctx.pattern_hit(g), word=match.group(1).lower())


class MixedDelimiters(Rule):
    """Namespaces whose keys use more than one delimiter style.

    ## What it does
    Groups patterns by database and namespace (their first segment) and flags
    namespaces whose patterns are split on different delimiters:
    `user:{id}:profile` beside `user.{id}.settings` or `user_{id}_cart`. A
    pattern's delimiter is the strongest one it uses (`:`, then `/`, `|`,
    `#`, `.`, `_`, `-`), so `order:{id}:order_id` is a `:` key.

    ## Why is this bad?
    Mastering Redis ("Key delimiters and naming conventions"): any delimiter will do,
    and even mixing them, "as long as the delimiter use is consistent and
    properly documented. The goal ... should be intelligibility and
    consistency". OneUptime's guide lists colon, dot and underscore as alternative
    styles. Within one namespace two styles mean two writers that disagree:
    `SCAN MATCH user:*` misses `user.42.settings`, and code that parses keys
    breaks on half of them.

    ## Example
    ```
    user:1000:profile
    user.1000.settings
    ```

    ## Use instead
    ```
    user:1000:profile
    user:1000:settings
    ```
    """

    code = "NAM010"
    bounded = True  # reads only what is per pattern
    name = "mixed-delimiters"
    severity = Severity.WARNING
    message = "Namespace {pattern} mixes delimiters: {said}"

    def check(self, ctx, options):
        namespaces = {}
        for g, pattern in enumerate(ctx.groups.pattern):
            used = delimiter(pattern)
            first = segments(pattern)[0]
            if used and first and not is_placeholder(first):
                styles = namespaces.setdefault((int(ctx.groups.db[g]), first), {})
                styles.setdefault(used, []).append(g)
        for (db, namespace), styles in namespaces.items():
            if len(styles) < 2:
                continue
            counts = {d: int(ctx.pattern_n_keys[gs].sum()) for d, gs in styles.items()}
            memory = {d: int(ctx.pattern_memory[gs].sum()) for d, gs in styles.items()}
            order = sorted(styles, key=lambda d: -counts[d])
            examples = []
            for d in order:
                largest = max(styles[d], key=lambda g: ctx.pattern_n_keys[g])
                examples.extend(ctx.pattern_hit(largest).examples[:1])
            hit = PatternHit(group=-1, db=db, pattern=namespace, n_keys=sum(counts.values()),
                             memory_bytes=sum(memory.values()), n_pattern_keys=sum(counts.values()),
                             examples=tuple(examples[:ctx.n_examples]))
            said = ", ".join(f"'{d}' ({count(counts[d], 'key')}, {format_memory(memory[d], ctx.memory_basis)})"
                             for d in order)
            details = [{"delimiter": d, "n_keys": counts[d], "memory_bytes": memory[d],
                        "patterns": [ctx.groups.pattern[g] for g in styles[d]][:10]} for d in order]
            yield self.finding(ctx, hit, styles=details, say={"said": said})


class DeepHierarchy(Rule):
    """Keys nested deeper than the configured number of levels.

    ## What it does
    Flags patterns with more than `max_depth` (6) levels, counted on the
    pattern's hierarchy delimiter (`:`, `/`, `|`, `#` or `.`; words joined
    with `_` or `-` are one level, as for NAM008).

    ## Why is this bad?
    The layered naming spec (§5.2): "avoid excessively long key names: the longer the key
    names, the more memory usage", with
    `user:profile:personal:information:unique:identifier:12345` as the example
    not to follow and `user:profile:id:12345` as the one to follow. OneUptime's guide
    asks for names that are "reasonably short: balance clarity with memory
    efficiency". Deep paths repeat words that a hash field or a shorter
    namespace would say once.

    ## Example
    ```
    user:profile:personal:information:unique:identifier:12345
    ```

    ## Use instead
    ```
    user:profile:id:12345
    ```
    """

    code = "NAM011"
    bounded = True  # reads only what is per pattern
    name = "deep-hierarchy"
    severity = Severity.INFO
    message = "Keys of {pattern} are {depth} levels deep, more than {max_depth} ({keys}, {memory})"

    @dataclass(frozen=True)
    class Options:
        max_depth: int = option(6, "patterns with more segments than this are reported")

    def check(self, ctx, options):
        for g, pattern in enumerate(ctx.groups.pattern):
            depth = len(segments(pattern)) if delimiter(pattern) in HIERARCHY_DELIMITERS else 1
            if depth > options.max_depth:
                yield self.finding(ctx, ctx.pattern_hit(g), depth=depth, max_depth=options.max_depth)
