"""Install a data set from a local copy: ``python -m ordrank.data import NAME PATH``.

For a machine without internet access, or a copy from a colleague: ``PATH`` is a folder or an
archive holding the set either as installed (a data directory, or the set's folder) or as
downloaded (the upstream files a mirror serves, :func:`mirror_paths`). The same pinned checksums as
:func:`~ordrank.datasets.fetch.fetch` must match before anything is moved into place, and the
install is atomic in the same way (a temporary ``.import-*`` folder inside the data directory).
The web-scale sets downloaded by hand (MSLR-WEB10K/30K, Yahoo! set 1, Istella-S) have no pinned
checksums: their official archive or its unpacked folder is checked for its layout and published
sizes instead (:mod:`ordrank.datasets.web_import`).
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pooch

from ordrank.datasets.archives import ArchiveError
from ordrank.datasets.fetch import (DataSet, FetchError, _label, _move_into_place, _problems, get,
                                    writable_data_dir)
from ordrank.datasets.data_dir import resolve_data_dir
from ordrank.datasets.web_import import install_web, unpack


def mirror_paths(name: str) -> list[str]:
    """Every path a mirror must serve for set ``name``, relative to its root: ``<folder>/<path>``."""
    ds = get(name)
    return [f"{ds.folder}/{d.path}" for d in ds.downloads]


def install_local(name: str, source: str | os.PathLike, data_dir: str | os.PathLike | None = None) -> Path:
    """Install set ``name`` from a local copy ``source`` into the data directory, verified, and return
    its folder.

    ``source`` is a folder or an archive (zip, tar, tar.gz/.bz2/.xz), unpacked in a temporary folder
    first. In it (or in its sub-folder named like the set's folder, or one of its aliases) the files
    are taken either in the installed layout (what ``fetch`` leaves, e.g. a colleague's data
    directory: ``orca-discretized-regression/10bins/pyrim10.tar.xz``) or in the download layout (the
    upstream files, e.g. ``10bins/pyrim10/matlab/train_pyrim10.0``, or ``ml-100k.zip``), which is
    installed as ``fetch`` installs a download. Every pinned checksum must match before anything is
    moved into place, as for ``fetch``; a FetchError says what is missing or differs. A set downloaded
    by hand (``ds.web``: MSLR-WEB10K/30K, Yahoo! set 1, Istella-S) is taken from its official archive or
    its unpacked folder, checked for its layout and published sizes (:mod:`ordrank.datasets.web_import`).
    """
    ds, root, source = get(name), resolve_data_dir(data_dir), Path(source)
    origin = source  # named in the messages (``source`` may become a temporary unpacked folder)
    if not ds.checks:
        raise FetchError(f"{name}: nothing to check, nothing to install")
    if not source.exists():
        raise FetchError(f"{name}: {source} not found (give a folder or an archive holding the set)")
    writable_data_dir(root)
    with tempfile.TemporaryDirectory(dir=root, prefix=f".import-{ds.folder}-", ignore_cleanup_errors=True) as tmp:
        tmp, new = Path(tmp), Path(tmp) / "new"
        if ds.web is not None:  # downloaded by hand: layout and published sizes (ordrank.datasets.web_import)
            install_web(ds, source, tmp, new, origin)
        else:
            if source.is_file():
                unpack(name, source, tmp / "unpacked", str(origin))
                source = tmp / "unpacked"
            candidates = [c for c in (source, *(source / f for f in (ds.folder, *ds.aliases))) if c.is_dir()]
            for candidate in candidates:  # the installed layout: the folder's files copied as they are
                if all(actual is not None for _, actual in _problems(ds, candidate)):  # every file there
                    _copy_files(candidate, new)
                    break
            else:
                _install_download_layout(ds, candidates, tmp, new, origin)
        failed = _problems(ds, new)
        if failed:
            check, actual = failed[0]
            if actual is None:
                raise FetchError(f"{name}: {_label(check)} is missing from what {origin} holds")
            raise FetchError(f"{name}: {_label(check)} made from {origin} does not match its pinned "
                             f"sha256: expected {check.sha256}, got {actual}")
        _move_into_place(new, root / ds.folder)
    return root / ds.folder


def _copy_files(folder: Path, new: Path) -> None:
    """Copy every file under ``folder`` (not its permissions; no ``.fetch-*``/``.import-*`` leftovers)."""
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if path.is_file() and not any(part.startswith((".fetch-", ".import-")) for part in relative.parts):
            (new / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, new / relative)
    new.mkdir(exist_ok=True)


def _install_download_layout(ds: DataSet, candidates: list[Path], tmp: Path, new: Path, origin: Path) -> None:
    """Install from the first candidate folder holding every download of ``ds`` (upstream layout),
    each download checked against its pinned hash first (as pooch does for ``fetch``)."""
    for candidate in candidates:
        if ds.install is not None and all((candidate / d.path).is_file() for d in ds.downloads):
            downloaded = tmp / "download"
            for d in ds.downloads:
                (downloaded / d.path).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(candidate / d.path, downloaded / d.path)  # not its permissions
                if d.known_hash:
                    algorithm, _, expected = d.known_hash.rpartition(":")
                    actual = pooch.file_hash(str(downloaded / d.path), alg=algorithm or "sha256")
                    if actual != expected:
                        raise FetchError(f"{ds.name}: {d.path} in {origin} does not match its pinned "
                                         f"{algorithm or 'sha256'}: expected {expected}, got {actual}")
            where = origin if candidates[0] == origin else f"{origin} (unpacked)"
            try:
                ds.install(downloaded, new)
            except ArchiveError as error:  # names the user's file, the download in it and the member at fault
                inner = (candidate / error.archive.relative_to(downloaded)).relative_to(candidates[0]).as_posix()
                raise FetchError(f"{ds.name}: {error.where(f'{where}: {inner}')}") from None
            except (OSError, FetchError) as error:
                raise FetchError(f"{ds.name}: could not unpack {where}: {error}") from None
            return
    installed = ds.checks[0].files[0]
    upstream = ds.downloads[0].path if ds.downloads else "(no download)"
    where = origin if not candidates or candidates[0] == origin else f"{origin} (unpacked)"
    raise FetchError(f"{ds.name}: {where} holds neither the installed layout (e.g. {ds.folder}/{installed}, "
                     f"every checked file present) nor every upstream file (e.g. {upstream}; "
                     f"{len(ds.downloads)} files)")
