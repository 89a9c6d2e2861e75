"""Rules the scanner source must keep because setup.py compiles it with checks off."""

import ast
import pathlib

SOURCE = pathlib.Path(__file__).resolve().parents[2] / "rdbscope" / "rdb" / "_scan.py"
SETUP = SOURCE.parents[2] / "setup.py"

def negative_indexes(tree):
    """Subscripts and slice bounds written as negative numbers (x[-1], x[:-2])."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Subscript):
            continue
        parts = [node.slice]
        if isinstance(node.slice, ast.Slice):
            parts = [node.slice.lower, node.slice.upper, node.slice.step]
        for part in parts:
            if isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.USub):
                found.append(node.lineno)
    return found

def test_compiled_with_wraparound_off():
    setup = SETUP.read_text()
    assert '"wraparound": False' in setup and '"boundscheck": False' in setup

def test_no_negative_indexing_in_the_scanner():
    # With wraparound off, x[-1] in the compiled build reads before the start of x.
    assert negative_indexes(ast.parse(SOURCE.read_text())) == []
