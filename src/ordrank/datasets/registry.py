"""The registry of the real data sets: where each comes from, how it is installed, what is pinned.

Each set (:data:`DATASETS`) names its folder under the data directory, its downloads (upstream
URLs, pooch hashes), the installer that turns the downloaded files into the layout the loaders read
(``ordrank.datasets.ratings``, ``ordrank.datasets.partitions``) and the :class:`Check` s the
installed files must pass (their pinned checksums). Downloading, checking and moving into place is
:mod:`ordrank.datasets.fetch`, which also re-exports every name defined here.
"""
from __future__ import annotations

import io
import lzma
import os
import tarfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ordrank.datasets.archives import member_names, unpack
from ordrank.datasets.orca_archives import ORCA_ARCHIVES
from ordrank.datasets.partitions import CHU_FOLDERS, ONE_BASED
from ordrank.datasets.ratings import EACHMOVIE_SOURCE
from ordrank.datasets.web_sets import WEB_LAYOUTS, WebLayout


class FetchError(RuntimeError):
    """A download failed, did not match its pinned checksum, or could not be unpacked."""


@dataclass(frozen=True)
class Download:
    """One file to download: ``path`` (upstream layout, also its place in the download folder), its
    upstream ``url`` (default: the set's ``upstream`` + ``path``) and pooch's ``known_hash``
    (``"<sha256>"`` or ``"md5:<md5>"``; None when it is checked after unpacking)."""

    path: str
    url: str = ""
    known_hash: str | None = None


@dataclass(frozen=True)
class Check:
    """Installed ``files`` (relative to the set's folder) and their pinned ``sha256`` (see
    :mod:`ordrank.datasets.fetch`; None: the files must only exist). ``source`` is the download
    path (file or folder) they are made from, named in error messages."""

    files: tuple[str, ...]
    sha256: str | None
    source: str = ""


@dataclass(frozen=True)
class DataSet:
    """A data set: its folder under the data directory, where it comes from, what is checked."""

    name: str
    folder: str
    title: str
    origin: str
    size: str
    checks: tuple[Check, ...]
    downloads: tuple[Download, ...] = ()
    install: Callable[[Path, Path], None] | None = None
    upstream: str = ""
    manual: str = ""
    aliases: tuple[str, ...] = ()
    """Other folders the loaders also read (checked when ``folder`` is absent; never fetched into)."""
    web: WebLayout | None = None
    """A set downloaded by hand and installed with ``import`` from its official archive (layout and
    published sizes checked, no pinned checksums: :mod:`ordrank.datasets.web_sets`); None otherwise."""

    def url(self, path: str, base_url: str | None = None) -> str:
        """Where the download (or download folder) ``path`` comes from."""
        if base_url:
            return f"{base_url.rstrip('/')}/{self.folder}/{path}"
        explicit = {d.path: d.url for d in self.downloads if d.url}
        return explicit.get(path) or self.upstream + path


# --- installers: (download folder, new folder) -> new folder holds the set's layout --------------------

def _as_downloaded(downloaded: Path, new: Path) -> None:
    """The downloaded files are the layout."""
    os.replace(downloaded, new)


def _unzip(top: str) -> Callable[[Path, Path], None]:
    """Unpack each downloaded zip (checked: :func:`ordrank.datasets.archives.unpack`); the zip's folder
    ``top`` becomes the set's folder."""
    def install(downloaded: Path, new: Path) -> None:
        unpacked = downloaded.parent / "download-unpacked"
        for archive in sorted(downloaded.glob("*.zip")):
            unpack(archive, unpacked)
        if not (unpacked / top).is_dir():
            raise FetchError(f"the zip archive has no folder {top}/")
        os.replace(unpacked / top, new)
    return install


TAR_MTIME = 946684800
"""2000-01-01T00:00:00Z: the modification time of every member of a packed ORCA archive."""


def pack_tar_xz(folder: Path, names: Iterable[str], archive: Path) -> None:
    """Pack the files ``folder/<name>`` into ``archive`` as members ``<name>``, deterministically.

    POSIX ustar, members sorted by name, mode 0644, owner 0:0 without names, mtime
    :data:`TAR_MTIME`; xz preset ``9 | PRESET_EXTREME`` (``xz -9e``). This reproduces the ORCA
    archives byte for byte (their pinned sha256) from the original partition files.
    """
    archive.parent.mkdir(parents=True, exist_ok=True)
    with lzma.open(archive, "wb", preset=9 | lzma.PRESET_EXTREME) as xz, \
            tarfile.open(fileobj=xz, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name in sorted(names):
            data = (folder / name).read_bytes()
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), TAR_MTIME, 0o644
            tar.addfile(info, io.BytesIO(data))


def _pack_orca(downloaded: Path, new: Path) -> None:
    """``<B>bins/<stem>/matlab/*`` -> ``<B>bins/<stem>.tar.xz`` holding them under the same names."""
    for stem_dir in sorted(downloaded.glob("*bins/*")):
        names = [p.relative_to(downloaded).as_posix() for p in stem_dir.rglob("*") if p.is_file()]
        pack_tar_xz(downloaded, names, new / stem_dir.parent.name / f"{stem_dir.name}.tar.xz")


# --- the registry --------------------------------------------------------------------------------------

GROUPLENS = "https://files.grouplens.org/datasets/movielens/"
NPHORM = ("https://raw.githubusercontent.com/HunterJiang97/NPHORM/4f083dc12715e7f7be7f9e90c6c217af943c1948/"
          "Run/DataSets/4_2_Discretized_Regression/")
PROBIT = "https://raw.githubusercontent.com/bb515/probit/900d069c82df98fb8d8074774b2d9dd8c14b8ad8/data/"

MOVIELENS_100K_FILES = {  # sha256 of the unpacked files (GroupLens ml-100k, as cross-checked copies)
    "README": "4883b8cf340ed0059971b33f56ad3adc88a40792108ebca3d24aafc4c82e8b52",
    "u.data": "06416e597f82b7342361e41163890c81036900f418ad91315590814211dca490",
    "u.genre": "9757e0d3e6b298159a80dd48eaf938114690e911e39af97a76949ef1663610bb",
    "u.info": "5b0a40b2e47a729ee6203063f6dcf8790c2e63f5a18663e6ee318a72c5f3c27b",
    "u.item": "553841ebc7de3a0fd0d6b62a204ea30c1e651aacfb2814c7a6584ac52f2c5701",
    "u.occupation": "cd5fbec9afe345d993a62fc7817df1a4a9079c4feb267b3118763b8fd942137d",
    "u.user": "f120e114da2e8cf314fd28f99417c94ae9ddf1cb6db8ce0e4b5995d40e90e62c",
}
CHU_LISTINGS = {  # sha256 of the sha256sum listing of each folder's 40 partition files
    "abalone/10bins": "4571cae2d30d0573107749db27a9d99acb8a91846e33eb698df51c2e2951439d",
    "abalone/5bins": "20ddaca3e00404a64a123ba09ba39e3d28e40c9ac0dffbfca4d106617237c60d",
    "bostonhousing/10bins": "7c48655bbf928a59746dbc53c51d1df328dd31bdbd4a6464d2b6951faa011f0e",
    "bostonhousing/5bins": "b325dd3d4ec16ee3d93cc2902f0fc84ebffbaf9421533c04dd03c4375e888a14",
    "machinecpu/10bins": "6e86ac1ffc5ccc5e4d8b71f87b511b650827cc229a83f28f27a4c29f1cd1763b",
    "machinecpu/5bins": "61ae9845b8322e8b601fcbd053f9689c1558df9bd93b95ae43ac582f9912525d",
    "pyrimidines/10bins": "78b892f123fa6b0dacf5b08d94edac9c943d3cf6bfd957a87b9e91d65f1e9894",
    "pyrimidines/5bins": "892ef08a1577b2ee30137d9784f0be143de919bfdc5388322bd5093780e7b18a",
    "stocksdomain/10bins": "fd70691106ea58151d16d6709b322110b8e744a3d58a33fa696cef8ccfbe202a",
    "stocksdomain/5bins": "43101015485a63d1fb60a43907b1ec5dfbeaa4126938cfcb1944ff3812b6bf70",
}
CHU_EXTRAS = {  # files copied with the partitions, sha256
    "README.txt": "3c296d456f1a3261f11c4b03da9aa49cf93d19170f70aabea881953685e44884",
    "machinecpu/machine.domain": "75f8d605144cecc94e9ec997bcec8327d8d403399d1ab2d6be50abfaa53c9a44",
    "pyrimidines/pyrim.domain": "7279926784be72ec3775074359968811c77d45d70ed5413364a28042089bfad8",
    "stocksdomain/stock.domain": "9104c3a46c486eac6ee79f51e3ccfb0f2afcff47e8c2009e8cf3c1cb167746de",
}
ABALONE_FILES = {  # file: (upstream URL, sha256)
    "abalone.data": ("https://raw.githubusercontent.com/Mahi-Mai/UCI-Abalone-Data-Project/"
                     "ded43f63c5116d7c73307ea1f03100e56414bfe2/abalone.data",
                     "de37cdcdcaaa50c309d514f248f7c2302a5f1f88c168905eba23fe2fbc78449f"),
    "abalone.names": ("https://raw.githubusercontent.com/msalibian/STAT547O/"
                      "e80ca158a5cc92b951c7f0eb90a71b7f459dc0ae/abalone.names",
                      "542eee5a2a0ee72db563de010dc3b5055b03c5dc624049ae1f2208fc66a14aac"),
}
MOVIELENS_ZIPS = {  # GroupLens' published md5 of each zip; the folder it unpacks to
    "100k": ("md5:0e33842e24a9c977be4e0107933c0723", "ml-100k"),
    "1m": ("md5:c4d9eecfca2ab87c1945afe126590906", "ml-1m"),
    "10m": ("md5:ce571fd55effeba0271552578f2648bd", "ml-10M100K"),
}


def _orca_members(archive: str) -> list[str]:
    """Partition files of an ORCA archive ``<B>bins/<stem>``, upstream paths."""
    stem = archive.split("/")[1]
    first = int(stem.split("-")[0] in ONE_BASED)
    return [f"{archive}/matlab/{kind}_{stem}.{k}" for kind in ("train", "test") for k in range(first, first + 20)]


def _chu_files(folder: str) -> list[str]:
    """Partition files of one Chu folder ``<dataset folder>/<B>bins``."""
    dataset, bins = folder.split("/")
    stem, b = {v: k for k, v in CHU_FOLDERS.items()}[dataset], bins.removesuffix("bins")
    return [f"{folder}/{stem}_{kind}_{b}.{k}" for kind in ("train", "test") for k in range(1, 21)]


def _movielens(size: str, name: str, folder: str, checks: tuple[Check, ...], about: str,
               aliases: tuple[str, ...] = ()) -> DataSet:
    md5, top = MOVIELENS_ZIPS[size]
    return DataSet(name, folder, f"MovieLens {size.upper()}", f"GroupLens, {GROUPLENS}ml-{size}.zip", about,
                   checks, (Download(f"ml-{size}.zip", known_hash=md5),), _unzip(top), GROUPLENS,
                   aliases=aliases)


DATASETS: dict[str, DataSet] = {ds.name: ds for ds in [
    _movielens("100k", "movielens-100k", "movielens-100k",
               tuple(Check((f,), h, "ml-100k.zip") for f, h in MOVIELENS_100K_FILES.items()),
               "2.2 MB (4.9 MB zip)", aliases=("ml-100k",)),
    _movielens("1m", "movielens-1m", "ml-1m", (Check(("ratings.dat",), None, "ml-1m.zip"),),
               "about 25 MB (5.9 MB zip)"),
    _movielens("10m", "movielens-10m", "ml-10M100K", (Check(("ratings.dat",), None, "ml-10m.zip"),),
               "about 270 MB (63 MB zip)"),
    DataSet("eachmovie", "eachmovie", "EachMovie", "Compaq SRC 1997; controlled access only", "2.8M ratings",
            (Check(("Vote.txt",), None),),
            manual=f"no public download: {EACHMOVIE_SOURCE}. Put Vote.txt at <data dir>/eachmovie/Vote.txt"),
    DataSet("orca", "orca-discretized-regression", "ORCA discretized-regression partitions (5 and 10 bins)",
            "ORCA review data (Gutierrez et al. 2016) as in github.com/HunterJiang97/NPHORM@4f083dc",
            "7.4 MB packed (480 MB of text downloaded)",
            tuple(Check((f"{a}.tar.xz",), h, a) for a, h in ORCA_ARCHIVES.items()),
            tuple(Download(m) for a in ORCA_ARCHIVES for m in _orca_members(a)), _pack_orca, NPHORM),
    DataSet("chu", "chu-ghahramani-2005-ordinal", "Wei Chu's ordinal regression partitions (5 and 10 bins)",
            "Chu & Ghahramani 2005, as in github.com/bb515/probit@900d069", "20 MB",
            (*(Check((f,), h, f) for f, h in CHU_EXTRAS.items()),
             *(Check(tuple(_chu_files(d)), h, d) for d, h in CHU_LISTINGS.items())),
            (*(Download(f, known_hash=h) for f, h in CHU_EXTRAS.items()),
             *(Download(f) for d in CHU_LISTINGS for f in _chu_files(d))), _as_downloaded, PROBIT),
    DataSet("uci-abalone", "uci-abalone", "UCI Abalone (raw)", "UCI Machine Learning Repository (Nash et al. "
            "1994), GitHub copies", "0.2 MB", tuple(Check((f,), h, f) for f, (_, h) in ABALONE_FILES.items()),
            tuple(Download(f, u, h) for f, (u, h) in ABALONE_FILES.items()), _as_downloaded),
]}
"""Every real data set the project reads, by name."""

# --- LETOR 3.0 OHSUMED (QueryLevelNorm): the five test files of LETOR's folds as subsets S1..S5 ----------
# No hash of OHSUMED.zip could be verified offline: the five installed files are pinned instead (their
# sha256 as in a public copy of the LETOR folders). LETOR 4.0 (MQ2007/MQ2008: .rar archives behind a license
# page, no verifiable hash) is not registered; conf/dataset/letor.yaml reads any unpacked LETOR folder.

LETOR3 = "http://research.microsoft.com/en-us/um/beijing/projects/letor/LETOR3.0/"
OHSUMED_SUBSETS = {  # installed file: (the fold whose test.txt it is in OHSUMED.zip, its sha256)
    "QueryLevelNorm/S1.txt": ("Fold2", "77db6790a7023ed6d9bd2b9b2fa8528e1d82aa7e896863d3ed844f635870fbe2"),
    "QueryLevelNorm/S2.txt": ("Fold3", "935539d33380570cdee765e38f8c2796cb4c04d01a50e50374e8bc7d45872571"),
    "QueryLevelNorm/S3.txt": ("Fold4", "1d1ff784d9fdc4cd491a0d70fdd4dfb1adada943a0eb2e3954d74187158160da"),
    "QueryLevelNorm/S4.txt": ("Fold5", "49975c7319672e4fba82d00c69911b8514752bb2610077a5f432d7efc2fa5fc0"),
    "QueryLevelNorm/S5.txt": ("Fold1", "526f9158b85fb9b6446f9c87e1ccc428f7e54d639800e108c091cb70706a88e6"),
}


def _ohsumed_subsets(downloaded: Path, new: Path) -> None:
    """``OHSUMED.zip``'s ``<top>/QueryLevelNorm/Fold<k>/test.txt`` -> ``QueryLevelNorm/S<i>.txt``.

    LETOR's five test files are five disjoint query sets; every fold's train and vali files are
    made of them (Fold k trains on three, validates on one), so only the test files are kept (every
    member checked: :func:`ordrank.datasets.archives.unpack`).
    """
    members = {name.split("QueryLevelNorm/", 1)[1]: name for name in member_names(downloaded / "OHSUMED.zip")
               if "QueryLevelNorm/Fold" in name and name.endswith("/test.txt")}
    for fold, _ in OHSUMED_SUBSETS.values():
        if f"{fold}/test.txt" not in members:
            raise FetchError(f"the zip archive has no QueryLevelNorm/{fold}/test.txt")
    unpacked = downloaded.parent / "download-unpacked"
    unpack(downloaded / "OHSUMED.zip", unpacked, [members[f"{fold}/test.txt"] for fold, _ in OHSUMED_SUBSETS.values()])
    for target, (fold, _) in OHSUMED_SUBSETS.items():
        (new / target).parent.mkdir(parents=True, exist_ok=True)
        os.replace(unpacked / members[f"{fold}/test.txt"], new / target)


DATASETS["letor3-ohsumed"] = DataSet(
    "letor3-ohsumed", "letor3-ohsumed", "LETOR 3.0 OHSUMED (QueryLevelNorm), folds as subsets S1..S5",
    f"Microsoft Research LETOR 3.0 (Qin et al. 2010), {LETOR3}OHSUMED.zip", "8.0 MB (zip size not checked)",
    tuple(Check((f,), h, "OHSUMED.zip") for f, (_, h) in OHSUMED_SUBSETS.items()),
    (Download("OHSUMED.zip"),), _ohsumed_subsets, LETOR3)


# --- web-scale learning-to-rank sets, downloaded by hand (ordrank.datasets.web_sets) ---------------------
# Installed as Fold<k>/{train,vali,test}.txt; every file must exist, none has a pinned checksum.

DATASETS.update({name: DataSet(name, name, web.title, web.origin, web.size,
                               tuple(Check((f,), None, web.archive) for f in web.installed),
                               manual=web.manual(name), web=web) for name, web in WEB_LAYOUTS.items()})


def get(name: str) -> DataSet:
    """The data set called ``name``; a ValueError listing the known names otherwise."""
    if name not in DATASETS:
        raise ValueError(f"unknown data set {name!r}; known: {', '.join(DATASETS)}")
    return DATASETS[name]
