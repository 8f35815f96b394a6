"""The notebook tutorial (docs/notebook.ipynb) runs top to bottom in a real Jupyter kernel
(nbclient), and every object it shows draws itself: HTML beside a short text form."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

NOTEBOOK = Path(__file__).resolve().parents[1] / "docs" / "notebook.ipynb"


def _outputs(nb: Any) -> list[tuple[str, dict[str, Any]]]:
    """(source, data) of every displayed result, in order."""
    found = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for out in cell.outputs:
            data = dict(out.get("data", {}))
            if "application/vnd.jupyter.widget-view+json" in data:
                continue  # a progress bar
            if out.output_type in ("execute_result", "display_data"):
                found.append((cell.source, data))
    return found


def test_the_notebook_runs_and_shows_every_object(tmp_path: Path) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), (
        "commit the notebook without outputs: the docs build runs it"
    )
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # raises CellExecutionError, naming the cell, if any cell fails
    shown = _outputs(nb)
    for source, data in shown:
        assert "text/html" in data, f"{source!r} shows no HTML"
        if "to_pandas" not in source:  # pandas' own text form aside, a few lines at most
            assert len(data["text/plain"].splitlines()) <= 3, f"{source!r}: a long text form"
    html = {source.splitlines()[-1]: data["text/html"] for source, data in shown}
    # Boards are drawn (the web app's SVG), the curve is a chart, the sweep a table.
    assert "<svg" in html["game"] and "<svg" in html["agent"]
    assert "<svg" in html["agent.curve"] and "<table" in html["runs"]
    # The agent trained until perfect: the solver judged it so (optimality 1.0, 164 decision
    # positions of misère 3-5-7).
    text = {source.splitlines()[-1]: data["text/plain"] for source, data in shown}
    assert "optimality" not in text["agent"]
    judged = text["qarena.judge(mine, game)"]
    assert "of 164)" in judged
