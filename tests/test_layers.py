"""Imports point one way (DESIGN.md):
cli -> report -> api/result/codes/config -> scale -> passes/rules -> libraries
    -> keys/sources/findings/options/patterns/summary/keyspace/values -> kernels -> sizes
    -> rdb -> compiled -> errors.
"""

import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "rdbscope"
# Ranks from the top; a module may import layers of a lower rank only, or the
# same-rank layers listed in SAME_RANK.
LAYERS = [
    {"cli"},
    {"report"},
    {"api", "result", "codes", "config"},
    {"scale"},
    {"passes", "rules"},
    {"libraries"},
    {"keys", "sources", "findings", "options", "patterns", "summary", "keyspace", "values"},
    {"kernels"},
    {"sizes", "cached"},
    {"rdb"},
    {"compiled"},
    {"errors"},
]
# rules read what the passes made; several dumps: each one's summary and its memory estimate; the
# serialization checks are findings of the values
SAME_RANK = {("api", "result"), ("api", "codes"), ("api", "config"), ("rules", "passes"),
             ("keys", "sources"), ("sources", "summary"), ("values", "findings")}


def rank_of(layer):
    return next((i for i, layers in enumerate(LAYERS) if layer in layers), None)


def imports(path):
    """``(module parts inside rdbscope, names imported)`` of every import in ``path``, at any depth."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            rel = pathlib.Path(path).parent.relative_to(PACKAGE).parts
            base = list(rel[: len(rel) - (node.level - 1)]) if node.level > 1 else list(rel)
            yield base + (node.module.split(".") if node.module else []), [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "rdbscope":
            yield node.module.split(".")[1:], [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "rdbscope":
                    yield alias.name.split(".")[1:], []


def imported_layers(path):
    return {target[0] for target, _names in imports(path) if target}


def test_no_module_reaches_into_another_package_private_parts():
    for path in PACKAGE.rglob("*.py"):
        own = path.parent.relative_to(PACKAGE).parts
        for target, names in imports(path):
            module_private = [part for part in target if part.startswith("_") and not part.startswith("__")]
            names_private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            package = tuple(target[:-1]) if module_private else tuple(target)
            if (module_private or names_private) and package != own:
                shown = ".".join(target) + (f" import {', '.join(names_private)}" if names_private else "")
                raise AssertionError(f"{path.relative_to(PACKAGE)} imports the private {shown}")


def layer_of(path):
    first = path.relative_to(PACKAGE).parts[0]
    return first.removesuffix(".py")


def test_imports_point_down():
    for path in PACKAGE.rglob("*.py"):
        layer = layer_of(path)
        rank = rank_of(layer)
        if rank is None:
            continue
        for target in imported_layers(path):
            target_rank = rank_of(target)
            if target_rank is None or target == layer or (layer, target) in SAME_RANK:
                continue
            assert target_rank > rank, f"{path.relative_to(PACKAGE)} imports {target}"


def test_every_module_has_a_layer():
    top_level = {layer_of(p) for p in PACKAGE.rglob("*.py")} - {"__init__", "__main__"}
    assert {layer for layer in top_level if rank_of(layer) is None} == set()


def test_only_the_cli_prints_or_uses_typer():
    for path in PACKAGE.rglob("*.py"):
        if layer_of(path) == "cli":
            continue
        text = path.read_text()
        assert "import typer" not in text and "import rich" not in text and "print(" not in text, path


def test_the_readme_layout_names_every_module_and_package():
    readme = (PACKAGE.parent / "README.md").read_text()
    layout = readme[readme.index("## Layout"):readme.index("## Lint rules")]
    for path in sorted(PACKAGE.iterdir()):
        if path.name.startswith("_") and path.name != "__init__.py" or path.suffix not in ("", ".py"):
            continue
        if path.is_dir() and not (path / "__init__.py").exists():
            continue
        shown = f"rdbscope/{path.name}/" if path.is_dir() else f"rdbscope/{path.name}"
        assert shown in layout, f"README's Layout does not name {shown}"
