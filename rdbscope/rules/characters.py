"""Characters that make keys hard to type, read or log (NAM003, NAM004, NAM005).

These rules read every key's bytes, not the pattern: a placeholder such as
``{*}`` can hide a space or a control byte in the values it stands for.
"""

import numpy as np

from ..findings import Severity
from . import keybytes
from .base import Rule


def _kinds_per_pattern(ctx, rows, kinds):
    """For each pattern group: which of ``kinds`` ({label: per-row bool}) its keys at ``rows`` have."""
    group = ctx.groups.group[rows]
    present = {label: np.bincount(group[mask], minlength=ctx.groups.n) > 0 for label, mask in kinds.items()}
    return lambda g: [label for label, has in present.items() if has[g]]


class SpecialCharacter(Rule):
    r"""Keys with whitespace, quotes or backslashes.

    ## What it does
    Flags patterns whose keys contain spaces, tabs, newlines or other
    whitespace, quotes (`"`, `'`, `` ` ``) or backslashes, anywhere in the key,
    including the parts a pattern shows as placeholders.

    ## Why is this bad?
    Baidu Cloud's guidelines (命名): do not use special characters, "such as spaces, single
    quotes and escape characters" (不使用特殊字符，比如空格、单引号、转义字符).
    The Key Design chapter (§30.2.3): spaces make redis-cli misparse the key, newlines are
    invisible in logs and monitoring tools. Every shell, script and log parser
    that touches such a key needs quoting, and one forgotten quote addresses
    another key.

    ## Example
    ```
    User Profile 42
    key\twith\ttabs
    ```

    ## Use instead
    ```
    user:profile:42
    ```
    """

    code = "NAM003"
    name = "special-character"
    severity = Severity.WARNING
    message = "Keys of {pattern} contain {kinds} ({keys}, {memory})"
    bounded = True

    @classmethod
    def candidates(cls, ctx, options):
        return ctx.rows_with(keybytes.WHITESPACE | keybytes.QUOTE | keybytes.BACKSLASH)

    def check(self, ctx, options):
        rows = self.candidates(ctx, options)
        if len(rows) == 0:
            return
        flags = ctx.key_flags[rows]
        kinds_of = _kinds_per_pattern(ctx, rows, {
            "whitespace": (flags & keybytes.WHITESPACE) > 0,
            "quotes": (flags & keybytes.QUOTE) > 0,
            "backslashes": (flags & keybytes.BACKSLASH) > 0,
        })
        for hit in ctx.hits(rows):
            kinds = kinds_of(hit.group)
            yield self.finding(ctx, hit, kinds=" and ".join(kinds))


class UnprintableByte(Rule):
    r"""Keys with control characters, characters that reorder or hide text, or bytes that are not UTF-8 text.

    ## What it does
    Flags patterns whose keys hold control characters (bytes below 0x20 other
    than whitespace, DEL, and the C1 controls U+0080–U+009F), bidirectional
    controls and invisible characters (U+202A–U+202E, U+2066–U+2069,
    U+200B–U+200F, U+2028, U+2029, U+061C, U+FEFF), or bytes that do not
    decode as UTF-8 (binary ids, Latin-1 text). Whitespace is NAM003's; other
    valid non-ASCII text is NAM005's.

    ## Why is this bad?
    The Key Design chapter (§30.2.3): avoid "control chars: difficult to debug" and
    "newlines: invisible in logs and monitoring tools". Such keys print as
    escapes or garbage in `redis-cli`, `MONITOR`, slow logs and dashboards,
    cannot be typed to inspect or delete them, and often come from a bug that
    wrote raw bytes or a wrongly encoded string into the name. A
    right-to-left override shows `bidi:\u202egnp.exe` as `bidi:exe.png`
    ("Trojan Source", CVE-2021-42574): a name read in a terminal or a
    dashboard is not the key it names. rdbscope prints all of these escaped.

    ## Example
    ```
    bin:\xff\xfe\x00token
    caf\xe9:menu            (Latin-1)
    invoice:\u202egnp.exe   (U+202E, right-to-left override)
    ```

    ## Use instead
    ```
    bin:fffe00746f6b656e    (hex of the binary id)
    café:menu               (UTF-8; NAM005 still notes it)
    ```
    """

    code = "NAM004"
    name = "unprintable-byte"
    severity = Severity.WARNING
    message = "Keys of {pattern} contain {kinds} ({keys}, {memory})"
    bounded = True

    @classmethod
    def candidates(cls, ctx, options):
        return ctx.rows_with(keybytes.CONTROL | keybytes.HIGH)

    def check(self, ctx, options):
        control = ctx.rows_with(keybytes.CONTROL)
        high = ctx.rows_with(keybytes.HIGH)
        not_text = high[ctx.not_utf8_text(high)]
        spoofing = high[ctx.spoofing_text(high)]
        rows = np.union1d(np.union1d(control, not_text), spoofing)
        if len(rows) == 0:
            return
        kinds_of = _kinds_per_pattern(ctx, rows, {
            "control characters": np.isin(rows, control),
            "bytes that are not printable UTF-8": np.isin(rows, not_text),
            "characters that reorder or hide text (bidirectional controls, zero-width)": np.isin(rows, spoofing),
        })
        for hit in ctx.hits(rows):
            yield self.finding(ctx, hit, kinds=" and ".join(kinds_of(hit.group)))


class NonAsciiKey(Rule):
    """Keys with non-ASCII characters.

    ## What it does
    Flags patterns whose keys hold valid UTF-8 text beyond ASCII: accented
    letters, CJK, emoji. Bytes that are not UTF-8 are NAM004's.

    ## Why is this bad?
    The Key Design chapter (§30.2.3): non-ASCII keys are "valid, but not recommended": "each
    CJK character = 3 bytes, making keys longer. Prefer ASCII with numeric
    IDs." Terminals, log shippers and client libraries disagree on encodings,
    and visually equal names (composed and decomposed `é`) are different keys.

    ## Example
    ```
    用户:1000:档案
    emoji:🍕:orders
    ```

    ## Use instead
    ```
    user:1000:profile
    ```
    """

    code = "NAM005"
    name = "non-ascii-key"
    severity = Severity.INFO
    message = "Keys of {pattern} contain non-ASCII characters ({keys}, {memory})"
    bounded = True

    @classmethod
    def candidates(cls, ctx, options):
        return ctx.rows_with(keybytes.HIGH)

    def check(self, ctx, options):
        high = ctx.rows_with(keybytes.HIGH)
        text = high[~ctx.not_utf8_text(high)]
        for hit in ctx.hits(text):
            yield self.finding(ctx, hit)
