"""notebooks/explore.ipynb runs top to bottom and is stored without outputs."""

import os

import nbformat
import pytest
from conftest import ROOT

NOTEBOOK = ROOT / "notebooks" / "explore.ipynb"


def test_the_notebook_is_stored_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code
    assert all(c.outputs == [] and c.execution_count is None for c in code)


@pytest.mark.slow
def test_the_notebook_executes(monkeypatch):
    nbclient = pytest.importorskip("nbclient")
    # The kernel is a new process: make it import this checkout's rdbscope, not whichever is installed.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 6  # one per res.plot figure, each shown once
    texts = [o["data"]["text/plain"] for o in outputs if "text/plain" in o.get("data", {})]
    assert any(t.startswith("<KeyTable 2092 keys from ") and t.endswith("keys.parquet: REDIS RDB 12, written by "
                                                                           "redis 8.2.3>") for t in texts), texts
    html = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any("Top patterns by memory" in h for h in html)
