"""Letter case in key names: upper-case and camelCase words (NAM001, NAM002)."""

import re
from dataclasses import dataclass

from ..findings import Severity
from ..options import option
from ..patterns.text import alpha_words
from .base import Rule

_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2,}[a-z]{2,}")
# Words joined in camelCase, as a whole: random base64 never reads like this.
_CAMEL_PHRASE = re.compile(r"[a-z]+(?:[A-Z][a-z]+)+|(?:[A-Z][a-z]+){2,}")


def is_camel_case(word):
    """``hotSearch``, ``UserProfile``, ``HTTPServer``: a word with a case hump inside."""
    return _CAMEL.search(word) is not None


class UppercaseWord(Rule):
    """Key names with words in capitals or capitalised.

    ## What it does
    Flags patterns whose literal words are written in capitals (`USER:{id}`) or
    capitalised (`User:{id}:Settings`). Only the fixed parts of a pattern are
    read: what varies from key to key (user names, SKUs) is a placeholder such
    as `{*}` and is data, not naming. Short all-capital words (`US`, `SKU`,
    `AID`, at most `acronym_max_letters` letters) and letters glued to digits
    (`ABC123`) read as codes and identifiers and are allowed. camelCase words
    are NAM002's.

    ## Why is this bad?
    The layered naming spec (§2.1): "Redis key names must use lowercase letters to avoid case
    confusion"; lowercase "is consistent with Redis community practices". Keys
    are case-sensitive: `User:42` and `user:42` are two keys, and
    `SCAN MATCH user:*` misses the first.

    ## Example
    ```
    USER:PROFILE:1000
    User:1000:Settings
    ```

    ## Use instead
    ```
    user:profile:1000
    user:1000:settings
    ```
    """

    code = "NAM001"
    bounded = True  # reads only what is per pattern
    name = "uppercase-word"
    severity = Severity.WARNING
    message = "Keys of {pattern} have words in capitals: {words} ({keys}, {memory})"

    @dataclass(frozen=True)
    class Options:
        acronym_max_letters: int = option(3, "all-capital words of at most this many letters are allowed")

    def check(self, ctx, options):
        for g, pattern in enumerate(ctx.groups.pattern):
            words = [w for w in dict.fromkeys(alpha_words(pattern)) if _shouting(w, options.acronym_max_letters)]
            if words:
                yield self.finding(ctx, ctx.pattern_hit(g), words=", ".join(words))


def _shouting(word, acronym_max_letters):
    if is_camel_case(word) or word.islower():
        return False
    if word.isupper():
        return len(word) > acronym_max_letters
    return word[0].isupper() and word[1:].islower() and len(word) > 1


class CamelCaseWord(Rule):
    """Key names with camelCase words.

    ## What it does
    Flags patterns whose literal words have a case hump inside: `hotSearch`,
    `orderStatusOrderId`, `UserProfile`. Placeholders (`{id}`, `{*}`) are not
    read: their values are data.

    ## Why is this bad?
    The layered naming spec (§2.3, §5.2): "Use underscore (`_`) to separate compound words,
    not camel name (`camelCase`)"; "lowercase and underscore-separated styles
    are more suitable for Redis key names". Mixed case is also case-sensitive
    (`hotSearch` and `hotsearch` are two keys), and camelCase words tend to
    glue a whole hierarchy into one word (`orderStatusOrderId98765`).

    ## Example
    ```
    orderStatusOrderId98765
    hotSearch:rank:1
    ```

    ## Use instead
    ```
    order:status:order_id:98765
    hot_search:rank:1
    ```
    """

    code = "NAM002"
    bounded = True  # reads only what is per pattern
    name = "camel-case-word"
    severity = Severity.WARNING
    message = "Keys of {pattern} have camelCase words: {words} ({keys}, {memory})"

    def check(self, ctx, options):
        for g, pattern in enumerate(ctx.groups.pattern):
            words = [w for w in alpha_words(pattern) if is_camel_case(w)]
            hit = None
            if "{b64}" in pattern:
                hit = ctx.pattern_hit(g)
                words += _phrases_hidden_in_b64(hit.examples)
            if words:
                yield self.finding(ctx, hit or ctx.pattern_hit(g), words=", ".join(dict.fromkeys(words)))


def _phrases_hidden_in_b64(examples):
    """camelCase phrases that every example key holds, where the pattern shows ``{b64}``.

    A long camelCase name glued to digits (``orderStatusOrderId98765``) has the
    letters, digits and length of a base64 token, so the pattern hides it; a
    phrase that all the examples share is a name, not a random token.
    """
    found = [set(_CAMEL_PHRASE.findall(re.sub(r"[^A-Za-z]", " ", text))) for text in examples]
    common = set.intersection(*found) if found else set()
    return sorted(common)
