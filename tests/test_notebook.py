"""The notebook tutorial (docs/notebook.ipynb) runs top to bottom in a real Jupyter kernel
(nbclient), and every object it shows draws itself: HTML beside a short text form. It runs
for a user who installed only ``qarena[notebook]`` too: without PyTorch (``qarena[deep]``)
its AlphaZero cell says what it needs and draws the rest."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

NOTEBOOK = Path(__file__).resolve().parents[1] / "docs" / "notebook.ipynb"
#: What the AlphaZero cell says where PyTorch is not installed.
NEEDS_TORCH = "AlphaZero needs PyTorch: pip install 'qarena[deep]'"
#: The chart of the learners' curves, the cell's last line.
CURVES = "qarena.curves(*learners)"


def _executed(tmp_path: Path, env: dict[str, str] | None = None) -> Any:
    """The notebook, run top to bottom in a fresh kernel (``env``: the kernel's environment)."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), (
        "commit the notebook without outputs: the docs build runs it"
    )
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    # Raises CellExecutionError, naming the cell, if any cell fails.
    client.execute(**({"env": env} if env is not None else {}))
    return nb


def _printed(nb: Any) -> str:
    """What the notebook's cells printed."""
    return "".join(
        out.get("text", "")
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.outputs
        if out.output_type == "stream"
    )


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
    pytest.importorskip("torch")  # as the docs build runs it: with the deep extra
    nb = _executed(tmp_path)
    shown = _outputs(nb)
    for source, data in shown:
        assert "text/html" in data, f"{source!r} shows no HTML"
        if "to_pandas" not in source:  # pandas' own text form aside, a few lines at most
            assert len(data["text/plain"].splitlines()) <= 3, f"{source!r}: a long text form"
    html = {source.splitlines()[-1]: data["text/html"] for source, data in shown}
    # Boards are drawn (the web app's SVG), the curve is a chart, the sweep a table.
    assert "<svg" in html["game"] and "<svg" in html["agent"]
    assert "<svg" in html["agent.curve"] and "<table" in html["runs"]
    # A table, an n-tuple network and AlphaZero on one chart, a line each.
    assert html[CURVES].count('class="series"') == 3
    assert NEEDS_TORCH not in _printed(nb)
    # The agent trained until perfect: the solver judged it so (optimality 1.0, 164 decision
    # positions of misère 3-5-7).
    text = {source.splitlines()[-1]: data["text/plain"] for source, data in shown}
    assert "optimality" not in text["agent"]
    judged = text["qarena.judge(mine, game)"]
    assert "of 164)" in judged
    _assert_progress_is_kept(nb)


def _assert_progress_is_kept(nb: Any) -> None:
    """``progress=True`` leaves its last line in the saved notebook, as text and HTML, so a
    static render (the docs) shows how far training went, not an empty output or a widget
    that has no state there."""
    import re

    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            assert "application/vnd.jupyter.widget-view+json" not in data, cell.source
            if out.output_type in ("display_data", "execute_result"):
                assert data.get("text/plain", "").strip(), f"{cell.source!r}: an empty output"
    (cell,) = [c for c in nb.cells if c.cell_type == "code" and "progress=True" in c.source]
    lines = [o.data for o in cell.outputs if o.output_type == "display_data"]
    assert len(lines) == 1, "one progress line, updated in place"
    shown = re.fullmatch(
        r"q nim:3,5,7: ([\d,]+) of ([\d,]+) episodes in \d+\.\d s", lines[0]["text/plain"]
    )
    assert shown, lines[0]["text/plain"]
    # The last line: as many episodes done as the run took (it stopped once perfect), the
    # number the agent's own line shows.
    done, total = shown.groups()
    (result,) = [o.data for o in cell.outputs if o.output_type == "execute_result"]
    assert done == total and f"episodes={done}," in result["text/plain"]
    assert f'<progress value="{done.replace(",", "")}"' in lines[0]["text/html"]


def test_the_notebook_runs_without_pytorch(tmp_path: Path) -> None:
    """A user who installed ``qarena[notebook]`` alone: PyTorch cannot be imported (a
    ``sitecustomize`` puts None in its place in ``sys.modules``, as if it were not installed,
    so ``importlib.util.find_spec`` finds nothing). Every cell runs; the AlphaZero cell says
    what it needs, and the chart draws the table and the n-tuple network."""
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(
        'import sys\n\nsys.modules["torch"] = None\n', encoding="utf-8"
    )
    path = os.pathsep.join(p for p in (str(blocker), os.environ.get("PYTHONPATH")) if p)
    nb = _executed(tmp_path, env={**os.environ, "PYTHONPATH": path})
    assert NEEDS_TORCH in _printed(nb)
    html = {source.splitlines()[-1]: data["text/html"] for source, data in _outputs(nb)}
    assert html[CURVES].count('class="series"') == 2
