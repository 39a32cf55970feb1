"""Import a web-scale set downloaded by hand (:mod:`ordrank.datasets.web_sets`) from its official archive or
its unpacked folder, into the LETOR layout ``Fold<k>/{train,vali,test}.txt``.

Called by :func:`ordrank.datasets.install.install_local` inside its temporary ``.import-*`` folder: it fills
``new`` and the caller moves it into place. In order: the archive's byte count (when the file has the
official archive name and the size is published), the layout (every file of every fold, found in the
folder or archive, under any top folder, as distributed or as installed; for Yahoo also inside the
inner archive of the Webscope download), then the documents per file (lines counted in a chunked
binary read, no parsing) against :data:`~ordrank.datasets.web_sets.PUBLISHED`. A zip is checked on its
member list before anything is unpacked, and only the layout's members are unpacked; files unpacked
are moved (not copied) into place, files of a folder are copied once.
"""
from __future__ import annotations

import os
import shutil
import zipfile
from pathlib import Path, PurePosixPath

from ordrank.datasets import archives
from ordrank.datasets.archives import ArchiveError, member_names
from ordrank.datasets.registry import DataSet, FetchError
from ordrank.datasets.web_sets import PUBLISHED, Published, count_lines

SKIPPED = (".fetch-", ".import-")  # temporary folders of fetch and import, never read


def unpack(name: str, archive: Path, into: Path, where: str, members: list[str] | None = None) -> None:
    """Unpack ``archive`` into ``into`` (only ``members``, if given), every member checked first
    (:func:`ordrank.datasets.archives.unpack`: no links, no names outside, no false sizes); a FetchError
    naming the set, ``where`` (the user's archive, or the outer archive and the member that held this one)
    and the member at fault otherwise."""
    try:
        archives.unpack(archive, into, members)
    except ArchiveError as error:
        if error.member is None and error.problem.startswith("is not an archive"):
            error.problem = "is not a folder nor an archive" + error.problem.removeprefix("is not an archive")
        raise FetchError(f"{name}: {error.where(where)}") from None


def install_web(ds: DataSet, source: Path, tmp: Path, new: Path, origin: Path) -> None:
    """Fill ``new`` with the files of ``ds`` (a set with ``ds.web``) from ``source``, checked (see the
    module docstring); a FetchError naming the set, ``origin`` and what differs otherwise."""
    published = PUBLISHED.get(ds.name, Published())
    if source.is_file():
        size, expected = source.stat().st_size, published.archive_bytes
        if source.name.lower() == ds.web.archive.lower() and expected is not None and size != expected:
            raise FetchError(f"{ds.name}: {origin} has {size:,} bytes, not the published {expected:,} of "
                             f"{ds.web.archive} (an incomplete or another download?)")
        members = None
        if zipfile.is_zipfile(source):  # the layout from the member list: nothing unpacked if it is wrong
            try:
                listed = {n for n in member_names(source) if not n.endswith("/")}
            except ArchiveError as error:
                raise FetchError(f"{ds.name}: {error.where(str(origin))}") from None
            found = _locate(ds, listed)
            if found is not None and not found[2]:
                members = [found[0] + name for name in found[1].values()]
            elif not _inner(ds, listed):
                raise _layout_error(ds, listed, found, f"{origin} (zip)")
        unpack(ds.name, source, tmp / "unpacked", str(origin), members)
        _install_folder(ds, tmp / "unpacked", tmp, new, f"{origin} (unpacked)", published, move=True)
    else:
        _install_folder(ds, source, tmp, new, str(origin), published, move=False)


def _files(folder: Path) -> set[str]:
    """Every file under ``folder``, as posix paths relative to it (no ``.fetch-*``/``.import-*`` folders)."""
    found = set()
    for top, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(SKIPPED))
        base = Path(top).relative_to(folder)
        found |= {(base / f).as_posix() for f in files}
    return found


def _inner(ds: DataSet, paths: set[str]) -> list[str]:
    """The inner archives of ``ds.web`` among ``paths`` (Yahoo's Webscope download holds one)."""
    return sorted(p for p in paths if PurePosixPath(p).name in ds.web.inner)


def _locate(ds: DataSet, paths: set[str]) -> tuple[str, dict[str, str], list[str]] | None:
    """The best place of the layout among ``paths``: (prefix, {installed: name there}, installed files
    missing there), names as distributed or as installed; None when no file of the layout is there."""
    hints = {ds.name.lower(), ds.folder.lower(), ds.web.archive.lower().split(".")[0]}
    best = None
    for official, naming in ((True, dict(ds.web.files)), (False, {f: f for f in ds.web.installed})):
        names = set(naming.values())
        prefixes = {p[:len(p) - len(n)] for p in paths for n in names if p == n or p.endswith("/" + n)}
        for prefix in sorted(prefixes):
            missing = [f for f, n in naming.items() if prefix + n not in paths]
            hinted = any(part.lower() in hints for part in prefix.split("/"))
            key = (len(naming) - len(missing), hinted, -prefix.count("/"), official)
            if best is None or key > best[0]:
                best = (key, (prefix, naming, missing))
    return None if best is None else best[1]


def _expected(ds: DataSet) -> str:
    names = [n for _, n in ds.web.files]
    return ", ".join(names) if len(names) <= 6 else f"{names[0]}, {names[1]}, ..., {names[-1]} ({len(names)} files)"


def _layout_error(ds: DataSet, paths: set[str], found, where: str) -> FetchError:
    if found is None:
        some = ", ".join(sorted(paths)[:3]) or "no file at all"
        return FetchError(f"{ds.name}: {where} holds no file of the {ds.web.title} layout ({_expected(ds)}); "
                          f"found {len(paths)} files: {some}{', ...' if len(paths) > 3 else ''}")
    prefix, naming, missing = found
    names = [naming[f] for f in missing]
    known = {prefix + n for n in naming.values()}
    others = sorted(p[len(prefix):] for p in paths if p.startswith(prefix) and p not in known)
    extra = f"; other files there: {', '.join(others[:3])}{', ...' if len(others) > 3 else ''}" if others else ""
    return FetchError(f"{ds.name}: {where} lacks {', '.join(names[:4])}{' ...' if len(names) > 4 else ''} "
                      f"({len(names)} of {len(naming)} files missing) in {prefix or 'its top folder'}; the "
                      f"{ds.web.title} layout is {_expected(ds)}{extra}")


def _install_folder(ds: DataSet, folder: Path, tmp: Path, new: Path, where: str, published: Published,
                    move: bool, outer: bool = True) -> None:
    """Check the layout and sizes of the files in ``folder``, then move (``move``) or copy them into ``new``
    (``outer``: an inner archive is looked into when the files are not there)."""
    paths = _files(folder)
    found = _locate(ds, paths)
    if (found is None or found[2]) and outer and _inner(ds, paths):  # the files are in an inner archive
        inner = _inner(ds, paths)[0]
        unpack(ds.name, folder / inner, tmp / "inner", f"{where}: {inner}")
        return _install_folder(ds, tmp / "inner", tmp, new, f"{where}: {inner}", published, move=True, outer=False)
    if found is None or found[2]:
        raise _layout_error(ds, paths, found, where)
    prefix, naming, _ = found
    files = {f: folder / (prefix + n) for f, n in naming.items()}
    _check_documents(ds, files, {f: prefix + n for f, n in naming.items()}, where, published)
    for installed, path in files.items():
        (new / installed).parent.mkdir(parents=True, exist_ok=True)
        if move:
            os.replace(path, new / installed)
        else:
            shutil.copyfile(path, new / installed)  # not its permissions


def _check_documents(ds: DataSet, files: dict[str, Path], names: dict[str, str], where: str,
                     published: Published) -> None:
    """Lines of each file against the published documents per file and per fold (train + vali + test)."""
    wanted = set(published.lines) | (set(files) if published.fold_documents is not None else set())
    counts = {f: count_lines(files[f]) for f in sorted(wanted & set(files))}
    for f, expected in published.lines.items():
        if f in counts and counts[f] != expected:
            raise FetchError(f"{ds.name}: {names[f]} in {where} has {counts[f]:,} lines, not the published "
                             f"{expected:,} documents (an incomplete or another version of the set?)")
    if published.fold_documents is not None:
        for fold in sorted({f.split("/")[0] for f in files}):
            parts = [f for f in files if f.split("/")[0] == fold]
            total = sum(counts[f] for f in parts)
            if total != published.fold_documents:
                shown = ", ".join(f"{names[f]} {counts[f]:,}" for f in parts)
                raise FetchError(f"{ds.name}: {fold}'s files in {where} have {total:,} lines ({shown}), not the "
                                 f"published {published.fold_documents:,} documents of every fold")
