"""LETOR ranking data: the fold layouts of LETOR 3.0 and 4.0 (one file: :mod:`ordrank.datasets.letor_file`).

Folds (:func:`letor_folds`), for whatever folder ``path`` is (or its ``QueryLevelNorm/`` subfolder):

- LETOR 4.0 (MQ2007, MQ2008, MSLR-WEB10K/30K, and LETOR 3.0 OHSUMED as distributed):
  ``Fold<k>/{train,vali,test}.txt``;
- LETOR 3.0 (the .gov sets): ``Fold<k>/{trainingset,validationset,testset}.txt``;
- subsets ``S1.txt .. Sn.txt`` (n >= 3; the project's ``letor3-ohsumed/QueryLevelNorm/``) with the
  standard rotation: fold i trains on S_i .. S_{i+n-3}, validates on S_{i+n-2} and tests on S_{i+n-1}
  (indices mod n; for n = 5: Fold1 = S1 S2 S3 / S4 / S5, Fold2 = S2 S3 S4 / S5 / S1, ...).

Every fold ``Fold<k>`` found is used. A query id may not be in two parts of a fold. All arrays
returned are read-only (copy to modify).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ordrank.datasets.letor_file import LetorFormatError, QuerySet, check_arguments, concat, load_letor
from ordrank.datasets.data_dir import resolve_data_dir

PARTS = ("train", "vali", "test")
LAYOUTS = {"LETOR 4.0": ("train.txt", "vali.txt", "test.txt"),
           "LETOR 3.0": ("trainingset.txt", "validationset.txt", "testset.txt")}
"""File names of a fold's three parts in each ``Fold<k>/`` layout."""
LETOR_VERSIONS = ("3.0", "4.0")
LETOR4_SETS = re.compile(r"MQ200[78]\b", re.IGNORECASE)  # LETOR 4.0's supervised sets: MQ2007, MQ2008
SUBSET = re.compile(r"S(\d+)\.txt")
FOLD = re.compile(r"Fold(\d+)")


@dataclass(frozen=True)
class Fold:
    """A fold: its ``name`` (``Fold1``...), its three parts, and the ``files`` each part was read from."""

    name: str
    train: QuerySet
    vali: QuerySet
    test: QuerySet
    files: dict


def letor_version(folder) -> str:
    """The LETOR release whose evaluation script fits ``folder``: "4.0" if it or a folder above it is
    named MQ2007 or MQ2008 (e.g. ``MQ2008``, ``MQ2008-list``), else "3.0"."""
    return "4.0" if any(LETOR4_SETS.match(part) for part in Path(folder).parts) else "3.0"


def find_layout(path) -> tuple[str, list[tuple[str, dict[str, list[Path]]]]]:
    """The layout of folder ``path`` (or of its ``QueryLevelNorm/``): its name and, per fold, the files
    of each part. Raises FileNotFoundError for a missing folder or fold file, LetorFormatError for an
    unknown layout (listing what was looked for)."""
    path = Path(path).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(f"LETOR folder {path} not found")
    for root in (path, path / "QueryLevelNorm"):
        folds = sorted((int(m.group(1)), d) for d in root.glob("Fold*")
                       if d.is_dir() and (m := FOLD.fullmatch(d.name)))
        for layout, names in LAYOUTS.items():
            if folds and any((d / names[2]).is_file() for _, d in folds):
                if [k for k, _ in folds] != list(range(1, len(folds) + 1)):
                    raise LetorFormatError(f"{root}: folds {', '.join(d.name for _, d in folds)}; they must be "
                                           "numbered Fold1 .. Foldn without gaps")
                for _, d in folds:
                    for name in names:
                        if not (d / name).is_file():
                            raise FileNotFoundError(f"{d / name} not found ({layout} layout: every Fold<k>/ "
                                                    f"holds {', '.join(names)})")
                return layout, [(d.name, {p: [d / n] for p, n in zip(PARTS, names)}) for _, d in folds]
        subsets = sorted((int(m.group(1)), f) for f in root.glob("S*.txt") if (m := SUBSET.fullmatch(f.name)))
        if subsets:
            numbers = [k for k, _ in subsets]
            if numbers != list(range(1, len(numbers) + 1)) or len(numbers) < 3:
                raise LetorFormatError(f"{root}: subsets {', '.join(f.name for _, f in subsets)}; the subsets "
                                       "layout needs S1.txt .. Sn.txt, n >= 3, numbered without gaps")
            files, n = [f for _, f in subsets], len(subsets)
            rotation = [[files[(i + j) % n] for j in range(n)] for i in range(n)]
            return f"{n} subsets", [(f"Fold{i + 1}", {"train": r[:n - 2], "vali": [r[n - 2]], "test": [r[n - 1]]})
                                    for i, r in enumerate(rotation)]
    raise LetorFormatError(
        f"{path}: unknown LETOR layout; looked in it and in its QueryLevelNorm/ for Fold<k>/{{train,vali,test}}.txt "
        "(LETOR 4.0), Fold<k>/{trainingset,validationset,testset}.txt (LETOR 3.0) and S1.txt .. Sn.txt (subsets)")


def _fold(name: str, files: dict[str, list[Path]], n_features: int | None, dtype) -> Fold:
    loaded = {p: [load_letor(f, n_features, dtype) for f in fs] for p, fs in files.items()}
    counts = [f"{p} {s.n_features} in {s.path}" for p in PARTS for s in loaded[p]]
    if len({s.n_features for p in PARTS for s in loaded[p]}) > 1:
        raise LetorFormatError(f"{name}: its files have different feature counts ({', '.join(counts)}); "
                               "pass n_features to read them with one count")
    owner: dict[int, str] = {}
    for p in PARTS:
        for s in loaded[p]:
            for q in np.unique(s.qid).tolist():
                if q in owner:
                    raise LetorFormatError(f"{name}: query {q} is in both {owner[q]} and {p} ({s.path}); "
                                           "a fold's parts (and subsets) must hold different queries")
                owner[q] = f"{p} ({s.path})"
    return Fold(name, *(concat(loaded[p]) for p in PARTS), files)


def letor_folds(path, n_features: int | None = None, dtype=np.float64) -> list[Fold]:
    """Every fold of the LETOR folder ``path`` (see the module docstring), loaded (``n_features`` and
    ``dtype``: as :func:`~ordrank.datasets.letor_file.load_letor` takes them, checked before any reading)."""
    n_features, dtype = check_arguments(n_features, dtype)
    _, folds = find_layout(path)
    return [_fold(name, files, n_features, dtype) for name, files in folds]


@dataclass
class LetorData:
    """A LETOR folder for the experiments (``conf/dataset/letor*.yaml``): layout found at once, folds read
    on demand (``fold(k)`` for k = 1..``n_folds``, as ``protocols.query_folds`` asks; ``folds()``).

    Parameters
    ----------
    path : path
        The folder; a relative path is taken under the data directory.
    data_dir : path, optional
        Data directory (see :func:`~ordrank.datasets.data_dir.resolve_data_dir`).
    n_features : int, optional
        Expected feature count (OHSUMED: 45); None: the largest index in each fold's files.
    fetch : str, optional
        Name of the set in ``ordrank.datasets.fetch`` that installs this folder (for the error message).
    evaluation : {"3.0", "4.0"}, optional
        Which of LETOR's evaluation scripts the ``letor_*`` metrics follow on this data
        (:mod:`ordrank.metrics.letor`: they differ in P@k of queries shorter than k). None: "4.0" for
        the LETOR 4.0 sets, a folder named MQ2007 or MQ2008 (``MQ2008``, ``MQ2008-list``, ...) or
        inside one, else "3.0". The query-folds protocol then reports ``letor4_*`` metrics.
    dtype : {"float64", "float32"}, optional
        The feature matrices' type (float32 halves their memory; values are float64's, rounded).
    """

    path: str | os.PathLike
    data_dir: str | os.PathLike | None = None
    n_features: int | None = None
    fetch: str | None = None
    evaluation: str | None = None
    dtype: str = "float64"

    def __post_init__(self):
        if self.path in (None, ""):
            raise ValueError("dataset.path must name a LETOR folder, e.g. dataset.path=/data/MQ2008")
        if self.n_features is not None and not (type(self.n_features) is int and self.n_features >= 1):
            raise ValueError(f"dataset.n_features must be null or a positive integer, got {self.n_features!r}")
        if str(self.dtype) not in ("float32", "float64"):
            raise ValueError(f"dataset.dtype must be float32 or float64, got {self.dtype!r}")
        self.dtype = str(self.dtype)
        folder = Path(self.path).expanduser()
        self.folder = folder if folder.is_absolute() else resolve_data_dir(self.data_dir) / folder
        if not self.folder.is_dir():
            root = resolve_data_dir(self.data_dir)
            how = (f"Get it with: python -m ordrank.data fetch {self.fetch} --data-dir {root}" if self.fetch
                   else "Point dataset.path at a LETOR folder (absolute, or under the data directory)")
            raise FileNotFoundError(f"LETOR folder not found: expected it at {self.folder}. "
                                    f"Set the data directory with the config key `data_dir` or ORDRANK_DATA. {how}.")
        self.layout, self._folds = find_layout(self.folder)
        if self.evaluation is None:
            self.evaluation = letor_version(self.folder)
        elif str(self.evaluation) not in LETOR_VERSIONS:
            raise ValueError(f"dataset.evaluation must be null or one of {LETOR_VERSIONS} (LETOR's "
                             f"Eval-Score-<version>.pl), got {self.evaluation!r}")
        self.evaluation = str(self.evaluation)

    fresh_folds = True  # fold(k) reads the files anew each call: a protocol may rescale them in place

    @property
    def n_folds(self) -> int:
        return len(self._folds)

    def fold(self, k: int) -> Fold:
        """Fold ``k``, numbered from 1 as LETOR's ``Fold1`` .. ``Fold<n_folds>``."""
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= self.n_folds:
            raise IndexError(f"fold number must be an integer in 1..{self.n_folds} (Fold1 .. Fold{self.n_folds}), "
                             f"got {k!r}")
        return _fold(*self._folds[k - 1], self.n_features, np.dtype(self.dtype))

    def folds(self):
        """The folds in order, each read when reached."""
        return (self.fold(k) for k in range(1, self.n_folds + 1))
