"""Key length: over the hard limit, over the recommended length (NAM006, NAM007)."""

from dataclasses import dataclass

from ..findings import Severity, format_bytes
from ..options import option
from .base import Rule


def _long_keys(ctx, limit):
    rows = ctx.rows_with_key_bytes_over(limit)
    lengths = ctx.key_bytes_at(rows)
    longest = ctx.per_pattern_max(rows, lengths)
    excess = ctx.per_pattern_sum(rows, lengths - limit)
    return rows, longest, excess


class KeyOverMaxLength(Rule):
    """Keys longer than 128 bytes.

    ## What it does
    Flags patterns with keys longer than `max_bytes` (128) bytes.

    ## Why is this bad?
    The layered naming spec (FAQ): "Avoid more than 128 characters." Baidu Cloud's guidelines (大小): keep keys
    within 30 bytes and "as far as possible not over 128 bytes" (尽可能不超过
    128 字节). Every byte of a key is stored in memory, copied into every reply
    that names it and into replication and AOF traffic, and hashed and compared
    on every lookup. Keys this long usually embed data (a URL, a JSON
    fragment, a query) that belongs in the value or in a hash of it.

    ## Example
    ```
    cache:search:category=shoes&size=42&color=black&sort=price&page=1&...
    ```

    ## Use instead
    ```
    cache:search:9f86d081884c7d65
    ```
    (a hash of the query; keep the query itself in the value if it is needed)
    """

    code = "NAM006"
    name = "key-over-max-length"
    severity = Severity.WARNING
    message = "Keys of {pattern} are longer than {max_bytes} bytes, up to {longest_bytes} ({keys}, {memory})"

    @dataclass(frozen=True)
    class Options:
        max_bytes: int = option(128, "keys longer than this many bytes are reported")

    bounded = True

    @classmethod
    def candidates(cls, ctx, options):
        return ctx.rows_with_key_bytes_over(options.max_bytes)

    def check(self, ctx, options):
        rows, longest, excess = _long_keys(ctx, options.max_bytes)
        for hit in ctx.hits(rows):
            yield self.finding(ctx, hit, max_bytes=options.max_bytes, longest_bytes=int(longest[hit.group]),
                               excess_key_bytes=int(excess[hit.group]))


class KeyOverRecommendedLength(Rule):
    """Keys longer than the recommended 30 bytes (opt-in: preset short-keys).

    ## What it does
    Flags patterns with keys longer than `recommended_bytes` (30) bytes and
    says how many bytes of key names lie beyond that length. Opt-in: select
    it by code or with the `short-keys` preset.

    ## Why is this bad?
    Baidu Cloud's guidelines (大小): "keep it within 30 bytes" (建议控制在 30 个字节内), and
    within 20 bytes where MGET fetches more than 100 keys. The Key Design chapter (§30.2.2):
    the key string is paid for in every key's memory. It is opt-in because the
    guides disagree: the layered naming spec's own recommended names
    (`session:token:uid:abc123:ts:1692806400`, 38 bytes) are longer, and it
    forbids the abbreviations that short keys need.

    ## Example
    ```
    user_profile_data_for_the_user_with_id_12345_and_type_premium
    ```

    ## Use instead
    ```
    user:12345:profile
    ```
    """

    code = "NAM007"
    name = "key-over-recommended-length"
    severity = Severity.INFO
    default = False
    message = ("Keys of {pattern} are longer than {recommended_bytes} bytes, up to {longest_bytes}, with {excess} "
               "of key names beyond it ({keys}, {memory})")

    @dataclass(frozen=True)
    class Options:
        recommended_bytes: int = option(30, "keys longer than this many bytes are reported")

    bounded = True

    @classmethod
    def candidates(cls, ctx, options):
        return ctx.rows_with_key_bytes_over(options.recommended_bytes)

    def check(self, ctx, options):
        limit = options.recommended_bytes
        rows, longest, excess = _long_keys(ctx, limit)
        for hit in ctx.hits(rows):
            yield self.finding(ctx, hit, recommended_bytes=limit, longest_bytes=int(longest[hit.group]),
                               excess_key_bytes=int(excess[hit.group]),
                               say={"excess": format_bytes(int(excess[hit.group]))})
