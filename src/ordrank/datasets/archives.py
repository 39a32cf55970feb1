"""Unpack a data archive (zip, or tar of any compression) without trusting it.

Every member is checked before it is written, and the archive is refused (:class:`ArchiveError`, naming
the member) when one is not a plain file or folder with a plain relative name:

- links, symbolic or hard: a data archive has no reason to hold one, and a relative link that stays
  inside the folder where it is unpacked can point outside the data directory once its folder is
  moved there (``Fold1/test.txt -> ../../../elsewhere``); devices and pipes likewise;
- an absolute name or one with a ``..`` part (tarfile's ``data`` filter and zipfile would strip or
  refuse them one by one; here the whole archive is refused, nothing is renamed);
- a file named twice (the second copy would silently replace the first);
- a declared size that cannot be true or does not fit: a member (or all of them together) declaring
  more than :data:`MAX_RATIO` times the archive's bytes (deflate cannot compress beyond about 1032:1,
  the sets' text compresses about 3-10:1), a stored zip member whose declared and stored sizes differ,
  or members declaring more bytes than are free where they are unpacked. These are refused from the
  headers, before the member is read: nothing of that size is allocated or written.

A member that cannot be read (a corrupt deflate, bzip2 or xz stream, a CRC mismatch, an archive cut
short, an unsupported or encrypted zip member) raises an :class:`ArchiveError` naming it too. The zip's
member list (its central directory) is checked whole before anything is written; a tar is read in one
pass, each member checked before it is written. A leaf module: it imports nothing of ordrank, and
callers turn :class:`ArchiveError` into their own message (the set, the user's file).
"""
from __future__ import annotations

import bz2
import contextlib
import gzip
import lzma
import shutil
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterable
from pathlib import Path

MAX_RATIO = 1_100
"""Most bytes a member (or all members together) may declare per byte of the archive."""

READ_ERRORS = (tarfile.TarError, zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, OSError, ValueError,
               NotImplementedError, RuntimeError)
"""What reading a damaged, truncated, encrypted or unsupported archive raises (zipfile: RuntimeError when
encrypted, NotImplementedError for an unknown compression; bz2 and gzip: OSError)."""


class ArchiveError(Exception):
    """An archive refused or unreadable: ``problem`` (a phrase following the member's name or, when
    ``member`` is None, the archive's), ``member`` at fault (None: the archive as a whole)."""

    def __init__(self, problem: str, member: str | None = None):
        self.problem, self.member = problem, member
        self.archive: Path | None = None  # set by unpack and member_names: the archive they were given
        super().__init__(self.where("the archive"))

    def where(self, label: str) -> str:
        """The message, the archive being called ``label`` (e.g. the user's file, or the file and the
        member of an outer archive that held this one)."""
        at = f": member {shown(self.member)}" if self.member is not None else ""
        return f"{label}{at} {self.problem}"


def shown(name: str) -> str:
    """``name`` as written in a message: as it is, or quoted (repr) when it holds a newline or another
    character that cannot be printed (a message stays one line)."""
    return name if name.isprintable() else repr(name)


def _cause(error: BaseException) -> str:  # zlib's error is called zlib.error
    return f"{'zlib.' * (type(error) is zlib.error)}{type(error).__name__}: {' '.join(str(error).split())}"


def name_problem(name: str, is_dir: bool = False) -> str | None:
    """Why member ``name`` may not be unpacked (absolute, a ``..`` part, no name), None when it may:
    then it is a path strictly inside the folder it is unpacked in (a folder may be the folder itself)."""
    if name.startswith("/"):
        return "has an absolute name: refused (a data archive's names are relative)"
    parts = name.split("/")
    if ".." in parts:
        return "has a '..' in its name: refused (it would be written outside the folder it is unpacked in)"
    if not is_dir and not any(p not in ("", ".") for p in parts):
        return "has no file name: refused"
    return None


def _kind_problem(kind: str, target: str = "") -> str:
    return (f"is a {kind}{f' (to {shown(target)})' if target else ''}: refused (a data archive holds only files and "
            "folders; a link could point outside the data directory once installed)")


class _Budget:
    """The declared bytes so far, against the archive's size (:data:`MAX_RATIO`) and the free space."""

    def __init__(self, archive: Path, into: Path):
        self.archive_bytes = max(archive.stat().st_size, 1)
        self.free = shutil.disk_usage(into).free
        self.total = 0

    def add(self, member: str, size: int, written: bool) -> None:
        if size > MAX_RATIO * self.archive_bytes:
            raise ArchiveError(f"declares {size:,} bytes, more than {MAX_RATIO:,} times the archive's "
                               f"{self.archive_bytes:,}: refused unread (a false header, or a decompression bomb)",
                               member)
        self.total += size if written else 0
        if self.total > MAX_RATIO * self.archive_bytes:
            raise ArchiveError(f"brings the bytes declared to {self.total:,}, more than {MAX_RATIO:,} times the "
                               f"archive's {self.archive_bytes:,}: refused unread", member)
        if self.total > self.free:
            raise ArchiveError(f"brings the bytes declared to {self.total:,}, more than the {self.free:,} bytes free "
                               "where the archive is unpacked (the data directory's file system)", member)


class _Names:
    """The names seen so far, to refuse a file named twice (or a file and a folder of the same name)."""

    def __init__(self):
        self.seen: dict[str, bool] = {}

    def add(self, name: str, is_dir: bool) -> None:
        key = "/".join(p for p in name.split("/") if p not in ("", "."))
        if key in self.seen and not (is_dir and self.seen[key]):
            raise ArchiveError("appears twice in the archive: refused (one copy would silently replace "
                               "the other)", name)
        self.seen[key] = is_dir


COMPRESSIONS = {b"\x1f\x8b": ("gzip", gzip.open), b"BZh": ("bzip2", bz2.open), b"\xfd7zXZ\x00": ("xz", lzma.open)}
"""A tar's compression, by the first bytes of the file."""


class _Recording:
    """The file tarfile reads, keeping the last block read: after the last member, it must be the zero
    block that ends a tar (a damaged header, or an archive cut short, ends tarfile's reading silently)."""

    def __init__(self, file):
        self.file, self.last = file, b""

    def read(self, n: int = -1) -> bytes:
        self.last = self.file.read(n)
        return self.last

    def seek(self, *args) -> int:
        return self.file.seek(*args)

    def tell(self) -> int:
        return self.file.tell()


@contextlib.contextmanager
def _open(archive: Path):
    """(the open zip or tar, the tar's :class:`_Recording` or None); an ArchiveError when unreadable."""
    with contextlib.ExitStack() as stack:
        opened, recording = _opened(archive, stack)
        yield opened, recording


def _opened(archive: Path, stack: contextlib.ExitStack):
    is_zip, start, kind, opener = zipfile.is_zipfile(archive), b"", "", None
    try:
        if is_zip:
            return stack.enter_context(zipfile.ZipFile(archive)), None
        with open(archive, "rb") as file:
            start = file.read(512)
        if start.startswith(b"PK\x03\x04"):  # a zip's first member, and no member list at its end
            raise ArchiveError("is a zip archive without its member list (the central directory at its "
                               "end): it is truncated or damaged")
        kind, opener = next((v for k, v in COMPRESSIONS.items() if start.startswith(k)), ("", None))
        if opener is None and start[257:262] != b"ustar":  # no known compression nor tar header
            return stack.enter_context(tarfile.open(archive)), None  # another format tarfile reads, or why not
        recording = _Recording(stack.enter_context((opener or open)(archive, "rb")))
        return stack.enter_context(tarfile.open(fileobj=recording, mode="r:")), recording
    except READ_ERRORS as error:
        if is_zip:
            raise ArchiveError(f"is a zip archive that cannot be read ({_cause(error)})") from None
        if opener is None and start[257:262] != b"ustar":
            raise ArchiveError(f"is not an archive that can be unpacked ({_cause(error)})") from None
        raise ArchiveError(f"cannot be read as a tar archive{f' ({kind}-compressed)' if kind else ''} "
                           f"({_cause(error)}): it is damaged or truncated") from None


def member_names(archive: Path) -> list[str]:
    """The names of the members of ``archive`` (of a tar: read through once); an ArchiveError if unreadable."""
    try:
        with _open(Path(archive)) as (opened, _):
            if isinstance(opened, zipfile.ZipFile):
                return opened.namelist()
            try:
                return opened.getnames()
            except READ_ERRORS as error:
                raise ArchiveError(f"cannot be read ({_cause(error)}): the archive is damaged or truncated") from None
    except ArchiveError as error:
        error.archive = Path(archive)
        raise


def unpack(archive: Path, into: Path, members: Iterable[str] | None = None) -> None:
    """Unpack ``archive`` (zip, or tar of any compression) into the folder ``into``, every member checked
    (see the module docstring), only ``members`` written if given (every member is checked all the same).
    An :class:`ArchiveError` naming the member otherwise; what was written is left in ``into`` (the callers
    unpack into a temporary folder)."""
    archive, into = Path(archive), Path(into)
    wanted = None if members is None else set(members)
    into.mkdir(parents=True, exist_ok=True)
    try:
        with _open(archive) as (opened, recording):
            if isinstance(opened, zipfile.ZipFile):
                _unzip(opened, archive, into, wanted)
            else:
                _untar(opened, recording, archive, into, wanted)
    except ArchiveError as error:
        error.archive = archive
        raise


def _unzip(zipped: zipfile.ZipFile, archive: Path, into: Path, wanted: set[str] | None) -> None:
    budget, names, infos = _Budget(archive, into), _Names(), zipped.infolist()
    for info in infos:  # the whole member list first: nothing is written from a refused zip
        name, mode = info.filename, info.external_attr >> 16 if info.create_system == 3 else 0
        problem = name_problem(name, info.is_dir())
        if problem is None and stat.S_ISLNK(mode):  # its data is the target: named when short and readable
            problem = _kind_problem("symbolic link", _link_target(zipped, info))
        elif problem is None and stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            problem = _kind_problem(f"special file (mode {stat.filemode(mode)})")
        elif problem is None and info.compress_type == zipfile.ZIP_STORED and info.file_size != info.compress_size:
            problem = (f"declares {info.file_size:,} bytes but stores {info.compress_size:,} uncompressed: "
                       "refused unread (a false header)")
        if problem:
            raise ArchiveError(problem, name)
        names.add(name, info.is_dir())
        budget.add(name, info.file_size, wanted is None or name in wanted)
        if info.compress_type != zipfile.ZIP_STORED and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise ArchiveError(f"declares {info.file_size:,} bytes from {info.compress_size:,} compressed, a ratio "
                               f"beyond {MAX_RATIO:,}: refused unread (a false header, or a decompression bomb)",
                               name)
    for info in infos:
        if wanted is None or info.filename in wanted:
            try:
                zipped.extract(info, into)
            except READ_ERRORS as error:
                raise ArchiveError(f"cannot be unpacked ({_cause(error)}): the archive is damaged or "
                                   "incomplete", info.filename) from None


def _link_target(zipped: zipfile.ZipFile, info: zipfile.ZipInfo) -> str:
    if info.file_size > 4096:
        return ""
    try:
        return zipped.read(info).decode(errors="replace")
    except READ_ERRORS:
        return ""


def _untar(tar: tarfile.TarFile, recording: _Recording | None, archive: Path, into: Path,
           wanted: set[str] | None) -> None:
    budget, names, last = _Budget(archive, into), _Names(), None
    while True:
        try:
            member = tar.next()
        except READ_ERRORS as error:
            after = f" after member {last}" if last is not None else ""
            raise ArchiveError(f"cannot be read{after} ({_cause(error)}): the archive is damaged or "
                               "truncated") from None
        if member is None:
            return _check_end(recording, last)
        last = member.name
        problem = name_problem(member.name, member.isdir())
        if problem is None and member.issym():
            problem = _kind_problem("symbolic link", member.linkname)
        elif problem is None and member.islnk():
            problem = _kind_problem("hard link", member.linkname)
        elif problem is None and not (member.isreg() or member.isdir()):
            problem = _kind_problem("device, pipe or other special file")
        if problem:
            raise ArchiveError(problem, member.name)
        names.add(member.name, member.isdir())
        budget.add(member.name, member.size, wanted is None or member.name in wanted)
        if wanted is None or member.name in wanted:
            try:
                tar.extract(member, into, filter="data")
            except READ_ERRORS as error:
                raise ArchiveError(f"cannot be unpacked ({_cause(error)}): the archive is damaged or "
                                   "truncated", member.name) from None


def _check_end(recording: _Recording | None, last: str | None) -> None:
    """After the last member: the block read must be tar's end marker (zeros), and the rest of the
    (compressed) stream must read to its end, which checks its own checksums (gzip's CRC-32, bzip2's, xz's)."""
    if recording is None:
        return
    after = f" after member {last}" if last is not None else ""
    if len(recording.last) < tarfile.BLOCKSIZE or recording.last.count(0) != tarfile.BLOCKSIZE:
        raise ArchiveError(f"ends{after} without tar's end-of-archive marker: it is truncated, or a header is "
                           "damaged")
    try:
        while recording.read(1 << 20):
            pass
    except READ_ERRORS as error:
        raise ArchiveError(f"cannot be read to its end{after} ({_cause(error)}): the archive is damaged or "
                           "truncated") from None
