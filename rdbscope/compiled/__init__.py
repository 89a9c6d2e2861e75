"""The two builds of each compiled module: the Cython extension, and its source run as Python.

Modules are named from the package down (``"rdb._scan"``, ``"kernels._forms"``).
``RDBSCOPE_PUREPYTHON=1`` at run time makes :func:`chosen_module` take the source.
"""

import functools
import importlib
import importlib.util
import os


def _imported(name):
    return importlib.import_module(f"rdbscope.{name}")


@functools.cache
def python_module(name):
    """``rdbscope.<name>`` run from its .py source, even where the extension exists."""
    module = _imported(name)
    if module.__file__.endswith(".py"):
        return module
    # Python imports the extension before the .py of the same name; load the source itself.
    source_file = os.path.join(os.path.dirname(module.__file__), f"{name.rpartition('.')[2]}.py")
    spec = importlib.util.spec_from_file_location(f"rdbscope.{name}_py", source_file)
    source = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(source)
    return source


def compiled_module(name):
    """The Cython build of ``rdbscope.<name>``, or None when it was not built."""
    module = _imported(name)
    return None if module.__file__.endswith(".py") else module


def chosen_module(name):
    """The build of ``rdbscope.<name>`` to run: compiled where built, unless RDBSCOPE_PUREPYTHON is set."""
    return python_module(name) if pure_python_forced() else compiled_module(name) or python_module(name)


def pure_python_forced():
    return bool(os.environ.get("RDBSCOPE_PUREPYTHON"))
