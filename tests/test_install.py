"""`python -m ordrank.data import NAME PATH`: a set installed from a local folder or archive, verified
against the same pinned checksums as a download, atomically."""
from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile

import pytest

from ordrank.datasets import registry
from ordrank.datasets.fetch import status
from ordrank.datasets.registry import FetchError
from ordrank.datasets.install import install_local, mirror_paths
from ordrank.datasets.ratings import load_movielens_100k

from conftest import REPO
from test_fetch import entries, fake_movielens_zip, only, pin, sha256

Check, Download = registry.Check, registry.Download


@pytest.fixture
def fake_movielens(monkeypatch, tmp_path):
    """A fake ml-100k.zip in <tmp>/copy, its files' hashes pinned for the test."""
    archive, files = fake_movielens_zip()
    (tmp_path / "copy").mkdir()
    (tmp_path / "copy" / "ml-100k.zip").write_bytes(archive)
    pin(monkeypatch, "movielens-100k", downloads=(Download("ml-100k.zip", known_hash=sha256(archive)),),
        checks=tuple(Check((f,), sha256(files[f]), "ml-100k.zip") for f in registry.MOVIELENS_100K_FILES))
    return files


def test_import_from_the_zip_the_unpacked_folder_or_a_data_directory(fake_movielens, tmp_path):
    copy = tmp_path / "copy"
    with zipfile.ZipFile(copy / "ml-100k.zip") as zipped:
        zipped.extractall(tmp_path / "unpacked")
    sources = {"a folder holding the download": copy, "the zip itself": copy / "ml-100k.zip",
               "the unpacked ml-100k/": tmp_path / "unpacked" / "ml-100k"}
    for how, source in sources.items():
        data = tmp_path / how.replace(" ", "-")
        path = install_local("movielens-100k", source, data)
        assert path == data / "movielens-100k" and entries(data) == ["movielens-100k"], how
        assert (path / "u1.base").is_file(), how  # the whole folder, not only the checked files
        assert status("movielens-100k", data).complete, how
        with pytest.warns(UserWarning, match="not the published data"):
            assert load_movielens_100k(data).n_ratings == 12
    again = install_local("movielens-100k", tmp_path / "a-folder-holding-the-download", tmp_path / "again")
    assert status("movielens-100k", again.parent).complete  # a data directory as the source


def test_a_changed_file_is_refused_and_nothing_is_installed(fake_movielens, tmp_path):
    with zipfile.ZipFile(tmp_path / "copy" / "ml-100k.zip") as zipped:
        zipped.extractall(tmp_path / "unpacked")
    (tmp_path / "unpacked" / "ml-100k" / "u.item").write_text("changed\n")
    with pytest.raises(FetchError, match=r"u\.item made from .* does not match its pinned sha256"):
        install_local("movielens-100k", tmp_path / "unpacked", tmp_path / "data")
    assert entries(tmp_path / "data") == []  # no temporary folder left, nothing installed


def test_orca_from_the_upstream_partition_files_is_packed_to_the_pinned_archive(
        shared_data_dir, tmp_path, monkeypatch):
    """The unpacked partition files (what a mirror serves) become the pinned .tar.xz, byte for byte."""
    pin(monkeypatch, "orca", **only(registry.DATASETS["orca"], ["5bins/pyrim"]))
    archive = shared_data_dir / "orca-discretized-regression" / "5bins" / "pyrim.tar.xz"
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path / "upstream", filter="data")
    path = install_local("orca", tmp_path / "upstream", tmp_path / "data")
    assert (path / "5bins" / "pyrim.tar.xz").read_bytes() == archive.read_bytes()


def test_cli_imports_a_colleagues_data_directory(shared_data_dir, tmp_path):
    done = subprocess.run([sys.executable, "-m", "ordrank.data", "import", "uci-abalone", str(shared_data_dir),
                           "--data-dir", str(tmp_path / "data")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"uci-abalone: complete at {tmp_path / 'data' / 'uci-abalone'}")
    assert status("uci-abalone", tmp_path / "data").complete


def test_the_docs_name_what_a_mirror_serves():
    """docs/data.md states the mirror layout: every set's count of files and an example of each."""
    text = (REPO / "docs" / "data.md").read_text()
    for name, ds in registry.DATASETS.items():
        if ds.downloads:
            paths = mirror_paths(name)
            assert f"`{name}`: {len(paths)} file" in text, name
            assert f"`URL/{paths[0]}`" in text, name


def test_a_download_with_another_hash_is_refused(fake_movielens, tmp_path):
    """The upstream layout's files are checked against their pinned download hash, as fetch does."""
    (tmp_path / "other").mkdir()
    archive, _ = fake_movielens_zip()
    with zipfile.ZipFile(tmp_path / "other" / "ml-100k.zip", "w") as zipped:  # same files, another zip
        with zipfile.ZipFile(tmp_path / "copy" / "ml-100k.zip") as original:
            for info in original.infolist():
                zipped.writestr(info.filename, original.read(info), compress_type=zipfile.ZIP_DEFLATED)
    with pytest.raises(FetchError, match=r"ml-100k\.zip in \S+/other does not match its pinned sha256"):
        install_local("movielens-100k", tmp_path / "other", tmp_path / "data")
    assert entries(tmp_path / "data") == []
