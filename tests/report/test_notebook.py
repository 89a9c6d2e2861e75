"""notebooks/explore.ipynb runs top to bottom and is stored without outputs."""

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


def test_the_notebook_executes():
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 6  # one per res.plot figure, each shown once
    html = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any("Top patterns by memory" in h for h in html)
