"""Ordinal-regression benchmark partitions: the ORCA discretized-regression archives and Wei Chu's files.

Both layouts hold 20 train/test partitions per data set, as whitespace-separated numbers whose
last column is the rank 1..B (B = 5 or 10 bins):

- ``source="orca"``: ``<data_dir>/orca-discretized-regression/<B>bins/<archive>.tar.xz``, one xz tar per
  data set with members ``<B>bins/<archive>/matlab/{train,test}_<archive>.<k>``; equal-frequency bins,
  z-scored inputs, stratified training sets. Members are read from the archive, never unpacked to disk.
- ``source="chu"``: ``<data_dir>/chu-ghahramani-2005-ordinal/<folder>/<B>bins/<name>_{train,test}_<B>.<k>``,
  k = 1..20; equal-length bins, raw inputs.

Partitions are numbered 0..19 here, whatever the files' numbering. With ``redraw`` the original
partitions are replaced by new stratified random ones drawn from the full data set: use it for the
Chu & Keerthi (2005/2007) training sizes (bank 3000, computer 4000, calhousing 5000, census 6000),
whose original partitions are not available — the redrawn splits are NOT the published ones.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedShuffleSplit

from ordrank.datasets.orca_archives import ORCA_SOURCE, check_archive, read_members
from ordrank.datasets.partition_table import drop_constant, parse_table
from ordrank.datasets.data_dir import find_file, resolve_data_dir

CHU_FOLDERS = {"pyrim": "pyrimidines", "machine": "machinecpu", "housing": "bostonhousing",
               "abalone": "abalone", "stock": "stocksdomain"}
"""Folder of each data set in Wei Chu's collection (file stems are the names themselves)."""
NAMES = {"orca": (*CHU_FOLDERS, "bank1", "bank2", "computer1", "computer2", "calhousing", "census1", "census2"),
         "chu": tuple(CHU_FOLDERS)}
"""Data sets available in each layout."""
CHU_KEERTHI = ("pyrim", "machine", "housing", "abalone", "bank2", "computer2", "calhousing", "census2")
"""The eight data sets of Chu & Keerthi (2005/2007), as ORCA names."""
BINS = (5, 10)
N_SPLITS = 20
ONE_BASED = {"bank1", "computer1", "census1"}
"""ORCA archives whose partitions are numbered 1..20 (the others: 0..19)."""
REDRAW_KEYS = ("train_size", "n_splits", "seed")

CHU_SOURCE = ("Get them with `python -m ordrank.data fetch chu`. "
              "Wei Chu's partitions are at http://www.gatsby.ucl.ac.uk/~chuwei/ordinalregression.html")


@dataclass
class BenchmarkData:
    """One benchmark data set's 20 train/test partitions (or `redraw` ones).

    Parameters
    ----------
    benchmark : str
        Data set name, one of ``NAMES[source]`` (``dataset.name`` in the Hydra config).
    bins : {5, 10}
        Number of ranks.
    source : {"orca", "chu"}
        File layout (see the module docstring).
    data_dir : path, optional
        Data directory (see :func:`~ordrank.datasets.data_dir.resolve_data_dir`).
    redraw : dict, optional
        ``{"train_size": int, "n_splits": int, "seed": int}``: instead of the files' partitions, draw
        `n_splits` stratified train/test splits (scikit-learn ``StratifiedShuffleSplit``, seeded) of
        train ∪ test of the first partition, with `train_size` training rows and the rest as test.
        These are new random splits, not the original ones of any paper.
    drop_constant : bool, default False
        Drop the input columns that are constant on a partition's training part (from its training and
        test part), as ORCA does before standardising (:func:`~ordrank.datasets.partition_table.drop_constant`).
        Off by default, which keeps the committed ``svor_benchmark`` results: today's runs standardise
        (``features=standardize``, fitted on the training part) without dropping, and ORCA's pyrim has
        such columns (training-constant, test-varying) in partitions 0, 2, 3, 5 at 5 bins and
        0, 5, 17 at 10 bins, so dropping changes those partitions' inputs.
    """

    benchmark: str
    bins: int = 10
    source: str = "orca"
    data_dir: str | os.PathLike | None = None
    redraw: dict | None = None
    drop_constant: bool = False

    def __post_init__(self):
        if self.source not in NAMES:
            raise ValueError(f"dataset.source must be one of {list(NAMES)}, got {self.source!r}")
        if self.benchmark not in NAMES[self.source]:
            raise ValueError(f"dataset.name must be one of {list(NAMES[self.source])} for "
                             f"dataset.source={self.source!r}, got {self.benchmark!r}")
        if isinstance(self.bins, bool) or self.bins not in BINS:
            raise ValueError(f"dataset.bins must be one of {list(BINS)}, got {self.bins!r}")
        if self.redraw is not None:
            if not isinstance(self.redraw, Mapping) or sorted(self.redraw) != sorted(REDRAW_KEYS):
                raise ValueError(f"dataset.redraw must be null or a mapping with exactly the keys "
                                 f"{list(REDRAW_KEYS)}, got {self.redraw!r}")
            self.redraw = dict(self.redraw)
            for key in REDRAW_KEYS:
                value, least = self.redraw[key], 0 if key == "seed" else 1
                if isinstance(value, bool) or not isinstance(value, int) or value < least:
                    raise ValueError(f"dataset.redraw.{key} must be an integer >= {least}, got {value!r}")
        if not isinstance(self.drop_constant, bool):
            raise ValueError(f"dataset.drop_constant must be true or false, got {self.drop_constant!r}")
        self._drawn = None
        if self.source == "orca":
            find_file(f"ORCA archive of {self.benchmark} ({self.bins} bins)", [self.source_path], ORCA_SOURCE)
            check_archive(self.source_path, f"{self.bins}bins/{self._stem}", resolve_data_dir(self.data_dir))
        else:
            for i in range(N_SPLITS):
                for name in self._files(i):
                    find_file(f"Chu partition file of {self.benchmark} ({self.bins} bins)",
                          [self.source_path / name], CHU_SOURCE)

    @property
    def source_path(self) -> Path:
        """The ``.tar.xz`` archive (orca) or the folder holding the partition files (chu)."""
        root = resolve_data_dir(self.data_dir)
        if self.source == "orca":
            return root / "orca-discretized-regression" / f"{self.bins}bins" / f"{self._stem}.tar.xz"
        return root / "chu-ghahramani-2005-ordinal" / CHU_FOLDERS[self.benchmark] / f"{self.bins}bins"

    @property
    def n_splits(self) -> int:
        """Number of train/test partitions: 20, or ``redraw["n_splits"]``."""
        return self.redraw["n_splits"] if self.redraw else N_SPLITS

    @property
    def n_ranks(self) -> int:
        """Number of ranks (= bins); labels are 1..n_ranks."""
        return self.bins

    def split(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Partition `i` (0-based) as ``(X_train, y_train, X_test, y_test)``: float64 inputs, int64 ranks.

        Only partition `i`'s two files are parsed (an archive is decompressed up to its last one).
        """
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.n_splits:
            raise IndexError(f"partition index must be an integer in 0..{self.n_splits - 1}, got {i!r}")
        if self.redraw:
            X, y, draws = self._redraws()
            train, test = draws[i]
            return X[train], y[train], X[test], y[test]
        return next(self._original([int(i)]))

    def splits(self):
        """Iterate over all partitions in order, as :meth:`split` returns them (one pass over an archive)."""
        if self.redraw:
            yield from (self.split(i) for i in range(self.n_splits))
        else:
            yield from self._original(range(N_SPLITS))

    @property
    def _stem(self) -> str:
        """ORCA archive name: e.g. ``pyrim10`` / ``pyrim``, ``bank1-10`` / ``bank1-5``."""
        if self.benchmark in CHU_FOLDERS:
            return self.benchmark + ("10" if self.bins == 10 else "")
        return f"{self.benchmark}-{self.bins}"

    def _files(self, i: int) -> tuple[str, str]:
        """Partition `i`'s train and test file: archive member names (orca) or file names (chu)."""
        if self.source == "orca":
            k = i + (self.benchmark in ONE_BASED)
            folder = f"{self.bins}bins/{self._stem}/matlab"
            return tuple(f"{folder}/{kind}_{self._stem}.{k}" for kind in ("train", "test"))
        return tuple(f"{self.benchmark}_{kind}_{self.bins}.{i + 1}" for kind in ("train", "test"))

    def _where(self, name: str) -> str:
        return f"{self.source_path} member {name}" if self.source == "orca" else str(self.source_path / name)

    def _original(self, indices):
        """Yield the files' partitions `indices`, parsing each file just before it is yielded."""
        names = [name for i in indices for name in self._files(i)]
        if self.source == "orca":
            texts = read_members(self.source_path, names)
        else:
            texts = {name: find_file(f"Chu partition file of {self.benchmark}", [self.source_path / name],
                                 CHU_SOURCE).read_bytes() for name in names}
        for i in indices:
            train, test = self._files(i)
            X_train, y_train = parse_table(texts.pop(train), self._where(train), self.bins)
            X_test, y_test = parse_table(texts.pop(test), self._where(test), self.bins)
            if X_train.shape[1] != X_test.shape[1]:
                raise ValueError(f"{self._where(test)} has {X_test.shape[1]} inputs but "
                                 f"{self._where(train)} has {X_train.shape[1]}")
            if self.drop_constant:

                X_train, X_test = drop_constant(X_train, X_test, self._where(train))
            yield X_train, y_train, X_test, y_test

    def _redraws(self):
        """Full data (train ∪ test of the first partition) and its seeded stratified splits, drawn once."""
        if self._drawn is None:
            X_train, y_train, X_test, y_test = next(self._original([0]))
            X, y = np.vstack([X_train, X_test]), np.concatenate([y_train, y_test])
            splitter = StratifiedShuffleSplit(n_splits=self.redraw["n_splits"],
                                              train_size=self.redraw["train_size"], random_state=self.redraw["seed"])
            try:
                draws = list(splitter.split(X, y))
            except ValueError as error:
                raise ValueError(f"dataset.redraw={self.redraw!r} does not fit {self.benchmark} "
                                 f"({len(y)} rows, {self.bins} bins): {error}") from None
            self._drawn = X, y, draws
        return self._drawn
