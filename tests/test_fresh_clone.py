"""A new user's path on a fresh clone: fetch the data from a mirror into data/ (the default, no
ORDRANK_DATA set anywhere), then `make reproduce-quick` (= `python experiments/reproduce.py --quick`)
succeeds, writing only under build/quick/.

The mirror is a folder served on 127.0.0.1 in the upstream layout: MovieLens-100K's zip (rebuilt from
the real files, so its hash is re-pinned; the unpacked files meet the registry's own hashes), the
ORCA partition files of the two archives the quick benchmark reads (packed by fetch into archives
byte-identical to the pinned ones; the registry is restricted to them for the fetch and the data check),
LETOR 3.0's OHSUMED.zip in LETOR's layout (rebuilt from the five subsets, whose pinned hashes are
checked) and Wei Chu's partition files as they are.

That run is the session's only quick reproduction (``quick_reproduction`` in conftest.py, built by
:func:`reproduce_quick_in_a_fresh_clone`): test_reproduce.py checks what it wrote.
"""
from __future__ import annotations

import hashlib
import io
import shutil
import subprocess
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import REPO

QUICK_ARCHIVES = ["10bins/pyrim10", "10bins/machine10"]  # svor_benchmark_quick: pyrim, machine, 10 bins


def fresh_clone(target):
    """The repository's tracked files (what `git clone` gives), copied to ``target``: no data/,
    no outputs, no build/. Returns ``target`` and {tracked file: sha256 of its bytes as copied}."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    copied = {}
    for name in filter(None, files.decode().split("\0")):
        if (REPO / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(REPO / name, target / name)
            copied[name] = hashlib.sha256((target / name).read_bytes()).hexdigest()
    return target, copied


@dataclass(frozen=True)
class QuickRun:
    """What `make reproduce-quick` did in a fresh clone: its exit code, where it wrote, the clone's
    tracked files before the run {name: sha256}, and the clone's experiments/reproduce.py as a module."""

    code: int
    clone: Path
    out: Path
    tracked: dict
    driver: object


def reproduce_quick_in_a_fresh_clone(data_dir: Path, tmp_path: Path) -> QuickRun:
    """Serve ``data_dir``'s sets from a local mirror, copy the repository's tracked files into a fresh
    folder, fetch the data there with `python -m ordrank.data fetch` (into data/, no variable set)
    and run `python experiments/reproduce.py --quick` in it (its default --out, build/quick/)."""
    from ordrank.data import main as data_main
    from ordrank.datasets import registry
    from ordrank.datasets.fetch import status
    from ordrank.datasets.registry import Download

    from test_fetch import http_server, ohsumed_zip, only, pin, serve, sha256
    from test_reproduce import load_driver

    with pytest.MonkeyPatch.context() as monkeypatch:  # session-wide fixture: undone before the tests
        mirror = tmp_path / "mirror"
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as zipped:
            for name in registry.MOVIELENS_100K_FILES:
                zipped.write(data_dir / "movielens-100k" / name, f"ml-100k/{name}")
        serve(mirror, "movielens-100k", {"ml-100k.zip": buffer.getvalue()})
        pin(monkeypatch, "movielens-100k",
            downloads=(Download("ml-100k.zip", known_hash=sha256(buffer.getvalue())),))
        for archive in QUICK_ARCHIVES:
            with tarfile.open(data_dir / "orca-discretized-regression" / f"{archive}.tar.xz") as tar:
                serve(mirror, "orca-discretized-regression", {m.name: tar.extractfile(m).read() for m in tar})
        pin(monkeypatch, "orca", **only(registry.DATASETS["orca"], QUICK_ARCHIVES))
        ohsumed = data_dir / "letor3-ohsumed" / "QueryLevelNorm"
        serve(mirror, "letor3-ohsumed", {"OHSUMED.zip": ohsumed_zip(
            {f"S{i}.txt": (ohsumed / f"S{i}.txt").read_bytes() for i in range(1, 6)})})
        shutil.copytree(data_dir / "chu-ghahramani-2005-ordinal", mirror / "chu-ghahramani-2005-ordinal")
        monkeypatch.setattr("ordrank.datasets.fetch.RETRIES", 0)
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        for variable in ("ORDRANK_DATA", "ORDRANK_DATA_URL"):
            monkeypatch.delenv(variable, raising=False)

        clone, tracked = fresh_clone(tmp_path / "clone")
        monkeypatch.chdir(clone)
        with http_server(mirror) as url:  # python -m ordrank.data fetch movielens-100k orca (README)
            assert data_main(["fetch", "movielens-100k", "orca", "letor3-ohsumed", "chu", "--base-url", url]) == 0
        for name in ("movielens-100k", "orca", "letor3-ohsumed", "chu"):
            assert status(name, clone / "data").complete, name

        driver = load_driver(clone)  # make reproduce-quick = python experiments/reproduce.py --quick
        code = driver.main(["--quick"])
    return QuickRun(code, clone, clone / "build" / "quick", tracked, driver)


@pytest.mark.slow  # the session's quick reproduction (quick_reproduction): about 30-60 s on 2 cores
def test_fetch_from_a_mirror_then_reproduce_quick_with_no_variable_set(quick_reproduction):
    run = quick_reproduction
    assert run.code == 0
    quick = run.clone / "build" / "quick"
    assert run.out == quick
    assert (quick / "results" / "svor_benchmark_quick" / "benchmark.parquet").is_file()
    assert (quick / "results" / "prank_eachmovie100" / "movielens_100k.parquet").is_file()
    assert (quick / "figures" / "figure4_movielens.png").is_file()
    assert (quick / "results" / "letor_ohsumed_quick" / "letor_ohsumed.parquet").is_file()
    assert (quick / "figures" / "letor_ohsumed_ndcg.png").is_file()
    for name, digest in run.tracked.items():  # nothing the clone tracks was rewritten (README included)
        assert hashlib.sha256((run.clone / name).read_bytes()).hexdigest() == digest, name
    untracked = {p.relative_to(run.clone).parts[0] for p in run.clone.rglob("*")
                 if p.is_file() and p.relative_to(run.clone).as_posix() not in run.tracked
                 and "__pycache__" not in p.parts}
    assert untracked <= {"data", "build"}, f"reproduce --quick wrote outside build/: {sorted(untracked)}"
