"""CODES: every finding code in one table, each declared once by the pass or rule that reports it.

A code's :class:`~rdbscope.findings.Check` lives beside the code that reports it
(a pass's ``checks``, a rule class); this module gathers them and their documentation.
"""

import dataclasses
from dataclasses import dataclass

from .passes import CHECKS, PASSES
from .rules import BY_CODE, PRESETS, RULES, RulesPass

#: Every finding code, analysis checks and lint rules alike: ``{code: Check}`` in code order.
CODES = {check.code: check for check in sorted((check for owner in (*PASSES, RulesPass) for check in owner.checks),
                                               key=lambda check: check.code)}


@dataclass(frozen=True)
class CodeDoc:
    """What one finding code is.

    Attributes:
        code, name, severity: the code's identity (severity as text).
        kind: ``"rule"`` (a lint rule) or ``"analysis"`` (a check of an analysis pass).
        default: False for opt-in rules.
        presets: presets that turn the rule on.
        summary: one line.
        description: what it finds, in a paragraph (a rule's "What it does").
        markdown: the whole documentation, in Markdown.
        options: ``[(name, default, doc)]`` of a rule's options.
    """

    code: str
    name: str
    severity: str
    kind: str
    default: bool
    presets: tuple
    summary: str
    description: str
    markdown: str
    options: tuple


def rule_doc(rule):
    """The :class:`CodeDoc` of a rule class."""
    presets = tuple(name for name, codes in PRESETS.items() if rule.code in codes)
    body = "\n\n".join(f"## {title}\n{text}" for title, text in rule.sections().items())
    enabled = "on by default" if rule.default else \
        f"opt-in: select {rule.code} or use the preset {', '.join(presets)}"
    markdown = f"# {rule.name} ({rule.code})\n\n{rule.summary()}\n\nSeverity: {rule.severity}; {enabled}.\n\n{body}\n"
    options = tuple((f.name, f.default, f.metadata.get("doc", "")) for f in dataclasses.fields(rule.Options))
    description = " ".join(rule.sections().get("What it does", rule.summary()).split())
    return CodeDoc(rule.code, rule.name, str(rule.severity), "rule", rule.default, presets, rule.summary(),
                   description, markdown, options)


def check_doc(check):
    """The :class:`CodeDoc` of an analysis pass's :class:`~rdbscope.findings.Check`."""
    markdown = (f"# {check.name} ({check.code})\n\n{check.summary}\n\nSeverity: {check.severity}; reported by "
                f"`rdbscope lint` when selected (`--select {check.family}`).\n\n{check.doc}\n")
    return CodeDoc(check.code, check.name, str(check.severity), "analysis", False, (), check.summary,
                   check.summary, markdown, ())


def all_docs():
    """Every code's documentation: lint rules first, then the analysis checks, each in code order."""
    return tuple(rule_doc(rule) for rule in RULES) + tuple(check_doc(check) for check in CHECKS)


def is_rule(code):
    """True for the code of a lint rule, False for an analysis pass's check."""
    return code in BY_CODE


def find_doc(code_or_name):
    """The documentation of a code (``NAM003``, any case) or name (``special-character``); None if unknown."""
    for doc in all_docs():
        if code_or_name.upper() == doc.code or code_or_name == doc.name:
            return doc
    return None
