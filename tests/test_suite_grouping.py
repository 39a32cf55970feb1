"""The suite's own set-up: under `make test` (pytest-xdist, ``--dist loadgroup``) the tests of one
module-scoped fixture run on one worker, so the fixture is computed once (tests/conftest.py's
``xdist_group`` marks). Some pytest and pytest-xdist versions together drop the groups without a word
(every test then spread alone, each worker computing the fixture again): this inner run catches it."""
import subprocess
import sys
from pathlib import Path

INNER = '''
import os
import pytest


@pytest.fixture(scope="module")
def shared():
    return os.environ["PYTEST_XDIST_WORKER"]


@pytest.mark.parametrize("i", range(6))
def test_uses_the_module_fixture(shared, i):
    assert shared == os.environ["PYTEST_XDIST_WORKER"]  # computed on this worker, not elsewhere


@pytest.mark.parametrize("i", range(6))
def test_free(i):
    pass
'''


def test_tests_of_one_module_fixture_run_on_one_worker(tmp_path):
    (tmp_path / "test_inner.py").write_text(INNER)
    suite = str(Path(__file__).with_name("conftest.py"))
    (tmp_path / "conftest.py").write_text(  # the suite's grouping hook, and nothing else of its conftest
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('suite_conftest', {suite!r})\n"
        "suite = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(suite)\n"
        "pytest_collection_modifyitems = suite.pytest_collection_modifyitems\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-p", "no:randomly",
                           "-p", "no:cacheprovider", "-v", "test_inner.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    workers = {line.split()[0] for line in done.stdout.splitlines()  # "[gw0] [ 8%] PASSED test_inner.py::..."
               if "PASSED" in line and "test_uses_the_module_fixture" in line}
    assert len(workers) == 1, f"the module fixture's tests ran on {sorted(workers)}:\n{done.stdout}"
