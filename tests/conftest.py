"""Shared fixtures: where the dumps are, and the scanner implementations."""

import os
import pathlib

import pytest

import rdbscope.rdb

ROOT = pathlib.Path(__file__).resolve().parent.parent
SAMPLE_DUMPS = ROOT / "sample_dumps"
CORPUS = ROOT.parent / "shared" / "rdb-corpus"

IMPLEMENTATIONS = sorted(rdbscope.rdb.implementations())


@pytest.fixture(params=IMPLEMENTATIONS)
def implementation(request):
    """Each scanner implementation available here: "cython" and "python"."""
    return request.param


def sample_dumps():
    return sorted(SAMPLE_DUMPS.glob("*.rdb"))


def corpus_available():
    return (CORPUS / "public" / "MANIFEST.tsv").exists()


def require_compiled():
    """CI sets RDBSCOPE_REQUIRE_COMPILED=1: there the compiled scanner must load."""
    return os.environ.get("RDBSCOPE_REQUIRE_COMPILED") == "1"
