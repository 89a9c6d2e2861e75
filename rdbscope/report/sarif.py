"""Findings as JSON and as SARIF 2.1.0, the format code-scanning dashboards ingest."""

import hashlib
import json
from typing import Any

from ..codes import all_docs, is_rule
from ..findings import Severity
from ..passes import PASSES

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def finding_dict(finding) -> dict:
    """A finding as plain JSON values, its details parsed."""
    return {
        "code": finding.code, "name": finding.name, "severity": str(finding.severity),
        "db": finding.db, "pattern": finding.pattern, "n_keys": finding.n_keys,
        "est_memory_bytes": finding.est_memory_bytes, "message": finding.message,
        "examples": list(finding.examples), "details": finding.details_dict,
    }


def rules_checked(result) -> list[str]:
    """Codes of the lint rules that ran in ``result`` (a :class:`~rdbscope.Result`)."""
    return [code for code in result.checked if is_rule(code)]


def passes_checked(result) -> list[str]:
    """Ids of the analysis passes whose checks ran in ``result``, in run order."""
    owners = {check.code: pass_class.id for pass_class in PASSES for check in pass_class.checks}
    ran = {owners[code] for code in result.checked if code in owners}
    return [pass_id for pass_id in result.ran if pass_id in ran]


def to_json(result, source) -> str:
    """The JSON document of a lint :class:`~rdbscope.Result` of ``source`` (a path, as text)."""
    return json.dumps({
        "source": source, "n_keys": result.n_keys, "memory_basis": result.memory_basis,
        "rules": rules_checked(result), "passes": passes_checked(result),
        # what a run over the memory budget could not check (it needs every key in memory)
        "not_run": list(result.skipped),
        "findings": [finding_dict(f) for f in result.finding_list],
    }, indent=2, ensure_ascii=False)


def stable_id(finding) -> str:
    """Stable across runs on new dumps of the same keyspace: code, db and pattern."""
    text = f"{finding.code}\x00{finding.db}\x00{finding.pattern}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def to_sarif(result, source, version) -> dict:
    """The SARIF 2.1.0 log (a dict) of a lint :class:`~rdbscope.Result` of ``source``.

    Each finding is a result on the dump file, with the pattern as a logical
    location; the rules it refers to carry their documentation as help.
    """
    docs = {doc.code: doc for doc in all_docs()}
    used = sorted({f.code for f in result.finding_list} | set(rules_checked(result)))
    index = {code: i for i, code in enumerate(used)}
    rules = [{
        "id": code, "name": docs[code].name,
        "shortDescription": {"text": docs[code].summary},
        "fullDescription": {"text": docs[code].description},
        "help": {"text": docs[code].markdown, "markdown": docs[code].markdown},
        "defaultConfiguration": {"level": SARIF_LEVEL[Severity.parse(docs[code].severity)]},
        "properties": {"tags": [code[:3], docs[code].kind]},
    } for code in used]
    results = []
    for finding in result.finding_list:
        # A dump has no lines; code-scanning dashboards still want a region to show.
        location: dict[str, Any] = {
            "physicalLocation": {"artifactLocation": {"uri": source}, "region": {"startLine": 1}}}
        if finding.pattern is not None:
            location["logicalLocations"] = [{"name": finding.pattern, "kind": "namespace",
                                             "fullyQualifiedName": f"db{finding.db}/{finding.pattern}"}]
        results.append({
            "ruleId": finding.code, "ruleIndex": index[finding.code], "level": SARIF_LEVEL[finding.severity],
            "message": {"text": finding.message}, "locations": [location],
            "partialFingerprints": {"rdbscopeFinding/v1": stable_id(finding)},
            "properties": {"n_keys": finding.n_keys, "est_memory_bytes": finding.est_memory_bytes,
                           "examples": list(finding.examples), "details": finding.details_dict},
        })
    return {
        "$schema": SARIF_SCHEMA, "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "rdbscope", "version": version, "semanticVersion": version,
                                "rules": rules}},
            "artifacts": [{"location": {"uri": source}}],
            "results": results,
            "properties": {"n_keys": result.n_keys, "memory_basis": result.memory_basis,
                           "not_run": list(result.skipped)},
        }],
    }
