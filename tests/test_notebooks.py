"""The notebooks: each committed notebook runs from top to bottom, and is what notebooks/build.py writes.

Every notebook is executed in a fresh kernel (working directory notebooks/, $ORDRANK_DATA passed
through); any error in any cell fails the test, including the cells that check the prose's claims
against the committed tables. Notebooks that need the real data take it from the ``shared_data_dir``
fixture: missing data fails the test under CI.
"""
import importlib.util
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[1]
FOLDER = REPO / "notebooks"
NEEDS_DATA = {"prank"}  # runs the scale experiment on MovieLens-100K
TIMEOUT = 180  # seconds per cell


def load_build():
    spec = importlib.util.spec_from_file_location("notebooks_build", FOLDER / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BUILD = load_build()


def test_every_notebook_is_built_by_build_py():
    assert sorted(p.stem for p in FOLDER.glob("*.ipynb")) == sorted(BUILD.NOTEBOOKS)


@pytest.mark.parametrize("name", sorted(BUILD.NOTEBOOKS))
def test_committed_notebook_is_current_and_executed(name):
    """Same cells as build.py (run `python notebooks/build.py` after editing it), with outputs."""
    committed = nbformat.read(FOLDER / f"{name}.ipynb", as_version=4)
    nbformat.validate(committed)
    expected = BUILD.build(BUILD.NOTEBOOKS[name])
    assert [(c.cell_type, c.source) for c in committed.cells] == \
        [(c.cell_type, c.source) for c in expected.cells], f"{name}.ipynb is stale: run notebooks/build.py"
    code = [c for c in committed.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code), f"{name}.ipynb is committed without running every cell"
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors, f"{name}.ipynb is committed with an error: {errors[0].get('ename')}"
    assert any("image/png" in o.get("data", {}) for c in code for o in c.outputs), "no figure shown"


@pytest.mark.parametrize("name", sorted(BUILD.NOTEBOOKS))
def test_notebook_runs(name, request, monkeypatch):
    if name in NEEDS_DATA:
        monkeypatch.setenv("ORDRANK_DATA", str(request.getfixturevalue("shared_data_dir")))
    notebook = nbformat.read(FOLDER / f"{name}.ipynb", as_version=4)
    NotebookClient(notebook, timeout=TIMEOUT, kernel_name="python3",
                   resources={"metadata": {"path": str(FOLDER)}}).execute()  # raises on a failing cell
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code)


def test_a_rebuild_writes_the_same_cells_with_the_same_ids():
    """Cell ids come from the cells (not nbformat's random ones) and no execution time is recorded:
    `python notebooks/build.py` leaves `git status` clean when nothing changed."""
    for name, cells in BUILD.NOTEBOOKS.items():
        first, second = BUILD.build(cells), BUILD.build(cells)
        assert [c.id for c in first.cells] == [c.id for c in second.cells], name
        committed = nbformat.read(FOLDER / f"{name}.ipynb", as_version=4)
        assert [c.id for c in committed.cells] == [c.id for c in first.cells], \
            f"{name}.ipynb was built with other cell ids: run notebooks/build.py"
        assert not any("execution" in c.metadata for c in committed.cells), f"{name}: timestamps"
