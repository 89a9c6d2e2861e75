"""Rules the scanner source must keep because setup.py compiles it with checks off."""

import ast
import pathlib

SOURCE = pathlib.Path(__file__).resolve().parents[2] / "rdbscope" / "rdb" / "_scan.py"
SETUP = SOURCE.parents[2] / "setup.py"
MEMORY_SOURCE = SOURCE.with_name("_memory.py")
SLOTS_SOURCE = SOURCE.with_name("_slots.py")

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


def test_scanner_constants_match_the_format_tables():
    """_scan.py repeats the type and encoding indices as C constants: they must agree with format.py."""
    from rdbscope.rdb import format as fmt

    declared = {}
    for node in ast.parse(SOURCE.read_text()).body:
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id[:2] in ("T_", "E_") and isinstance(node.value, ast.Call)):
            declared[node.targets[0].id] = node.value.args[1].value
    assert len(declared) == len(fmt.TYPE_NAMES) + len(fmt.ENCODING_NAMES)
    for name, value in declared.items():
        assert getattr(fmt, name) == value, name


def test_scanner_opcodes_and_type_ids_match_the_format_tables():
    """_scan.py repeats the opcodes as C constants and names every type id: format.py is their reference."""
    from rdbscope.rdb import _scan
    from rdbscope.rdb import format as fmt

    opcodes = {}
    for node in ast.parse(SOURCE.read_text()).body:
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id.startswith("OP_") and isinstance(node.value, ast.Call)):
            opcodes[node.targets[0].id.removeprefix("OP_")] = node.value.args[1].value
    reference = {name.removeprefix("OPCODE_"): value for name, value in vars(fmt).items()
                 if name.startswith("OPCODE_") and value > OPCODE_VALKEY_ONLY}
    assert opcodes == {name: value for name, value in reference.items() if name != "SLOT_IMPORT"}
    type_ids = {value for name, value in vars(fmt).items() if name.startswith("TYPE_") and isinstance(value, int)}
    assert set(_scan.VALUE_NAMES) == type_ids
    assert len(_scan.COMPACT) == fmt.TYPE_HASH_LISTPACK_EX + 1


#: Opcodes at or below this one are read only in Valkey's own unstable format (see format.py).
OPCODE_VALKEY_ONLY = 242


def test_memory_model_constants_match_the_format_tables():
    """_memory.py repeats the ids it needs as C constants too."""
    from rdbscope.rdb import format as fmt

    declared = {}
    for node in ast.parse(MEMORY_SOURCE.read_text()).body:
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id[:2] in ("T_", "E_") and isinstance(node.value, ast.Call)):
            declared[node.targets[0].id] = node.value.args[1].value
    assert len(declared) >= 10
    for name, value in declared.items():
        assert getattr(fmt, name) == value, name


def test_no_negative_indexing_in_the_compiled_helpers():
    for source in (MEMORY_SOURCE, SLOTS_SOURCE):
        assert negative_indexes(ast.parse(source.read_text())) == [], source.name
