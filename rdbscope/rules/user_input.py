"""Keys that carry raw user input: URLs, file paths, e-mail addresses (NAM012)."""

from dataclasses import dataclass

import numpy as np

from ..findings import Severity
from . import keybytes
from .base import Rule, option

# RE2 patterns, matched against the key bytes.
URL = r"[A-Za-z][A-Za-z0-9+.\-]*://"
PATH = r"(^|[:|#])(\.\.?/|~/|/[^/])|\.\./|(^|[:|#])[A-Za-z]:\\"
EMAIL = r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}"
# "email:john@example.com": an index keyed by address, as seed 000 builds one.
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
    Seed 000 (anti-pattern 2, "Unpredictable Key Names"): "BAD: User input
    directly in key name", where the user name "could be `../../etc/passwd`";
    validate and sanitize, or better "use numeric IDs". Its section on long
    identifiers calls `cache:https://api.example.com/v1/users?page=1&…` bad and
    hashes the URL instead. Seed 003: "never pass public URL requests directly
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

    ## Options
    - `allow_labelled_email` (default true): allow an e-mail address right
      after a segment named `email`, `mail` or `e-mail`.
    """

    code = "NAM012"
    name = "user-input-in-key"
    severity = Severity.WARNING
    message = "Keys of {pattern} embed {kinds} ({keys}, {memory})"

    @dataclass(frozen=True)
    class Options:
        allow_labelled_email: bool = option(True, "allow an e-mail address right after a segment naming it")

    def check(self, ctx, options):
        rows = ctx.rows_with(keybytes.SLASH | keybytes.AT | keybytes.BACKSLASH)
        if len(rows) == 0:
            return
        url = ctx.match_keys(rows, URL)
        path = ~url & ctx.match_keys(rows, PATH)
        email = ctx.match_keys(rows, EMAIL)
        if options.allow_labelled_email:
            email &= ~ctx.match_keys(rows, LABELLED_EMAIL)
        kinds = np.stack([url, path, email])
        hit_rows = rows[kinds.any(axis=0)]
        kinds = kinds[:, kinds.any(axis=0)]
        group = ctx.groups.group[hit_rows]
        per_kind = [np.bincount(group[k], minlength=ctx.groups.n) for k in kinds]
        for hit in ctx.hits(hit_rows):
            counts = {label: int(n[hit.group]) for label, n in zip(KINDS, per_kind) if n[hit.group]}
            yield self.finding(ctx, hit, kinds=" and ".join(counts), n_keys_by_kind=counts)
