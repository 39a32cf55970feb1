"""Any folder or archive of train/test partitions: ``dataset=partitions dataset.path=<folder>``.

Nothing is registered by hand: :func:`find_partitions` looks through the folder (all its subfolders) or
the archive (tar of any compression, or zip) for the partition files of one of two layouts,

- ORCA's ``matlab/`` layout: ``train_<stem>.<i>`` / ``test_<stem>.<i>``;
- Wei Chu's layout: ``<stem>_train_<B>.<i>`` / ``<stem>_test_<B>.<i>``, B = the number of ranks,

where ``<stem>`` is any name (``auto.data``, ``diabetes.data.ord``; it need not be the folder's) and
``<i>`` numbers the partitions 0..n-1 or 1..n, any n, without gaps. Other files are ignored. Each file
is a table of whitespace-separated numbers whose last column is the rank 1..k, k ≥ 2: k = B in Chu's
layout, else the largest label of the first partition (train and test; ``bins``, when given, must agree).
Partitions are numbered 0..n-1 here, whatever the files' numbering.

Checked, each error naming the file (and the archive member) and line: every train file has its test
file and back; numbers, one row width per file, labels integers in 1..k; train and test with the same
number of columns. Input columns that are constant on a partition's training part are dropped from
its training and test part, as ORCA does before standardising (``deleteConstantAtributes``, then
z-scores fitted on the training part): a constant column carries no information for the learner and,
once standardised, would only move the test points by their deviation from that constant. The
standardising itself is the experiment's ``features`` step (``features=standardize``, fitted on the
training part), not done here.
"""
from __future__ import annotations

import os
import re
import tarfile
import zipfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import numpy as np

from ordrank.datasets.partition_table import drop_constant, parse_table
from ordrank.datasets.data_dir import resolve_data_dir

CHU_NAME = re.compile(r"(?P<stem>.+)_(?P<kind>train|test)_(?P<bins>\d+)\.(?P<k>\d+)")
ORCA_NAME = re.compile(r"(?P<kind>train|test)_(?P<stem>.+)\.(?P<k>\d+)")


@dataclass(frozen=True)
class Partitions:
    """The partition files found: ``files[i] = (train, test)`` names inside ``source``, i = 0..n-1."""

    source: Path
    archive: bool
    layout: str  # "orca" or "chu"
    folder: str
    stem: str
    bins: int | None
    files: tuple

    def where(self, name: str) -> str:
        return f"{self.source} member {name}" if self.archive else str(self.source / name)

    def read(self, names) -> dict[str, bytes]:
        """The contents of ``names`` (an archive is read once, up to the last of them)."""
        if not self.archive:
            return {name: (self.source / name).read_bytes() for name in names}
        if zipfile.is_zipfile(self.source):
            with zipfile.ZipFile(self.source) as archive:
                return {name: archive.read(name) for name in names}
        wanted, found = set(names), {}
        with tarfile.open(self.source, "r:*") as tar:
            for member in tar:
                if member.name in wanted:
                    found[member.name] = tar.extractfile(member).read()
                    if len(found) == len(wanted):
                        break
        missing = wanted - set(found)
        if missing:
            raise FileNotFoundError(f"{self.source} has no member {sorted(missing)[0]}")
        return found


def _names(source: Path) -> tuple[bool, list[str]]:
    """Whether ``source`` is an archive, and the file names in it (posix, relative to it)."""
    if source.is_dir():
        return False, sorted(p.relative_to(source).as_posix() for p in source.rglob("*") if p.is_file())
    if zipfile.is_zipfile(source):
        with zipfile.ZipFile(source) as archive:
            return True, sorted(info.filename for info in archive.infolist() if not info.is_dir())
    try:
        with tarfile.open(source, "r:*") as tar:
            return True, sorted(member.name for member in tar if member.isfile())
    except (tarfile.TarError, EOFError, OSError) as error:
        raise ValueError(f"{source} is neither a folder nor a readable tar or zip archive "
                         f"({type(error).__name__}: {error})") from None


def find_partitions(source, bins: int | None = None, stem: str | None = None) -> Partitions:
    """The partitions in folder or archive ``source`` (see the module docstring). ``bins`` and ``stem``
    choose among several sets (e.g. Chu's ``5bins/`` and ``10bins/`` under one folder)."""
    source = Path(source)
    archive, names = _names(source)
    groups = defaultdict(lambda: {"train": {}, "test": {}})
    for name in names:
        path = PurePosixPath(name)
        match = CHU_NAME.fullmatch(path.name)
        layout = "chu" if match else "orca"
        match = match or ORCA_NAME.fullmatch(path.name)
        if match:
            found_bins = int(match["bins"]) if layout == "chu" else None
            groups[(str(path.parent), layout, match["stem"], found_bins)][match["kind"]][int(match["k"])] = name
    if not groups:
        raise FileNotFoundError(f"{source}: no partition files found; looked for train_<name>.<i> and "
                                f"test_<name>.<i> (ORCA's matlab/ layout) and <name>_train_<B>.<i> and "
                                f"<name>_test_<B>.<i> (Wei Chu's layout) in it and its subfolders")
    chosen = [key for key in groups if (stem is None or key[2] == stem)
              and (bins is None or key[3] in (None, bins))]
    if len(chosen) != 1:
        listed = "; ".join(f"{folder or '.'}: {layout} layout, stem {name!r}" + (f", {b} bins" if b else "")
                           for folder, layout, name, b in sorted(groups, key=lambda g: (g[3] or 0, g[:3])))
        if chosen:
            raise ValueError(f"{source} holds several partition sets ({listed}); choose one with "
                             f"dataset.bins and/or dataset.stem")
        raise ValueError(f"{source}: no partition set matches dataset.stem={stem!r}, dataset.bins={bins!r}; "
                         f"found: {listed}")
    key = chosen[0]
    files = groups[key]
    where = (lambda name: f"{source} member {name}") if archive else (lambda name: str(source / name))
    for kind, other in (("train", "test"), ("test", "train")):
        for k, name in sorted(files[kind].items()):
            if k not in files[other]:
                pattern = name.rsplit("/", 1)[-1]
                expected = (pattern.replace(f"_{kind}_", f"_{other}_") if key[1] == "chu"
                            else other + pattern[len(kind):])
                raise FileNotFoundError(f"missing {other} file for the {kind} file {where(name)}: "
                                        f"expected {expected} beside it")
    numbers = sorted(files["train"])
    if numbers[0] not in (0, 1) or numbers != list(range(numbers[0], numbers[0] + len(numbers))):
        raise ValueError(f"{source}: partitions numbered {numbers[:5]}{'…' if len(numbers) > 5 else ''} "
                         f"({where(files['train'][numbers[0]])} …); they must run 0..n-1 or 1..n without gaps")
    return Partitions(source, archive, key[1], key[0], key[2], key[3],
                      tuple((files["train"][k], files["test"][k]) for k in numbers))


def read_partition(found: Partitions, texts: dict, i: int, bins: int | None):
    """Partition ``i`` as ``(X_train, y_train, X_test, y_test)``, checked, constant columns dropped."""
    train, test = found.files[i]
    X_train, y_train = parse_table(texts.pop(train), found.where(train), bins)
    X_test, y_test = parse_table(texts.pop(test), found.where(test), bins)
    if X_train.shape[1] != X_test.shape[1]:
        raise ValueError(f"{found.where(test)} has {X_test.shape[1] + 1} columns but {found.where(train)} "
                         f"has {X_train.shape[1] + 1} (inputs and label): train and test must have the same columns")
    X_train, X_test = drop_constant(X_train, X_test, found.where(train))
    return X_train, y_train, X_test, y_test


@dataclass
class PartitionFolder:
    """The train/test partitions of a folder or archive (module docstring), for the ``partitions`` protocol.

    Parameters
    ----------
    path : path
        The folder or archive; a relative path is taken under the data directory (or, when it is not
        there, under the current directory).
    data_dir : path, optional
        Data directory (see :func:`~ordrank.datasets.data_dir.resolve_data_dir`).
    bins : int, optional
        Number of ranks k ≥ 2 (labels 1..k). None: Chu's B from the file names, else the largest label of
        the first partition. In Chu's layout it chooses between ``<B>bins`` sets; in ORCA's it must equal
        that largest label (an error otherwise, so that an experiment's ``dataset.bins: 10`` cannot
        silently claim 10 ranks for 3-rank files).
    stem : str, optional
        The files' ``<stem>``, when the folder holds several sets.
    """

    path: str | os.PathLike
    data_dir: str | os.PathLike | None = None
    bins: int | None = None
    stem: str | None = None

    def __post_init__(self):
        if self.path in (None, ""):
            raise ValueError("dataset.path must name a folder or archive of partitions, e.g. dataset.path=/data/auto")
        if self.bins is not None and (type(self.bins) is not int or self.bins < 2):
            raise ValueError(f"dataset.bins must be null or an integer >= 2 (the number of ranks), got {self.bins!r}")
        path = Path(self.path).expanduser()
        candidates = [path] if path.is_absolute() else [resolve_data_dir(self.data_dir) / path, path]
        self.source = next((p for p in candidates if p.exists()), None)
        if self.source is None:
            raise FileNotFoundError(f"partition folder or archive not found: expected it at "
                                    f"{' or '.join(map(str, candidates))} (dataset.path; a relative path is "
                                    f"taken under the data directory `data_dir` / ORDRANK_DATA, then the current one)")
        self.found = find_partitions(self.source, self.bins, self.stem)
        self._ranks = self.found.bins or self.bins
        if self.found.bins is None:  # ORCA's layout: the first partition's labels say how many ranks
            texts = self.found.read(self.found.files[0])
            labels = [parse_table(texts[name], self.found.where(name), self.bins)[1] for name in self.found.files[0]]
            top, where = int(max(y.max(initial=1) for y in labels)), self.found.where(self.found.files[0][0])
            if top < 2:
                raise ValueError(f"{where}: every label of the first partition is 1; ordinal labels must take "
                                 "at least 2 ranks")
            if self.bins is not None and top != self.bins:  # e.g. an experiment's dataset.bins=10 on 3 ranks
                raise ValueError(f"dataset.bins={self.bins}, but the labels of the first partition ({where} and "
                                 f"its test file) run up to {top}: set dataset.bins=null to take the number "
                                 f"of ranks from the data, or to {top}")
            self._ranks = top

    @property
    def n_splits(self) -> int:
        return len(self.found.files)

    @property
    def n_ranks(self) -> int:
        """Number of ranks k; labels are 1..k."""
        return self._ranks

    def split(self, i: int):
        """Partition ``i`` (0-based) as ``(X_train, y_train, X_test, y_test)``: float64 inputs, int64 ranks."""
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.n_splits:
            raise IndexError(f"partition index must be an integer in 0..{self.n_splits - 1}, got {i!r}")
        return next(self._partitions([int(i)]))

    def splits(self):
        """Every partition in order (one pass over an archive)."""
        yield from self._partitions(range(self.n_splits))

    def _partitions(self, indices):
        texts = self.found.read([name for i in indices for name in self.found.files[i]])
        for i in indices:
            try:
                yield read_partition(self.found, texts, i, self._ranks)
            except ValueError as error:
                if self.found.bins is None and "is not an integer rank" in str(error):
                    raise ValueError(f"{error} (k = {self._ranks}, the largest label of the first partition: "
                                     "every partition must use the same ranks)") from None
                raise
