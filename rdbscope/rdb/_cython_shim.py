"""The few names of Cython's ``cython`` module that the compiled modules use, for running it as Python
where Cython is not installed (it is only needed to build the compiled scanner)."""

import contextlib

compiled = False
nogil = contextlib.nullcontext()
int = longlong = ulonglong = double = object


def declare(_type, value=None):
    return value


def cast(_type, value):
    return value
