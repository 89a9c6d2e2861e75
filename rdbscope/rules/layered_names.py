"""The layered naming spec's house style, opt-in (preset layered-names): no abbreviations, a fixed layout
(NAM013, NAM014)."""

import re
from dataclasses import dataclass

from ..findings import Severity, count
from ..options import option
from ..patterns.text import delimiter, has_placeholder, literal_text, segments
from .base import Rule

#: Short words that look abbreviated but are names in their own right (or plain English).
ALLOWED_SHORT_WORDS = ("id", "uid", "ts", "ip", "db", "sku", "ttl", "utc", "gps", "sms", "otp", "jwt", "csv",
                       "pdf", "png", "jpg", "gif", "svg", "html", "http", "xml", "cdn", "dns", "tcp", "udp",
                       "ssl", "tls", "crm", "bi", "csrf", "sql", "url", "lru", "lfu", "rss", "app", "all",
                       "add", "and", "end", "old", "off", "odd", "egg", "inn", "ill")
_VOWELS = set("aeiouy")
_TOKEN = re.compile(r"[A-Za-z0-9]+")


def looks_abbreviated(word):
    """A short word whose letters after the first are all consonants: ``usr``, ``prf``, ``msg``, ``u``."""
    return not (_VOWELS & set(word[1:]))


class AbbreviatedWord(Rule):
    """Key names with abbreviated words (opt-in: preset layered-names).

    ## What it does
    Flags patterns whose literal words look abbreviated: words of at most
    `max_letters` (4) letters with no vowel after their first letter, such as
    `usr`, `prf`, `msg`, `cfg`, `acct`, `u`, `p`, unless listed in `allowed`
    (`id`, `uid`, `ts`, `ip`, `sku`, `app`, …). Letters glued to digits
    (`abc123`, `v2`) are identifiers and not read. A heuristic: it knows no
    dictionary. Opt-in: select it by code or with the `layered-names` preset.

    ## Why is this bad?
    The layered naming spec (§5.2): "Avoid abbreviation: abbreviation may make key names
    difficult to understand", `usr:prf:id:12345` not `user:profile:id:12345`.
    The Key Design chapter (§30.2.2) calls `u:1:p` "too short, unreadable". It is opt-in
    because Baidu Cloud's guidelines recommend the opposite: "use English abbreviations for
    common words" (常见单词尽可能使用英文简写) to keep keys short, and OneUptime's guide
    suggests documented abbreviations for high-volume keys.

    ## Example
    ```
    usr:prf:id:12345
    u:1:p
    ```

    ## Use instead
    ```
    user:profile:id:12345
    user:1:profile
    ```
    """

    code = "NAM013"
    bounded = True  # reads only what is per pattern
    name = "abbreviated-word"
    severity = Severity.INFO
    default = False
    message = "Keys of {pattern} have abbreviated words: {words} ({keys}, {memory})"

    @dataclass(frozen=True)
    class Options:
        max_letters: int = option(4, "only words of at most this many letters are checked")
        allowed: tuple = option(ALLOWED_SHORT_WORDS, "short words that are not abbreviations")

    def check(self, ctx, options):
        allowed = {w.lower() for w in options.allowed}
        for g, pattern in enumerate(ctx.groups.pattern):
            # Letters glued to digits (abc123, v2) are identifiers, not words.
            tokens = (t.lower() for t in _TOKEN.findall(literal_text(pattern)) if t.isalpha())
            words = [w for w in dict.fromkeys(tokens)
                     if len(w) <= options.max_letters and looks_abbreviated(w) and w not in allowed]
            if words:
                yield self.finding(ctx, ctx.pattern_hit(g), words=", ".join(words))


_WORD = re.compile(r"[a-z][a-z0-9_]*")


def layout_problem(pattern, min_segments):
    """Why ``pattern`` does not read ``<module>:<submodule>:<description>:<identifier>``, or None."""
    if delimiter(pattern) != ":":
        return "its levels are not separated by ':'"
    parts = segments(pattern)
    if len(parts) < min_segments:
        return f"it has {count(len(parts), 'level')}, fewer than {min_segments}"
    for name, part in (("module", parts[0]), ("submodule", parts[1])):
        if not _WORD.fullmatch(part):
            return f"its {name} {part!r} is not a lowercase word"
    identifier = parts[-1]
    if not (has_placeholder(identifier) or any(c.isdigit() for c in identifier)):
        return f"it does not end with an identifier (ends with {identifier!r})"
    if not _WORD.fullmatch(parts[-2]):
        return f"its identifier has no name before it ({parts[-2]!r})"
    return None


class LayoutMismatch(Rule):
    """Keys not laid out as module:submodule:description:identifier (opt-in: preset layered-names).

    ## What it does
    Flags patterns that do not follow the layered naming spec's layout
    `<module>:<submodule>:<description>:<identifier>`: at least `min_segments`
    (4) levels separated by `:`, the first two lowercase words (`user`,
    `profile`), and a last segment holding the identifier (a placeholder such
    as `{id}`, or digits) named by the segment before it (`id`, `order_id`).
    Type and time segments in between are allowed
    (`chat:messages:list:room_id:{id}`, `session:token:uid:{*}:ts:{ts}`).
    Opt-in: select it by code or with the `layered-names` preset.

    ## Why is this bad?
    The layered naming spec (§1): "Use the layered format of module: submodule: business
    description: identification to clarify the source and purpose of the
    data", refined "from the overall situation to the specific", with an
    identifier that "ensures that the key name is unique globally" and whose
    name says what it is (§2.3). A team that adopted this layout wants every
    key to follow it; keys that do not were written outside the convention.

    ## Example
    ```
    orderStatusOrderId98765
    order:98765
    ```

    ## Use instead
    ```
    order:status:order_id:98765
    ```
    """

    code = "NAM014"
    bounded = True  # reads only what is per pattern
    name = "layout-mismatch"
    severity = Severity.WARNING
    default = False
    message = ("Keys of {pattern} do not follow module:submodule:description:identifier: {reason} "
               "({keys}, {memory})")

    @dataclass(frozen=True)
    class Options:
        min_segments: int = option(4, "patterns with fewer levels are reported")

    def check(self, ctx, options):
        for g, pattern in enumerate(ctx.groups.pattern):
            reason = layout_problem(pattern, options.min_segments)
            if reason:
                yield self.finding(ctx, ctx.pattern_hit(g), reason=reason)
