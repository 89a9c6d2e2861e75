"""The two builds of each compiled module: the Cython extension, and its source run as Python."""

import functools
import importlib
import importlib.util
import os

_HERE = os.path.dirname(__file__)


@functools.cache
def python_module(name):
    """``rdbscope.rdb.<name>`` run from its .py source, even where the extension exists."""
    module = importlib.import_module(f"{__package__}.{name}")
    if module.__file__.endswith(".py"):
        return module
    # Python imports the extension before the .py of the same name; load the source itself.
    spec = importlib.util.spec_from_file_location(f"{__package__}.{name}_py", os.path.join(_HERE, f"{name}.py"))
    source = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(source)
    return source


def compiled_module(name):
    """The Cython build of ``rdbscope.rdb.<name>``, or None when it was not built."""
    module = importlib.import_module(f"{__package__}.{name}")
    return None if module.__file__.endswith(".py") else module


def chosen_module(name):
    """The build of ``rdbscope.rdb.<name>`` to run: compiled where built, unless RDBSCOPE_PUREPYTHON is set."""
    return python_module(name) if pure_python_forced() else compiled_module(name) or python_module(name)


def pure_python_forced():
    return bool(os.environ.get("RDBSCOPE_PUREPYTHON"))
