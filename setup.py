"""Builds the compiled modules: the scanner (rdbscope/rdb/_scan.py compiled by Cython with _scan.pxd, and
what it needs) and the analysis kernels (rdbscope/kernels/).

Set RDBSCOPE_PUREPYTHON=1 to skip the extension. Without Cython or a working C
compiler the package still installs, and the same source runs as Python (the
test run fails where RDBSCOPE_REQUIRE_COMPILED=1 says it must be compiled).
"""

import os

from setuptools import setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """A failed compile leaves the pure-Python scanner instead of failing the install."""

    def run(self):
        try:
            super().run()
        except Exception as exc:  # no compiler at all: setuptools raises before building
            self.warn(f"the compiled scanner was not built ({exc}); rdbscope runs it as Python")

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:  # the compiler failed on this extension
            self.warn(f"the compiled scanner was not built ({exc}); rdbscope runs it as Python")


def extensions():
    if os.environ.get("RDBSCOPE_PUREPYTHON"):
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        return []
    return cythonize(
        [f"rdbscope/rdb/{name}.py" for name in ("_columns", "_crc64", "_lzf", "_mapguard", "_memory", "_pages", "_scan",
                                                 "_slots")]
        + [f"rdbscope/kernels/{name}.py" for name in ("_busy_buckets", "_code_rows", "_forms", "_gather",
                                                       "_group_rows", "_group_sums", "_ids", "_key_ends",
                                                       "_key_hashes", "_masked_counts", "_radix", "_ranks",
                                                       "_records", "_runs", "_slot_counts", "_string_sums")],
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


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
