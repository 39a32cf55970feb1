"""Hostile and damaged archives given to `python -m ordrank.data import`: every one ends in one clear error
naming the set, the user's archive and the member at fault, and nothing is installed, left behind or
readable outside the data directory (checked on the file system, not only on the message)."""
from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest

from ordrank.datasets.install import install_local
from ordrank.datasets.registry import FetchError

from test_import_web import publish, upstream_files


def inside(data: Path) -> list[str]:
    """Every path under the data directory ``data`` whose resolved place is not inside it (none expected)."""
    root = data.resolve()
    return [str(p) for p in data.rglob("*") if not p.resolve().is_relative_to(root)]


def test_a_relative_link_inside_the_unpacked_folder_that_leaves_the_data_directory_is_refused(tmp_path, monkeypatch):
    """``x/y/sample/test.txt -> ../../../secret.txt`` stays inside the folder it is unpacked in (tarfile's data
    filter lets it through), but once ``Fold1/test.txt`` is moved into the data directory it reads
    ``<tmp>/secret.txt``, outside it."""
    files = upstream_files("istella-s")
    publish(monkeypatch, "istella-s", files)
    archive, data = tmp_path / "istella-s-letor.tar.gz", tmp_path / "data"
    with tarfile.open(archive, "w:gz") as tar:
        for path, content in {"secret.txt": files["sample/test.txt"], **files}.items():
            info = tarfile.TarInfo(path if path == "secret.txt" else "x/y/" + path)
            if path == "sample/test.txt":
                info.type, info.linkname = tarfile.SYMTYPE, "../../../secret.txt"
                tar.addfile(info)
            else:
                info.size = len(content)
                tar.addfile(info, io.BytesIO(content))
    for decoy in (tmp_path / "secret.txt", data / "secret.txt"):  # where the link points, then and once installed
        decoy.parent.mkdir(exist_ok=True)
        decoy.write_bytes(files["sample/test.txt"])
    with pytest.raises(FetchError, match=r"^istella-s: \S+istella-s-letor\.tar\.gz: member x/y/sample/test\.txt is "
                                         r"a symbolic link \(to \.\./\.\./\.\./secret\.txt\): refused"):
        install_local("istella-s", archive, data)
    assert sorted(os.listdir(data)) == ["secret.txt"] and inside(data) == []  # nothing installed, nothing left
