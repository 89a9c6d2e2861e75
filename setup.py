"""Builds the compiled scanner: rdbscope/rdb/_scan.py compiled by Cython with _scan.pxd.

Set RDBSCOPE_PUREPYTHON=1 to skip the extension; without Cython or a C
compiler the package still installs and runs the same source as Python.
"""

import os

from setuptools import setup


def extensions():
    if os.environ.get("RDBSCOPE_PUREPYTHON"):
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        return []
    return cythonize(
        ["rdbscope/rdb/_scan.py"],
        compiler_directives={
            "language_level": 3,
            # The scanner checks every index against its buffer itself.
            "boundscheck": False,
            "wraparound": False,
            "initializedcheck": False,
            "cdivision": True,
        },
        quiet=True,
    )


setup(ext_modules=extensions())
