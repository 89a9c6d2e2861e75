"""rdbscope.patterns imports only what it may, and never prints or logs (keys hold customer data)."""

import ast
import pathlib
import sys

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "rdbscope" / "patterns"
ALLOWED = {"numpy", "pyarrow", "pandas"} | set(sys.stdlib_module_names)


def imports(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level:
            yield node.module


def test_the_package_exists_with_modules():
    assert len(list(PACKAGE.glob("*.py"))) >= 5


def test_imports_only_arrays_stdlib_and_errors():
    for path in PACKAGE.glob("*.py"):
        for name in imports(path):
            assert name.split(".")[0] in ALLOWED or name == "rdbscope.errors", (path.name, name)
            assert name.split(".")[0] not in {"logging", "warnings"}, (path.name, name)


def test_no_printing():
    for path in PACKAGE.glob("*.py"):
        calls = [n for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Call)]
        assert not [c for c in calls if isinstance(c.func, ast.Name) and c.func.id == "print"], path.name
