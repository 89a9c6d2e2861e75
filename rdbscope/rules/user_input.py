"""Keys that carry raw user input: URLs, file paths, e-mail addresses (NAM012)."""

import re
from dataclasses import dataclass

import numpy as np

from ..findings import Severity
from ..options import option
from ..patterns.text import PLACEHOLDER
from . import keybytes
from .base import Rule

# RE2 patterns, matched against the key bytes.
URL = r"[A-Za-z][A-Za-z0-9+.\-]*://"
PATH = r"(^|[:|#])(\.\.?/|~/|/[^/])|\.\./|(^|[:|#])[A-Za-z]:\\"
EMAIL = r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}"
# "email:john@example.com": an index keyed by address, as OneUptime's guide builds one.
LABELLED_EMAIL = r"(?i)(^|[^a-z0-9])e-?mails?[:|#/]" + EMAIL

KINDS = ("URLs", "file paths", "e-mail addresses")


class UserInputInKey(Rule):
    """Keys that embed URLs, file paths or e-mail addresses.

    ## What it does
    Flags patterns whose keys contain a URL (`https://…`), a file path (a
    segment starting with `/`, `./`, `../` or `~/`, any `../`, or a Windows
    drive), or an e-mail address, anywhere in the key. An e-mail address right
    after a segment that names it (`index:user:email:john@example.com`) is an
    index by address and is allowed unless `allow_labelled_email` is false.

    ## Why is this bad?
    OneUptime's guide (anti-pattern 2, "Unpredictable Key Names"): "BAD: User input
    directly in key name", where the user name "could be `../../etc/passwd`";
    validate and sanitize, or better "use numeric IDs". Its section on long
    identifiers calls `cache:https://api.example.com/v1/users?page=1&…` bad and
    hashes the URL instead. Mastering Redis: "never pass public URL requests directly
    to Redis without some preprocessing". Such keys have unbounded length and
    any character, collide on case and encoding variants, and put personal
    data (addresses) into every log and monitoring tool that shows keys.

    ## Example
    ```
    cache:https://api.example.com/v1/users?page=1&limit=100
    user:../../etc/passwd
    page:html:/docs/getting-started
    ```

    ## Use instead
    ```
    cache:url:a1b2c3d4e5f6      (a hash of the URL; keep the URL in a hash field)
    user:1000
    page:html:docs-getting-started
    ```
    """

    code = "NAM012"
    name = "user-input-in-key"
    severity = Severity.WARNING
    message = "Keys of {pattern} embed {kinds} ({keys}, {memory})"

    @dataclass(frozen=True)
    class Options:
        allow_labelled_email: bool = option(True, "allow an e-mail address right after a segment naming it")

    bounded = True

    @classmethod
    def candidates(cls, ctx, options):
        return ctx.rows_with(_FLAGS)

    def check(self, ctx, options):
        # Keys whose pattern fixes their characters are judged by the pattern's text: every key of it ...
        found = []
        for g in np.flatnonzero((ctx.pattern_flags & _FLAGS).astype(bool) & ~ctx.read_groups):
            kinds = _kinds(_TEXT_REGEXES, PLACEHOLDER.sub(_stand_in, ctx.groups.pattern[g]), options)
            if any(kinds):
                hit = ctx.pattern_hit(g)
                found.append((hit, {KINDS[kinds.index(True)]: hit.n_keys}))
        # ... the others by their own bytes.
        rows = ctx.rows_with(_FLAGS)
        rows = rows[ctx.read_groups[ctx.groups.group[rows]]]
        url = ctx.match_keys(rows, URL)
        path = ~url & ctx.match_keys(rows, PATH)
        email = ctx.match_keys(rows, EMAIL)
        if options.allow_labelled_email:
            email &= ~ctx.match_keys(rows, LABELLED_EMAIL)
        kind_of_row = np.where(url, 0, np.where(path, 1, np.where(email, 2, -1)))
        hit_rows, kinds = rows[kind_of_row >= 0], kind_of_row[kind_of_row >= 0]
        group = ctx.groups.group[hit_rows]
        per_kind = [np.bincount(group[kinds == k], minlength=ctx.groups.n) for k in range(len(KINDS))]
        for hit in ctx.hits(hit_rows):
            found.append((hit, {label: int(n[hit.group]) for label, n in zip(KINDS, per_kind, strict=True)
                                if n[hit.group]}))
        for hit, counts in sorted(found, key=lambda pair: pair[0].group):
            yield self.finding(ctx, hit, kinds=" and ".join(counts), n_keys_by_kind=counts)


#: Bytes without which no key holds a URL, a path or an e-mail address.
_FLAGS = keybytes.SLASH | keybytes.AT | keybytes.BACKSLASH

_TEXT_REGEXES = tuple(re.compile(r) for r in (URL, PATH, EMAIL, LABELLED_EMAIL))


def _kinds(regexes, text, options):
    """(url, path, e-mail) for one text, in that order of precedence."""
    url_re, path_re, email_re, labelled_re = regexes
    url = bool(url_re.search(text))
    path = not url and bool(path_re.search(text))
    email = bool(email_re.search(text)) and not (options.allow_labelled_email and labelled_re.search(text))
    return [url, path, email and not url and not path]


def _stand_in(match):
    """A value a placeholder stands for, enough for the regexes above."""
    return "ada@example.com" if match.group(0) == "{email}" else "0"
