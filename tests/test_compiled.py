"""Compiled code (ordrank.compiled): every numba function is made by its njit, which works without a
writable cache (a read-only install run by another user) and compiles nothing before a run calls it."""
import ast
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import pytest

from conftest import REPO, under_ci
from ordrank.compiled import njit, uncached

PACKAGE = REPO / "src" / "ordrank"
# numba's decorators that compile; prange (a loop range) is the one other name of numba's used
COMPILERS = {"njit", "jit", "vectorize", "guvectorize", "cfunc", "stencil", "generated_jit", "jit_module"}
# a prank_synthetic run in seconds, not minutes
SMALL_PRANK = ["+experiment=prank_synthetic", "protocol.n_sequences=2", "protocol.n_rounds=50",
               "protocol.record_every=10", "hydra/job_logging=disabled"]


def compiled_modules() -> list[str]:
    """The modules of ordrank that define numba functions (those importing ordrank.compiled's njit)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "from ordrank.compiled import njit" in path.read_text(encoding="utf-8"):
            found.append(".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts))
    return found


def test_every_numba_function_is_made_by_ordrank_compiled_njit():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "compiled.py" and path.parent == PACKAGE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "numba":
                offenders += [f"{path.relative_to(REPO)}:{node.lineno}: from {node.module} import {a.name}"
                              for a in node.names if a.name in COMPILERS or a.name == "*"]
            elif isinstance(node, ast.Attribute) and node.attr in COMPILERS and \
                    isinstance(node.value, ast.Name) and node.value.id == "numba":
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}: numba.{node.attr}")
    assert not offenders, "numba's decorators used directly (use ordrank.compiled.njit):\n" + "\n".join(offenders)
    modules = compiled_modules()
    assert {"ordrank.algorithms.ranking.rankboost", "ordrank.datasets.letor_parse",
            "ordrank.algorithms.qp.smo"} <= set(modules), modules


def test_njit_refuses_signatures_which_compile_at_import():
    with pytest.raises(TypeError, match="takes no signatures"):
        njit("float64(float64)")


def test_without_a_cache_folder_it_compiles_in_memory(monkeypatch):
    # numba's locator list cut to one that never serves a module file: "no locator available", the
    # error numba raises when no cache folder is writable
    monkeypatch.setattr(numba.config, "CACHE_LOCATOR_CLASSES", "IPythonCacheLocator")

    @njit
    def twice(x):
        return 2 * x

    assert twice(21) == 42 and twice.signatures
    assert f"{__name__}.test_without_a_cache_folder_it_compiles_in_memory.<locals>.twice" in uncached()


def test_another_cache_error_is_raised(monkeypatch):
    monkeypatch.setattr(numba.config, "CACHE_LOCATOR_CLASSES", "NoSuchLocator")
    with pytest.raises(RuntimeError, match="NoSuchLocator"):
        @njit
        def once(x):
            return x


# --- in a fresh interpreter ------------------------------------------------------------------------

# run as __main__ with argv: [modules as JSON, hydra.run.dir]; prints a JSON report on its last line
PROBE = textwrap.dedent("""
    import json, runpy, sys
    from importlib import import_module
    modules, run_dir = json.loads(sys.argv[1]), sys.argv[2]
    sys.argv = ["run.py", *json.loads(sys.argv[3]), f"hydra.run.dir={run_dir}"]
    try:
        runpy.run_path(sys.argv[0], run_name="__main__")
    except SystemExit as stop:
        assert not stop.code, f"run.py exited with status {stop.code}"
    report = {"numba_after_run": "numba" in sys.modules}
    from numba.core.registry import CPUDispatcher
    compiled = {}
    for name in modules:
        module = import_module(name)
        for attr, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.__module__ == name:
                compiled[f"{name}.{attr}"] = [str(s) for s in value.signatures]
    report["compiled_after_imports"] = compiled
    import numpy as np
    from ordrank.algorithms.ranking.rankboost import RankBoost, _bin_sums
    rng = np.random.default_rng(0)
    X, y, qid = rng.normal(size=(60, 3)), rng.integers(0, 3, 60), np.repeat(np.arange(6), 10)
    model = RankBoost(n_estimators=5).fit(X, y, qid=qid)
    report["rankboost_scores_finite"] = bool(np.isfinite(model.predict(X)).all())
    report["bin_sums_signatures"] = len(_bin_sums.signatures)
    import ordrank
    from ordrank.compiled import uncached
    report["ordrank_file"] = ordrank.__file__
    report["uncached"] = uncached()
    print(json.dumps(report))
""")


def probe(python_path: Path, run_dir: Path, env: dict, user: list[str] | None = None) -> dict:
    """PROBE in a fresh interpreter (as ``user``'s command prefix, if given), ordrank from ``python_path``."""
    command = [*(user or []), sys.executable, "-c", PROBE, json.dumps(compiled_modules()), str(run_dir),
               json.dumps(SMALL_PRANK)]
    env = {**env, "PYTHONPATH": str(python_path), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def clean_env() -> dict:
    """This environment without numba's cache settings or a home: numba has only the package's own
    __pycache__ and the user's cache folder to write to."""
    drop = {"HOME", "XDG_CACHE_HOME", "NUMBA_CACHE_DIR", "NUMBA_CACHE_LOCATOR_CLASSES", "PYTHONPATH",
            "ORDRANK_DEBUG", "HYDRA_FULL_ERROR"}
    return {k: v for k, v in os.environ.items() if k not in drop}


def test_a_run_compiles_only_what_it_calls(tmp_path):
    report = probe(PACKAGE.parent, tmp_path / "run", clean_env())
    assert not report["numba_after_run"], "a PRank run imported numba"
    compiled = report["compiled_after_imports"]
    assert "ordrank.algorithms.ranking.rankboost._bin_sums" in compiled and len(compiled) >= 20, compiled
    assert all(signatures == [] for signatures in compiled.values()), compiled  # an import compiles nothing
    assert report["rankboost_scores_finite"] and report["bin_sums_signatures"] >= 1  # a fit does compile
    assert report["ordrank_file"].startswith(str(PACKAGE))
    assert report["uncached"] == []  # a writable __pycache__: numba's on-disk cache is used
    assert (tmp_path / "run" / "results.parquet").is_file()


def unprivileged() -> list[str] | None:
    """The command prefix that runs a command as a user who cannot write a read-only folder: [] when this
    process is not root; when it is, `setpriv` dropping every capability (root without CAP_DAC_OVERRIDE
    obeys permission bits like any owner, and still reaches a checkout under a 0700 folder, as
    `mktemp -d` makes); None when that is not possible here."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    prefix = [setpriv, "--inh-caps=-all", "--bounding-set=-all"]
    try:
        done = subprocess.run([*prefix, sys.executable, "-c", "import numba, ordrank"], capture_output=True,
                              timeout=120, cwd="/")
    except OSError:
        return None
    return prefix if done.returncode == 0 else None


@pytest.mark.slow
def test_a_read_only_install_runs_without_a_cache_folder(tmp_path):
    user = unprivileged()
    if user is None:
        problem = "cannot run this interpreter without root's capabilities (setpriv)"
        if under_ci():
            pytest.fail(f"CI: {problem}")
        pytest.skip(problem)
    install, home, runs = tmp_path / "site", tmp_path / "home", tmp_path / "runs"
    shutil.copytree(PACKAGE, install / "ordrank", ignore=shutil.ignore_patterns("__pycache__"))
    home.mkdir()
    runs.mkdir()
    read_only = [tmp_path, install, *install.rglob("*"), home]
    env = {**clean_env(), "HOME": str(home)}
    cache = runs / "numba-cache"
    try:
        for path in read_only:
            path.chmod(0o555 if path.is_dir() else 0o444)
        report = probe(install, runs / "run", env, user)
        # NUMBA_CACHE_DIR, a folder the user can write: the compiled code is cached there
        cached = probe(install, runs / "run-cached", {**env, "NUMBA_CACHE_DIR": str(cache)}, user)
    finally:
        for path in read_only:
            path.chmod(0o755 if path.is_dir() else 0o644)
    assert report["ordrank_file"] == str(install / "ordrank" / "__init__.py")
    assert report["rankboost_scores_finite"]
    assert "ordrank.algorithms.ranking.rankboost._bin_sums" in report["uncached"]
    assert not list(install.rglob("__pycache__")) and not list(home.iterdir())
    assert (runs / "run" / "results.parquet").is_file()
    assert cached["uncached"] == [] and cached["rankboost_scores_finite"]
    assert [f.name for f in cache.rglob("rankboost._bin_sums*.nbi")], sorted(cache.rglob("*"))
