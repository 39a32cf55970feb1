"""The ORCA archives: their pinned checksums, the check of an archive against them, reading members.

``python -m ordrank.data fetch orca`` packs each ``<B>bins/<archive>/matlab/`` folder of the ORCA
review's partitions into ``<B>bins/<archive>.tar.xz`` (byte for byte the same archive every time);
the loader (:class:`ordrank.datasets.partitions.BenchmarkData`) checks it here against the pinned
sha256 and reads its members. A leaf module: the loaders and the registry import it, it imports
neither.
"""
from __future__ import annotations

import hashlib
import lzma
import shlex
import tarfile
import warnings
from pathlib import Path

ORCA_ARCHIVES = {  # sha256 of each packed archive
    "10bins/abalone10": "791e64b0c965f1efdf0def58a54a95b2637f97f685aeb97c9a346910fa3e3928",
    "10bins/bank1-10": "119ac78ed7409b19eb0fafd0e9b799832c843b78870f0a494f78618e8207c236",
    "10bins/bank2-10": "320f7a59dd7394952cfc9a8fed5e93467e7609663aa0096902e2028d125785f8",
    "10bins/calhousing-10": "d022beb36ffe2eb2fea5615b733708d91df4a2cc39ceeb607510c5519cb4436c",
    "10bins/census1-10": "7e67071066a8b070487c0b2c46b9ddb8539f58bf0a4a87f2da986850df4d13a5",
    "10bins/census2-10": "c03d2853209091de635f0179f1638530deb4c0caa6a2cbbd8e1fbf18d4cd0900",
    "10bins/computer1-10": "bcf47c5af299d2eaa00f9bfe2133e695189c2a30618ec388992aede7531cc64b",
    "10bins/computer2-10": "14c77e6ee2a02e86fe3679a64ad52f443b4cf8db59970a383cfd8f5eafc4325d",
    "10bins/housing10": "4e17ed7a96f9f1838603c0a6f6b567c25b0f330f7593decd0b94769a9a9c92a1",
    "10bins/machine10": "e48b0e92d0940df2f073542068ac776eeba016942757f77d68473ba0cbf5e06d",
    "10bins/pyrim10": "c88ebfe94123a87f5213eee8efed301447c566e8a6de82a3341920cbf75d035f",
    "10bins/stock10": "c94d389572a8f986f12bee391efe71884dda6703c49c63e4871b5b91c5c50a3d",
    "5bins/abalone": "54f0434a32fdd9fa6526a3557ae11766dcafa758c338d05c7bcb51ff8daeaade",
    "5bins/bank1-5": "cb0efb0a268be97fa6d0c6ce5135f6658dbe489eb87a02258ed0c488866a6f2b",
    "5bins/bank2-5": "af9e72b4c9b2ed98c78be93713fa3ee33711059d2cd984e4bae8d4632349b17e",
    "5bins/calhousing-5": "e86d1d2565d11e77fff4b9ef085297fdab0de5b9d7060a81eb79dbd5b104eede",
    "5bins/census1-5": "72500e0b320914224cea203d33f57ea72c30f32603f29abcef23b9b3e9fd913b",
    "5bins/census2-5": "a5f1733d15a7d7b963fe63c84a512f458c30172b14594eace78969d0d4a1dd65",
    "5bins/computer1-5": "a2413f6eadaccbf2794b4095f30de0d0782689174c650a207c38768b3d238090",
    "5bins/computer2-5": "10a388c18407db2f5420d71f1680d1775f3589b7b596df51ce8fb31ba9515139",
    "5bins/housing": "64cada47f23e3592718552170bcb15b76850fb1c0f2d57f029ee4fbd1a2355c4",
    "5bins/machine": "e76693fa82ce6969ffe299ca07b1740850e20e6c3bcf08b7138c3de1a899a375",
    "5bins/pyrim": "2de4bb424133104b8e51f8e6c11cc541f552721f43d01ca420369e0603cb30c4",
    "5bins/stock": "e93f9c1240e22719e8f694c4228976e94fe8cd141c69d2d546503e173f7cf0cf",
}

ORCA_SOURCE = ("Get it with `python -m ordrank.data fetch orca` (downloads, verifies and packs it). "
               "The ORCA review data sets are in datasets-orreview.zip (discretized-regression part) at "
               "http://www.uco.es/grupos/ayrna/orreview; pack each <B>bins/<archive>/matlab/ folder into "
               "<B>bins/<archive>.tar.xz, keeping that path for the members")

_CHECKED: set[tuple] = set()  # archives checked in this process: (path, size, mtime in ns)


def check_archive(path: Path, key: str, root: Path) -> None:
    """Check the ORCA archive ``path`` (``key`` = ``<B>bins/<stem>``) against its pinned sha256, once
    per file version and process. A different archive that cannot be read through (truncated, empty,
    not xz) raises a ValueError naming the file and the command that fetches it again; one that reads
    (e.g. a test's own small archive) gets a warning that it is not the published data."""
    stat = path.stat()
    version = (str(path.absolute()), stat.st_size, stat.st_mtime_ns)
    if version in _CHECKED:
        return
    with open(path, "rb") as file:
        actual = hashlib.file_digest(file, "sha256").hexdigest()
    pinned = ORCA_ARCHIVES.get(key)
    if actual != pinned:
        again = f"python -m ordrank.data fetch orca --data-dir {shlex.quote(str(root.absolute()))}"
        try:
            with tarfile.open(path, "r:xz") as tar:
                for member in tar:
                    if member.isfile():
                        tar.extractfile(member).read()
        except (tarfile.TarError, EOFError, lzma.LZMAError, OSError) as error:
            problem = "is empty" if stat.st_size == 0 else \
                f"cannot be read ({type(error).__name__}: {error})"
            raise ValueError(f"ORCA archive {path} {problem}: it is truncated or damaged (sha256 "
                             f"{actual[:16]}…, pinned {str(pinned)[:16]}…); fetch it again with: {again}") from None
        warnings.warn(f"{path} is not the published ORCA archive (sha256 {actual[:16]}…, pinned "
                      f"{str(pinned)[:16]}…): results will not match the published data; to get it: "
                      f"{again}", UserWarning, stacklevel=3)
    _CHECKED.add(version)


def read_members(archive: Path, names: list[str]) -> dict[str, bytes]:
    """Contents of members `names` of the xz tar `archive`, reading the stream only up to the last one."""
    wanted, found = set(names), {}
    with tarfile.open(archive, "r:xz") as tar:
        for member in tar:
            if member.name in wanted:
                found[member.name] = tar.extractfile(member).read()
                if len(found) == len(wanted):
                    break
    missing = [name for name in names if name not in found]
    if missing:
        raise FileNotFoundError(f"{archive} has no member {missing[0]}"
                                f"{f' (nor {len(missing) - 1} others)' if len(missing) > 1 else ''}: "
                                f"the archive is incomplete or not packed as expected. {ORCA_SOURCE}.")
    return found
