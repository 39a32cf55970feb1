"""A new user's path on a fresh clone: fetch the data from a mirror into data/ (the default, no
ORDRANK_DATA set anywhere), then `make reproduce-quick` (= `python experiments/reproduce.py --quick`)
succeeds, writing only under build/quick/.

The mirror is a folder served on 127.0.0.1 in the upstream layout: MovieLens-100K's zip (rebuilt from
the real files, so its hash is re-pinned; the unpacked files meet the registry's own hashes), the
ORCA partition files of the two archives the quick benchmark reads (packed by fetch into archives
byte-identical to the pinned ones; the registry is restricted to them for the fetch and the data check),
LETOR 3.0's OHSUMED.zip in LETOR's layout (rebuilt from the five subsets, whose pinned hashes are
checked) and Wei Chu's partition files as they are.
"""
from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
import zipfile

import pytest

from ordrank.data import main as data_main
from ordrank.datasets import fetch as registry
from ordrank.datasets.fetch import Download

from conftest import REPO
from test_fetch import http_server, ohsumed_zip, only, pin, serve, sha256
from test_reproduce import load_driver

QUICK_ARCHIVES = ["10bins/pyrim10", "10bins/machine10"]  # svor_benchmark_quick: pyrim, machine, 10 bins


def fresh_clone(target):
    """The repository's tracked files (what `git clone` gives), copied to ``target``: no data/,
    no outputs, no build/."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, files.decode().split("\0")):
        if (REPO / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(REPO / name, target / name)
    return target


@pytest.mark.slow  # the quick reproduction: about 30-70 s on 2 cores
def test_fetch_from_a_mirror_then_reproduce_quick_with_no_variable_set(
        shared_data_dir, tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        for name in registry.MOVIELENS_100K_FILES:
            zipped.write(shared_data_dir / "movielens-100k" / name, f"ml-100k/{name}")
    serve(mirror, "movielens-100k", {"ml-100k.zip": buffer.getvalue()})
    pin(monkeypatch, "movielens-100k", downloads=(Download("ml-100k.zip", known_hash=sha256(buffer.getvalue())),))
    for archive in QUICK_ARCHIVES:
        with tarfile.open(shared_data_dir / "orca-discretized-regression" / f"{archive}.tar.xz") as tar:
            serve(mirror, "orca-discretized-regression", {m.name: tar.extractfile(m).read() for m in tar})
    pin(monkeypatch, "orca", **only(registry.DATASETS["orca"], QUICK_ARCHIVES))
    ohsumed = shared_data_dir / "letor3-ohsumed" / "QueryLevelNorm"
    serve(mirror, "letor3-ohsumed", {"OHSUMED.zip": ohsumed_zip(
        {f"S{i}.txt": (ohsumed / f"S{i}.txt").read_bytes() for i in range(1, 6)})})
    shutil.copytree(shared_data_dir / "chu-ghahramani-2005-ordinal", mirror / "chu-ghahramani-2005-ordinal")
    monkeypatch.setattr(registry, "RETRIES", 0)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    for variable in ("ORDRANK_DATA", "ORDRANK_DATA_URL"):
        monkeypatch.delenv(variable, raising=False)

    clone = fresh_clone(tmp_path / "clone")
    monkeypatch.chdir(clone)
    with http_server(mirror) as url:  # python -m ordrank.data fetch movielens-100k orca (README)
        assert data_main(["fetch", "movielens-100k", "orca", "letor3-ohsumed", "chu", "--base-url", url]) == 0
    for name in ("movielens-100k", "orca", "letor3-ohsumed", "chu"):
        assert registry.status(name, clone / "data").complete, name

    driver = load_driver(clone)  # make reproduce-quick = python experiments/reproduce.py --quick
    assert driver.main(["--quick"]) == 0
    quick = clone / "build" / "quick"
    assert (quick / "results" / "svor_benchmark_quick" / "benchmark.parquet").is_file()
    assert (quick / "results" / "prank_eachmovie100" / "movielens_100k.parquet").is_file()
    assert (quick / "figures" / "figure4_movielens.png").is_file()
    assert (quick / "results" / "letor_ohsumed_quick" / "letor_ohsumed.parquet").is_file()
    assert (quick / "figures" / "letor_ohsumed_ndcg.png").is_file()
    changed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, changed.decode().split("\0")):  # nothing the clone tracks was rewritten
        if (REPO / name).is_file():
            assert (clone / name).read_bytes() == (REPO / name).read_bytes(), name
