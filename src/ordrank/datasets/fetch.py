"""Download the real data sets into the data directory and check them against pinned checksums.

Each known set (:data:`~ordrank.datasets.registry.DATASETS`) says where its files come from, how
they become the layout the loaders read (``ordrank.datasets.ratings``, ``ordrank.datasets.partitions``)
and which checksums the installed files must have. :func:`fetch` downloads with pooch into a
temporary folder inside the data directory, unpacks (or packs) there, verifies, and only then moves
each file into place with ``os.replace``: a failed or interrupted fetch leaves the data directory
as it was.
The sets themselves are defined in :mod:`ordrank.datasets.registry` (import their names from there).

Checks
------
A :class:`Check` covers one installed file (its sha256) or several (the sha256 of their
``sha256sum`` listing, ``"<sha256>  <path>\\n"`` per file sorted by path, paths relative to the set's
folder; e.g. ``grep ' abalone/5bins/' SHA256SUMS | LC_ALL=C sort -k2 | sha256sum``). A check
without a digest only requires the files to exist (MovieLens-1M/-10M: no published file hashes).

Mirrors
-------
``base_url`` (or the environment variable ``ORDRANK_DATA_URL``) replaces every upstream URL by
``<base_url>/<folder>/<path>``, where ``<path>`` is the download's path below (the upstream
layout, e.g. ``orca-discretized-regression/5bins/pyrim/matlab/train_pyrim.0``).
"""
from __future__ import annotations

import hashlib
import os
import shlex
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pooch
import requests
from tqdm.auto import tqdm

from ordrank.datasets.archives import ArchiveError
from ordrank.datasets.data_dir import resolve_data_dir
from ordrank.datasets.registry import Check, DataSet, FetchError, get

RETRIES = 2
"""Further attempts after a failed download or a checksum mismatch (pooch's ``retry_if_failed``)."""
TIMEOUT = 60
"""Seconds without data before a download is abandoned."""


# --- checking ------------------------------------------------------------------------------------------

def digest(folder: Path, files: Iterable[str]) -> str:
    """sha256 of one file, or of the ``sha256sum`` listing of several (see the module docstring)."""
    files = sorted(files)
    if len(files) == 1:
        return pooch.file_hash(str(folder / files[0]))
    listing = "".join(f"{pooch.file_hash(str(folder / f))}  {f}\n" for f in files)
    return hashlib.sha256(listing.encode()).hexdigest()


def _problems(ds: DataSet, folder: Path) -> list[tuple[Check, str | None]]:
    """Each failed check with the actual digest (None: files missing)."""
    found = []
    for check in ds.checks:
        if not all((folder / f).is_file() for f in check.files):
            found.append((check, None))
        elif check.sha256 is not None and (actual := digest(folder, check.files)) != check.sha256:
            found.append((check, actual))
    return found


def _label(check: Check) -> str:
    if len(check.files) == 1:
        return check.files[0]
    return f"{os.path.dirname(check.files[0])}/ ({len(check.files)} files)"


@dataclass
class Status:
    """What :func:`status` found for one data set under one data directory."""

    dataset: DataSet
    path: Path
    present: bool
    problems: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.present and not self.problems

    @property
    def checksummed(self) -> bool:
        return all(check.sha256 for check in self.dataset.checks)

    @property
    def size(self) -> int:
        return sum(p.stat().st_size for p in self.path.rglob("*") if p.is_file()) if self.present else 0


def status(name: str, data_dir: str | os.PathLike | None = None) -> Status:
    """Whether set ``name`` is under the data directory, and every failed check (missing files or
    files whose sha256 differs from the pinned one)."""
    ds, root = get(name), resolve_data_dir(data_dir)
    path = next((root / f for f in (ds.folder, *ds.aliases) if (root / f).is_dir()), root / ds.folder)
    if not path.is_dir():
        return Status(ds, path, False, ["not found"])
    problems = []
    for check, actual in _problems(ds, path):
        if actual is None:
            absent = [f for f in check.files if not (path / f).is_file()]
            more = f" (and {len(absent) - 1} more files)" if len(absent) > 1 else ""
            problems.append(f"{absent[0]} missing{more}")
        else:
            problems.append(f"{_label(check)} has sha256 {actual}, not the pinned {check.sha256}")
    return Status(ds, path, True, problems)


def missing(names: Iterable[str], data_dir: str | os.PathLike | None = None) -> list[str]:
    """One line per set of ``names`` that is absent or incomplete, saying exactly how to get it.

    The line names the set, what is wrong under the data directory, and either the command
    ``python -m ordrank.data fetch NAME --data-dir DIR`` or the manual steps (no public download).
    Unknown names raise a ValueError listing the known ones.
    """
    root = resolve_data_dir(data_dir).absolute()
    lines = []
    for name in names:
        found = status(name, root)
        if found.complete:
            continue
        ds = found.dataset
        what = "; ".join(found.problems[:2]) + (f"; ... ({len(found.problems)} problems)"
                                                if len(found.problems) > 2 else "")
        how = (f"get it with: python -m ordrank.data fetch {name} --data-dir {shlex.quote(str(root))}"
               if ds.downloads else ds.manual.replace("<data dir>", str(root)))
        lines.append(f"{name} ({ds.title}) at {found.path}: {what} -- {how}")
    return lines


def offline(name: str) -> str:
    """How to install set ``name`` without internet access, in words (for the error messages)."""
    return (f"without internet access: copy its files from another machine (python -m ordrank.data "
            f"mirror-paths {name} lists them) and install them with python -m ordrank.data import {name} PATH")


def require(names: Iterable[str], data_dir: str | os.PathLike | None = None) -> None:
    """Raise FileNotFoundError listing :func:`missing` ``(names, data_dir)`` unless every set is complete."""
    lines = missing(names, data_dir)
    if lines:
        raise FileNotFoundError(f"data sets missing or incomplete under {resolve_data_dir(data_dir).absolute()} "
                                "(set ORDRANK_DATA or --data-dir; without internet access: python -m ordrank.data "
                                "import NAME PATH):\n" + "\n".join(f"- {line}" for line in lines))


# --- fetching ------------------------------------------------------------------------------------------

def fetch(name: str, data_dir: str | os.PathLike | None = None, base_url: str | None = None,
          force: bool = False) -> Path:
    """Download set ``name`` into the data directory, verified, and return its folder.

    Parameters
    ----------
    name : str
        A key of :data:`DATASETS`.
    data_dir : path, optional
        Data directory (see :func:`~ordrank.datasets.data_dir.resolve_data_dir`); created if needed.
    base_url : str, optional
        Mirror root replacing the upstream URLs (default ``$ORDRANK_DATA_URL``; see the module docstring).
    force : bool
        Download even when the set is already complete.

    Raises
    ------
    FetchError
        The set has no public download, a download failed, a file does not match its pinned checksum
        (the message names the set, the URL, the expected and the actual hash), or unpacking failed.
        Nothing is left in the data directory in that case.
    """
    ds, root = get(name), resolve_data_dir(data_dir)
    if not ds.downloads:
        raise FetchError(f"{name}: {ds.manual.replace('<data dir>', str(root))}")
    target, found = root / ds.folder, status(name, root)
    if found.complete and not force:
        return found.path
    base_url = base_url or os.environ.get("ORDRANK_DATA_URL") or None
    writable_data_dir(root)
    with tempfile.TemporaryDirectory(dir=root, prefix=f".fetch-{ds.folder}-", ignore_cleanup_errors=True) as tmp:
        downloaded, new = Path(tmp) / "download", Path(tmp) / "new"
        _download(ds, downloaded, base_url)
        try:
            ds.install(downloaded, new)
        except ArchiveError as error:  # names the downloaded archive and its member at fault
            url = ds.url(error.archive.relative_to(downloaded).as_posix(), base_url)
            raise FetchError(f"{name}: could not unpack the download: {error.where(url)}") from None
        except (OSError, FetchError) as error:
            raise FetchError(f"{name}: could not unpack the download from {ds.url(ds.downloads[0].path, base_url)}: "
                             f"{error}") from None
        failed = _problems(ds, new)
        if failed:
            check, actual = failed[0]
            got = "files missing" if actual is None else f"got {actual}"
            raise FetchError(f"{name}: {_label(check)} made from {ds.url(check.source, base_url)} does not match "
                             f"its pinned sha256: expected {check.sha256}, {got}"
                             + (f" ({len(failed) - 1} more checks failed)" if len(failed) > 1 else ""))
        _move_into_place(new, target)
    return target


def writable_data_dir(root: Path) -> None:
    """Create the data directory ``root`` if needed and check, by writing a probe file, that files
    can be put in it; a FetchError naming it otherwise (a file, a read-only folder or file system)."""
    root = Path(root).absolute()
    existing = next(p for p in (root, *root.parents) if p.exists())
    if not existing.is_dir():
        raise FetchError(f"data directory {root} cannot be used: {existing} is a file, not a folder; "
                         "choose another with --data-dir or ORDRANK_DATA")
    try:
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=root, prefix=".probe-"):
            pass
    except OSError as error:
        raise FetchError(f"data directory {root} is not writable (a probe file could not be written: "
                         f"{error.strerror or error}); choose "
                         "another with --data-dir or ORDRANK_DATA") from None


def _download(ds: DataSet, folder: Path, base_url: str | None) -> None:
    """Download every file of ``ds`` into ``folder`` with pooch (hash-checked when a hash is known)."""
    urls = {d.path: ds.url(d.path, base_url) for d in ds.downloads}
    store = pooch.create(path=folder, base_url="", registry={d.path: d.known_hash for d in ds.downloads},
                         urls=urls, retry_if_failed=RETRIES)
    downloader = pooch.HTTPDownloader(progressbar=False, timeout=TIMEOUT)
    pooch.get_logger().setLevel("WARNING")
    bar = tqdm(ds.downloads, desc=f"fetch {ds.name}", unit="file", disable=len(ds.downloads) < 5 or None)
    for d in bar:
        try:
            store.fetch(d.path, downloader=downloader)
        except ValueError as error:  # pooch: hash mismatch (after the retries)
            raise FetchError(f"{ds.name}: {urls[d.path]} does not match its pinned checksum: {error}") from None
        except (requests.RequestException, OSError) as error:  # connection, HTTP status, timeout, disk
            raise FetchError(f"{ds.name}: could not download {urls[d.path]}: {error}; {offline(ds.name)}") from None


def _move_into_place(new: Path, target: Path) -> None:
    """Rename ``new`` to ``target`` (absent), else replace ``target``'s files one by one with ``new``'s
    (other files in ``target`` are kept). Same file system, so each rename is atomic."""
    if not target.exists():
        os.replace(new, target)
        return
    for path in sorted(p for p in new.rglob("*") if p.is_file()):
        destination = target / path.relative_to(new)
        destination.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, destination)
