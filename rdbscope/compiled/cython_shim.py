"""The few names of Cython's ``cython`` module that the compiled modules use, for running them
as Python where Cython is not installed (it is only needed to build the extensions)."""

import builtins
import contextlib

compiled = False
nogil = gil = contextlib.nullcontext()
int = longlong = ulonglong = Py_ssize_t = size_t = "integer"
double = "floating"


def declare(_type, value=None):
    return value


def cast(type_, value):
    """As C casts do: to an integer type truncates, to double converts."""
    if type_ == "integer":
        return builtins.int(value)
    if type_ == "floating":
        return float(value)
    return value
