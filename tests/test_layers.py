"""Imports point one way: cli -> report -> keys -> rdb -> errors."""

import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "rdbscope"
LAYERS = ["cli", "report", "summary", "keys", "rdb", "errors"]


def imported_layers(path):
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            rel = pathlib.Path(path).parent.relative_to(PACKAGE).parts
            base = list(rel[: len(rel) - (node.level - 1)]) if node.level > 1 else list(rel)
            target = base + (node.module.split(".") if node.module else [])
            if target:
                found.add(target[0])
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rdbscope."):
            found.add(node.module.split(".")[1])
    return found


def layer_of(path):
    first = path.relative_to(PACKAGE).parts[0]
    return first.removesuffix(".py")


def test_imports_point_down():
    for path in PACKAGE.rglob("*.py"):
        layer = layer_of(path)
        if layer not in LAYERS:
            continue
        rank = LAYERS.index(layer)
        for target in imported_layers(path):
            if target in LAYERS and target != layer:
                assert LAYERS.index(target) > rank, f"{path.relative_to(PACKAGE)} imports {target}"


def test_only_the_cli_prints_or_uses_typer():
    for path in PACKAGE.rglob("*.py"):
        if layer_of(path) == "cli":
            continue
        text = path.read_text()
        assert "import typer" not in text and "import rich" not in text and "print(" not in text, path
