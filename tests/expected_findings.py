"""YAML cases of findings (rule cases and value cases alike): reading them, and holding a case's ``expect``
against the findings a run gave."""

import pytest
import yaml


def yaml_cases(directory, heading):
    """``pytest.param(code, case)`` of every case in ``directory/<CODE>.yml``, whose ``heading`` names the code."""
    cases = []
    for path in sorted(directory.glob("*.yml")):
        document = yaml.safe_load(path.read_text())
        code = document.pop(heading)
        assert code == path.stem, f"{path.name} says {heading} {code}"
        for name, case in document.items():
            assert name.startswith("test_"), f"{path.name}: case {name} must start with test_"
            cases.append(pytest.param(code, case, id=f"{code}-{name}"))
    return cases


def assert_findings_match(findings, expected):
    """``findings`` are the ``expected`` ones, in order: each expectation a mapping of fields to compare
    (``details``: a subset of the details; ``message_contains``: a part of the message; ``examples``,
    ``first_example``, ``severity``, or any attribute of the finding)."""
    assert len(findings) == len(expected), [(f.pattern, f.message) for f in findings]
    for finding, want in zip(findings, expected, strict=True):
        for field, value in want.items():
            if field == "details":
                details = finding.details_dict
                for name, detail in value.items():
                    assert details.get(name) == detail, (name, details)
            elif field == "message_contains":
                assert value in finding.message, finding.message
            elif field == "examples":
                assert list(finding.examples) == value
            elif field == "first_example":
                assert finding.examples[0] == value, finding.examples
            elif field == "severity":
                assert str(finding.severity) == value
            else:
                assert getattr(finding, field) == value, (field, finding)
