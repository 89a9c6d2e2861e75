"""Key-pattern inference: ``user:1000:profile`` -> ``user:{id}:profile``.

Placeholders: ``{id}`` (integers), ``{uuid}``, ``{hex}``, ``{date}``, ``{ts}``,
``{ip}``, ``{email}``, ``{b64}``, ``{token}`` (JWT), and ``{*}`` for literals that
vary too much to be anything but a variable (user names, SKUs, slugs).  A hash
tag stays in the pattern with its braces and is inferred inside:
``{user:1000}:cart`` -> ``{user:{id}}:cart``; a tag that is a variable as a
whole keeps its braces around the placeholder (``feed:{{*}}:timeline``).

Bytes that are not UTF-8 appear in patterns as ``\\xNN`` escapes; a null key
counts as the empty key.  Keys that themselves contain ``{id}``-like text, or
the private-use characters U+E000/U+E001, may be rendered ambiguously.
"""

from .generalize import Thresholds
from .infer import infer_patterns
from .segments import pattern_segments

__all__ = ["infer_patterns", "pattern_segments", "Thresholds"]
