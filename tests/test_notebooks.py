"""The notebooks: each notebooks/<name>.py (jupytext's py:percent, the source) is paired with its
notebooks/<name>.ipynb, committed executed; each runs headless from a fresh clone.

- paired and in sync: the .ipynb's cells are jupytext's reading of the .py, and `jupytext --sync`
  rewrites neither file, whichever of the two is the newer;
- the committed .ipynb ran every cell, without an error and without execution timestamps;
- `jupyter nbconvert --to notebook --execute` runs each one from top to bottom in a fresh kernel, in
  a copy of the repository's tracked files (a fresh clone) with the data at <clone>/data and
  ORDRANK_DATA unset: the working directory is the clone's notebooks/, so the data is found by the
  rule of every entry point, resolved from the repository root. Any failing cell fails the test,
  including the cells that check the prose's claims against the committed tables.

Each notebook is executed once in the session (the `executed` fixture); the notebooks that need the
real data take it from the ``shared_data_dir`` fixture: missing data fails the test under CI.
"""
import os
import shutil
import subprocess
import sys

import jupytext
import nbformat
import pytest

from conftest import REPO
from test_fresh_clone import fresh_clone

FOLDER = REPO / "notebooks"
NAMES = sorted(p.stem for p in FOLDER.glob("*.py"))
NEEDS_DATA = {"prank"}  # runs the scale experiment on MovieLens-100K
PAIRING = "ipynb,py:percent"
TIMEOUT = 600  # seconds per cell


def cells(nb):
    return [(c.cell_type, c.source) for c in nb.cells]


def test_every_notebook_has_its_source_and_is_listed():
    assert NAMES, "no notebooks/*.py"
    assert sorted(p.stem for p in FOLDER.glob("*.ipynb")) == NAMES
    assert not (FOLDER / "build.py").exists()
    readme = (FOLDER / "README.md").read_text()
    for name in NAMES:
        assert f"]({name}.ipynb)" in readme and f"]({name}.py)" in readme, f"notebooks/README.md: {name}"


@pytest.mark.parametrize("name", NAMES)
def test_notebook_is_paired_with_its_source_and_in_sync(name):
    text = jupytext.read(FOLDER / f"{name}.py")
    committed = nbformat.read(FOLDER / f"{name}.ipynb", as_version=4)
    nbformat.validate(committed)
    assert text.metadata["jupytext"]["formats"] == committed.metadata["jupytext"]["formats"] == PAIRING
    assert cells(committed) == cells(text), f"{name}.ipynb differs from {name}.py: run jupytext --sync"


@pytest.mark.parametrize("newer", ["py", "ipynb"])
def test_jupytext_sync_changes_nothing(newer, tmp_path):
    """`jupytext --sync` takes the newer file of each pair as the source (on a fresh clone either may
    be); both ways it leaves the committed files byte for byte."""
    for path in FOLDER.glob("*.*"):
        if path.suffix in (".py", ".ipynb"):
            shutil.copyfile(path, tmp_path / path.name)
    for name in NAMES:
        os.utime(tmp_path / f"{name}.{newer}", (2e9, 2e9))
    subprocess.run([sys.executable, "-m", "jupytext", "--sync", *(f"{name}.py" for name in NAMES)],
                   cwd=tmp_path, check=True, capture_output=True)
    for name in NAMES:
        for suffix in ("py", "ipynb"):
            assert (tmp_path / f"{name}.{suffix}").read_bytes() == (FOLDER / f"{name}.{suffix}").read_bytes(), \
                f"jupytext --sync rewrote {name}.{suffix}"


@pytest.mark.parametrize("name", NAMES)
def test_committed_notebook_was_executed_without_errors(name):
    committed = nbformat.read(FOLDER / f"{name}.ipynb", as_version=4)
    code = [c for c in committed.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code), f"{name}.ipynb is committed without running every cell"
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors, f"{name}.ipynb is committed with an error: {errors[0].get('ename')}"
    assert any("image/png" in o.get("data", {}) for c in code for o in c.outputs), "no figure shown"
    assert not any("execution" in c.metadata for c in committed.cells), \
        f"{name}.ipynb: execution timestamps (execute with --ExecutePreprocessor.record_timing=False)"


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """``run(name, data)``: the notebook executed by nbconvert in a fresh clone (once per session),
    as (completed process, executed notebook or None). ``data``: the real data directory, linked as
    <clone>/data, or None."""
    clone, _ = fresh_clone(tmp_path_factory.mktemp("clone"))
    env = {k: v for k, v in os.environ.items() if k != "ORDRANK_DATA"}
    env["PYTHONPATH"] = os.pathsep.join([str(clone / "src"), *filter(None, [env.get("PYTHONPATH")])])
    done = {}

    def run(name, data):
        if name not in done:
            if data is not None and not (clone / "data").exists():
                (clone / "data").symlink_to(data, target_is_directory=True)
            process = subprocess.run(
                [sys.executable, "-m", "nbconvert", "--to", "notebook", "--execute", f"{name}.ipynb",
                 "--output", f"executed_{name}.ipynb", f"--ExecutePreprocessor.timeout={TIMEOUT}"],
                cwd=clone / "notebooks", env=env, capture_output=True, text=True)
            out = clone / "notebooks" / f"executed_{name}.ipynb"
            done[name] = process, nbformat.read(out, as_version=4) if out.exists() else None
        return done[name]

    return run


@pytest.mark.slow  # nbconvert in a fresh clone: 5-30 s each (five notebooks, one worker)
@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_headless_from_a_fresh_clone(name, executed, request):
    data = request.getfixturevalue("shared_data_dir") if name in NEEDS_DATA else None
    process, notebook = executed(name, data)
    assert process.returncode == 0, f"{name}.ipynb failed:\n{process.stderr[-3000:]}"
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code)
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]
    assert cells(notebook) == cells(nbformat.read(FOLDER / f"{name}.ipynb", as_version=4))
