"""Hostile and damaged archives given to `python -m ordrank.data import`: every one ends in one clear error
naming the set, the user's archive and the member at fault, and nothing is installed, left behind or
readable outside the data directory (checked on the file system, not only on the message)."""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import re
import stat
import struct
import subprocess
import sys
import tarfile
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ordrank.data import main
from ordrank.datasets import archives, registry
from ordrank.datasets.archives import MAX_RATIO, name_problem
from ordrank.datasets.fetch import fetch
from ordrank.datasets.install import install_local
from ordrank.datasets.registry import Download, FetchError

from test_fetch import http_server, pin, sha256
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



# --- building hostile archives ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Member:
    """One member to pack: ``kind`` file, dir, symlink, hardlink or fifo; ``size``: a size the header
    declares while no data follows it (a false header)."""

    name: str
    data: bytes = b""
    kind: str = "file"
    target: str = ""
    size: int | None = None


def tar_bytes(members: list[Member]) -> bytes:
    """An uncompressed tar of ``members``, written header by header (a false size gets no data)."""
    out = io.BytesIO()
    for m in members:
        info = tarfile.TarInfo(m.name)
        info.type = {"file": tarfile.REGTYPE, "dir": tarfile.DIRTYPE, "symlink": tarfile.SYMTYPE,
                     "hardlink": tarfile.LNKTYPE, "fifo": tarfile.FIFOTYPE}[m.kind]
        info.linkname, info.size = m.target, len(m.data) if m.kind == "file" else 0
        if m.size is not None:
            info.size = m.size
        out.write(info.tobuf(tarfile.PAX_FORMAT))
        if m.size is None:
            out.write(m.data + b"\0" * (-len(m.data) % tarfile.BLOCKSIZE))
    return out.getvalue() + b"\0" * (2 * tarfile.BLOCKSIZE)


def header(data: bytes, signature: bytes, fixed: int, name: str) -> int:
    """Offset of the zip header ``signature`` (``fixed`` bytes before the name) of member ``name``."""
    return next(i for i in range(len(data)) if data.startswith(signature, i)
                and data[i + fixed:i + fixed + len(name.encode())] == name.encode())


def zip_bytes(members: list[Member]) -> bytes:
    """A deflated zip of ``members`` (unix modes: a symlink is a member of mode S_IFLNK holding its target);
    a false size is patched into the local header and the central directory entry."""
    out = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zipped:
        warnings.simplefilter("ignore")  # zipfile warns of a duplicate name: that is the point here
        for m in members:
            info = zipfile.ZipInfo(m.name + ("/" if m.kind == "dir" else ""))
            info.compress_type, info.create_system = zipfile.ZIP_DEFLATED, 3
            info.external_attr = {"file": stat.S_IFREG | 0o644, "dir": stat.S_IFDIR | 0o755,
                                  "symlink": stat.S_IFLNK | 0o777, "fifo": stat.S_IFIFO | 0o644}[m.kind] << 16
            zipped.writestr(info, m.target.encode() if m.kind == "symlink" else m.data)
    data = bytearray(out.getvalue())
    for m in members:
        if m.size is not None:
            struct.pack_into("<I", data, header(data, b"PK\x03\x04", 30, m.name) + 22, m.size)
            struct.pack_into("<I", data, header(data, b"PK\x01\x02", 46, m.name) + 24, m.size)
    return bytes(data)


def packed(members: list[Member], fmt: str) -> bytes:
    if fmt == "zip":
        return zip_bytes(members)
    compress = {"tar": bytes, "tar.gz": gzip.compress, "tar.bz2": bz2.compress, "tar.xz": lzma.compress}[fmt]
    return compress(tar_bytes(members))


def corrupt_deflate(data: bytes, name: str) -> bytes:
    """Member ``name``'s deflate stream made invalid: its first block gets the reserved type 11."""
    data = bytearray(data)
    at = header(data, b"PK\x03\x04", 30, name)
    n, extra = struct.unpack_from("<HH", data, at + 26)
    data[at + 30 + n + extra] = 0xFF
    return bytes(data)


def corrupt_crc(data: bytes, name: str) -> bytes:
    """Member ``name``'s CRC-32 changed in both headers: it inflates, then fails its check."""
    data = bytearray(data)
    for signature, fixed, offset in ((b"PK\x03\x04", 30, 14), (b"PK\x01\x02", 46, 16)):
        at = header(data, signature, fixed, name) + offset
        data[at] ^= 0xFF
    return bytes(data)


def corrupt_middle(data: bytes, name: str) -> bytes:
    """A compressed tar's stream damaged in its middle."""
    middle = len(data) // 2
    return data[:middle] + bytes(b ^ 0x5A for b in data[middle:middle + 16]) + data[middle + 16:]


def truncated(data: bytes, name: str) -> bytes:
    return data[: len(data) * 3 // 5]


# --- the cases: a hostile change of the set's own files, the member at fault and what the message says ------

DAMAGED = (r"( cannot be read( as a tar archive \((gzip|bzip2|xz)-compressed\)| to its end)?( after member \S+)? "
           r"\(\w+: .+\)| ends after member \S+ without tar's end-of-archive marker| is a zip archive without its "
           r"member list|: member \S+ cannot be unpacked \(\w+: .+\)).*: (it|the archive) is (damaged|truncated)")
"""What a damaged or truncated archive is refused with: where it could not be read (no member, when its very
first header cannot), why, and that it is damaged or truncated."""
DOTS = "../../../"  # from <data>/.import-*/unpacked (or inner, download-unpacked) up to tmp_path


def hostile(kind: str, files: dict[str, bytes], tmp_path: Path):
    """(members, damage to the packed bytes, the member at fault or None, the message after it)."""
    first = next(iter(files))
    legit = [Member(path, data) for path, data in files.items()]
    cases = {
        "symlink": (legit + [Member("deep/er/link.txt", kind="symlink", target=DOTS + "secret.txt")], None,
                    "deep/er/link.txt", rf"is a symbolic link \(to {re.escape(DOTS)}secret\.txt\): refused"),
        "hardlink": (legit + [Member("hard.txt", kind="hardlink", target=first)], None, "hard.txt",
                     rf"is a hard link \(to {re.escape(first)}\): refused"),
        "dotdot": (legit + [Member(DOTS + "escaped.txt", b"x\n")], None, DOTS + "escaped.txt",
                   r"has a '\.\.' in its name: refused"),
        "absolute": (legit + [Member(str(tmp_path / "absolute.txt"), b"x\n")], None, str(tmp_path / "absolute.txt"),
                     r"has an absolute name: refused"),
        "fifo": (legit + [Member("pipe", kind="fifo")], None, "pipe", r"is a (device, pipe or other )?special file"),
        "duplicate": (legit + [Member(first, b"a second copy\n")], None, first, r"appears twice in the archive"),
        "huge": (legit + [Member("huge.txt", size=4_000_000_000)], None, "huge.txt",
                 rf"declares 4,000,000,000 bytes, more than {MAX_RATIO:,} times the archive's [\d,]+: "
                 r"refused unread"),
        "deflate": (legit, corrupt_deflate, first, r"cannot be unpacked \(zlib\.error: Error -3 while decompressing"),
        "crc": (legit, corrupt_crc, first, r"cannot be unpacked \(BadZipFile: Bad CRC-32"),
        "stream": (legit, corrupt_middle, None, DAMAGED),
        "truncated": (legit, truncated, None, DAMAGED),
        "not-an-archive": ([], lambda data, name: bytes(range(256)) * 8, None,
                           r" is not a folder nor an archive that can be unpacked \(ReadError: "),
    }
    return cases[kind]


KINDS = {"symlink": ("tar.gz", "zip"), "hardlink": ("tar",), "dotdot": ("tar.gz", "zip"), "absolute": ("tar", "zip"),
         "fifo": ("tar", "zip"), "duplicate": ("tar.xz", "zip"), "huge": ("tar.gz", "zip"), "deflate": ("zip",),
         "crc": ("zip",), "stream": ("tar.gz", "tar.bz2", "tar.xz"), "truncated": ("tar.gz", "tar", "zip"),
         "not-an-archive": ("tar.gz",)}
VARIANTS = [(kind, fmt) for kind, fmts in KINDS.items() for fmt in fmts]


def set_files(name: str, monkeypatch) -> dict[str, bytes]:
    """Files of set ``name`` as the importer looks for them: a web set's upstream files (their sizes
    published for the test), else a few files of the installed layout (the checksums are never reached)."""
    ds = registry.DATASETS[name]
    if ds.web is not None:
        files = upstream_files(name)
        publish(monkeypatch, name, files)
        return files
    return {f"{ds.folder}/{f}": b"".join(f"{f} line {i}\n".encode() for i in range(40)) for f in ds.checks[0].files}


def snapshot(tmp_path: Path) -> dict[str, bytes | None]:
    """Every path under ``tmp_path`` but the data directory: its bytes (None: a folder)."""
    return {p.relative_to(tmp_path).as_posix(): None if p.is_dir() else p.read_bytes()
            for p in tmp_path.rglob("*") if not p.is_relative_to(tmp_path / "data")}


def refused(name: str, source: Path, tmp_path: Path, message: str) -> None:
    """Importing ``source`` raises one FetchError matching ``message``; the data directory is left empty and
    nothing outside it changed (the archives, the decoy ``secret.txt``), nothing in it resolves outside."""
    (tmp_path / "secret.txt").write_bytes(b"not for the data directory\n")
    before, data = snapshot(tmp_path), tmp_path / "data"
    with pytest.raises(FetchError) as raised:
        install_local(name, source, data)
    text = str(raised.value)
    assert "\n" not in text and re.match(message, text), text
    assert os.listdir(data) == [] and inside(data) == []  # nothing installed, no temporary folder left
    assert snapshot(tmp_path) == before  # nothing written (nor removed) outside the data directory


@pytest.mark.parametrize("name", list(registry.DATASETS))
@pytest.mark.parametrize("kind, fmt", VARIANTS)
def test_every_import_route_refuses_a_hostile_or_damaged_archive(name, kind, fmt, tmp_path, monkeypatch):
    members, damage, fault, problem = hostile(kind, set_files(name, monkeypatch), tmp_path)
    data = packed(members, fmt)
    archive = tmp_path / f"copy.{fmt}"
    archive.write_bytes(damage(data, fault or members[0].name if members else "") if damage else data)
    at = re.escape(str(archive))
    refused(name, archive, tmp_path, rf"^{name}: {at}" + (f": member {re.escape(fault)} {problem}" if fault
                                                         else problem))


# --- an archive inside the user's archive or folder: both are named, and the member --------------------------

NESTED_KINDS = {"symlink": "tar.bz2", "hardlink": "tar.bz2", "dotdot": "zip", "absolute": "zip", "duplicate": "zip",
                "huge": "zip", "deflate": "zip", "crc": "zip", "stream": "tar.bz2", "truncated": "zip"}


def nested(route: str, kind: str, tmp_path: Path, monkeypatch) -> tuple[str, Path, str]:
    """(set, what the user gives, the message's start up to the inner archive) for the three routes where
    the importer unpacks an archive found inside what it was given."""
    inner_files = {"yahoo": upstream_files("yahoo-ltr-set1"),
                   "ohsumed": {f"OHSUMED/QueryLevelNorm/Fold{k}/test.txt": f"{k} qid:{k} 1:0.5\n".encode() * 30
                               for k in range(1, 6)},
                   "movielens": {f"ml-100k/{f}": f"{f}\n".encode() * 30 for f in registry.MOVIELENS_100K_FILES}}[route]
    members, damage, fault, problem = hostile(kind, inner_files, tmp_path)
    data = packed(members, NESTED_KINDS[kind])
    inner = damage(data, fault or members[0].name) if damage else data
    tail = f": member {re.escape(fault)} {problem}" if fault else problem
    if route == "yahoo":  # the Webscope download holding ltrc_yahoo.tar.bz2
        publish(monkeypatch, "yahoo-ltr-set1", inner_files)
        outer = tmp_path / "dataset.tgz"
        outer.write_bytes(packed([Member("Webscope_C14/ltrc_yahoo.tar.bz2", inner),
                                  Member("Webscope_C14/readme.txt", b"terms\n")], "tar.gz"))
        return "yahoo-ltr-set1", outer, rf"^yahoo-ltr-set1: {re.escape(str(outer))} \(unpacked\): " \
                                        rf"Webscope_C14/ltrc_yahoo\.tar\.bz2{tail}"
    folder = tmp_path / "copy"
    folder.mkdir()
    download = {"ohsumed": "OHSUMED.zip", "movielens": "ml-100k.zip"}[route]
    (folder / download).write_bytes(inner)
    if route == "movielens":  # its pinned download hash made the hostile zip's, to reach the unpacking
        pin(monkeypatch, "movielens-100k", downloads=(Download("ml-100k.zip", known_hash=sha256(inner)),))
    name = {"ohsumed": "letor3-ohsumed", "movielens": "movielens-100k"}[route]
    return name, folder, rf"^{name}: {re.escape(str(folder))}: {re.escape(download)}{tail}"


@pytest.mark.parametrize("route", ["yahoo", "ohsumed", "movielens"])
@pytest.mark.parametrize("kind", list(NESTED_KINDS))
def test_an_archive_inside_the_users_names_both_and_the_member(route, kind, tmp_path, monkeypatch):
    name, source, message = nested(route, kind, tmp_path, monkeypatch)
    refused(name, source, tmp_path, message)


@pytest.mark.parametrize("kind", ["symlink", "deflate", "huge"])
def test_fetch_refuses_a_hostile_download_naming_its_url_and_member(kind, tmp_path, monkeypatch):
    files = {f"OHSUMED/QueryLevelNorm/Fold{k}/test.txt": f"{k} qid:{k} 1:0.5\n".encode() * 30 for k in range(1, 6)}
    members, damage, fault, problem = hostile(kind, files, tmp_path)
    data = packed(members, "zip")
    (tmp_path / "mirror" / "letor3-ohsumed").mkdir(parents=True)
    (tmp_path / "mirror" / "letor3-ohsumed" / "OHSUMED.zip").write_bytes(damage(data, fault) if damage else data)
    monkeypatch.setattr("ordrank.datasets.fetch.RETRIES", 0)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    with http_server(tmp_path / "mirror") as url, pytest.raises(FetchError) as raised:
        fetch("letor3-ohsumed", tmp_path / "data", base_url=url)
    assert re.match(rf"^letor3-ohsumed: could not unpack the download: {re.escape(url)}/letor3-ohsumed/OHSUMED\.zip: "
                    rf"member {re.escape(fault)} {problem}", str(raised.value)), raised.value
    assert os.listdir(tmp_path / "data") == []


def test_the_cli_ends_a_corrupt_zip_in_one_error_line(tmp_path, monkeypatch, capsys):
    """The reported case: a zip whose deflate stream is corrupt, imported as MSLR-WEB10K (a process of its own:
    no traceback on stderr) and, inside a folder, as LETOR 3.0 OHSUMED's OHSUMED.zip."""
    files = upstream_files("mslr-web10k")
    zipped = zip_bytes([Member(p, d) for p, d in files.items()])
    (tmp_path / "MSLR-WEB10K (copy).zip").write_bytes(corrupt_deflate(zipped, "Fold1/train.txt"))
    done = subprocess.run([sys.executable, "-m", "ordrank.data", "import", "mslr-web10k",
                           str(tmp_path / "MSLR-WEB10K (copy).zip"), "--data-dir", str(tmp_path / "data")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (f"error: mslr-web10k: {tmp_path / 'MSLR-WEB10K (copy).zip'}: member Fold1/train.txt cannot "
                           "be unpacked (zlib.error: Error -3 while decompressing data: invalid block type): the "
                           "archive is damaged or incomplete\n")
    name, folder, message = nested("ohsumed", "deflate", tmp_path, monkeypatch)
    assert main(["import", name, str(folder), "--data-dir", str(tmp_path / "data")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and re.match("error: " + message.removeprefix("^"), err), err
    assert os.listdir(tmp_path / "data") == []


# --- sizes: refused from the headers, before anything is read or written -----------------------------------

@pytest.mark.parametrize("fmt", ["zip", "tar.gz", "tar"])
def test_a_member_declaring_gigabytes_is_refused_before_anything_is_unpacked(fmt, tmp_path, monkeypatch):
    for cls in (zipfile.ZipFile, tarfile.TarFile):  # a tar is read in one pass: the first member is unpacked
        def extract(self, member, *args, _original=cls.extract, **kwargs):
            assert "huge" not in str(getattr(member, "name", member)), "unpacked the member declaring gigabytes"
            return _original(self, member, *args, **kwargs)
        monkeypatch.setattr(cls, "extract", extract)
    archive = tmp_path / f"bomb.{fmt}"
    archive.write_bytes(packed([Member("Fold1/train.txt", b"1 qid:1 1:1\n"), Member("huge.txt", size=0xFFFF_FFF0)],
                               fmt))
    with pytest.raises(archives.ArchiveError, match=r"^the archive: member huge\.txt declares 4,294,967,280 bytes, "
                                                    r"more than 1,100 times the archive's [\d,]+: refused unread"):
        archives.unpack(archive, tmp_path / "into")
    assert not (tmp_path / "into" / "huge.txt").exists()  # the zip: nothing at all (its member list comes first)
    assert sorted(p.name for p in (tmp_path / "into").rglob("*")) == ([] if fmt == "zip" else ["Fold1", "train.txt"])


def test_a_zip_member_claiming_an_impossible_ratio_or_a_stored_size_it_lacks(tmp_path):
    text = b"0 qid:1 1:0.5\n" * 2000  # 28 kB, deflated to a few hundred bytes
    padding = Member("padding.bin", os.urandom(1 << 16))  # a large archive: the archive-wide limit is not reached
    archive = tmp_path / "ratio.zip"
    archive.write_bytes(packed([padding, Member("Fold1/train.txt", text, size=100 * len(text))], "zip"))
    with pytest.raises(archives.ArchiveError, match=r"member Fold1/train\.txt declares 2,800,000 bytes from \d+ "
                                                    r"compressed, a ratio beyond 1,100"):
        archives.unpack(archive, tmp_path / "into")
    stored = io.BytesIO()
    with zipfile.ZipFile(stored, "w", zipfile.ZIP_STORED) as zipped:
        zipped.writestr("a.txt", text)
    data = bytearray(stored.getvalue())
    struct.pack_into("<I", data, header(data, b"PK\x01\x02", 46, "a.txt") + 24, len(text) + 1)
    archive.write_bytes(bytes(data))
    with pytest.raises(archives.ArchiveError, match=r"member a\.txt declares 28,001 bytes but stores 28,000"):
        archives.unpack(archive, tmp_path / "into2")


def test_members_larger_than_the_free_space_are_refused_before_they_are_written(tmp_path, monkeypatch):
    files = upstream_files("istella-s")
    archive = tmp_path / "istella-s-letor.tar.gz"
    archive.write_bytes(packed([Member(p, d) for p, d in files.items()], "tar.gz"))
    usage = archives.shutil.disk_usage(tmp_path)
    monkeypatch.setattr(archives.shutil, "disk_usage", lambda path: usage._replace(free=len(files["sample/train.txt"])))
    publish(monkeypatch, "istella-s", files)
    refused("istella-s", archive, tmp_path, rf"^istella-s: \S+: member sample/vali\.txt brings the bytes declared to "
                                            rf"[\d,]+, more than the {len(files['sample/train.txt']):,} bytes free")


# --- member names, any: refused unless strictly inside; never anything outside the data directory ------------

NAME_PARTS = st.one_of(st.sampled_from(["..", ".", "", "Fold1", "sample", "train.txt", "~", "\\..", "..."]),
                       st.text(st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)), min_size=1,
                               max_size=4))
NAMES = st.tuples(st.booleans(), st.lists(NAME_PARTS, min_size=1, max_size=5)).map(
    lambda t: ("/" if t[0] else "") + "/".join(t[1]))


@given(NAMES, st.booleans())
def test_a_name_is_accepted_only_when_it_lies_strictly_inside(name, is_dir):
    base = "/base/into"
    place = os.path.normpath(os.path.join(base, name))
    problem = name_problem(name, is_dir)
    if problem is None:
        assert place.startswith(base + "/") or (is_dir and place == base), name
    if name.startswith("/") or ".." in name.split("/"):
        assert problem is not None, name


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=NAMES, fmt=st.sampled_from(["tar.gz", "zip"]))
def test_any_member_name_is_refused_by_name_or_lands_inside_the_data_directory(name, fmt, tmp_path_factory,
                                                                               monkeypatch):
    tmp_path = tmp_path_factory.mktemp("names")
    files = upstream_files("istella-s")
    publish(monkeypatch, "istella-s", files)
    archive = tmp_path / f"istella.{fmt}"
    archive.write_bytes(packed([Member(p, d) for p, d in files.items()] + [Member(name, b"extra\n")], fmt))
    (tmp_path / "secret.txt").write_bytes(b"secret\n")
    before, data = snapshot(tmp_path), tmp_path / "data"
    try:
        path = install_local("istella-s", archive, data)
    except FetchError as error:
        assert str(error).startswith(f"istella-s: {archive}: member ") and "\n" not in str(error), error
        assert os.listdir(data) == []
    else:
        assert os.listdir(data) == ["istella-s"] and (path / "Fold1" / "train.txt").read_bytes() == files[
            "sample/train.txt"]
    assert inside(data) == [] and snapshot(tmp_path) == before
