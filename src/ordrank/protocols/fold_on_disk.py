"""A fold whose validation and test parts wait on disk while a learner fits on its training part.

LETOR's protocol (:mod:`ordrank.protocols.query_folds`) needs a fold's training part while a learner
fits (once per grid point), its validation part only to score the fitted models, and its test part
only to score the chosen one. :class:`FoldOnDisk` keeps the training part in memory and writes the
other two to ``.npy`` files in a temporary folder (:mod:`tempfile`'s: ``$TMPDIR``, else the system's),
each read back whole by :meth:`FoldOnDisk.load` when the protocol needs it and dropped after. So while
a learner fits, the fold's validation and test matrices take no memory (at MSLR-WEB30K's shape, 0.82
of the fold's 2.05 GB of float32 matrices), as long as nothing else holds them: a dataset with
``fresh_folds = True`` makes new arrays at each ``fold(k)`` and keeps none.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from ordrank.datasets.letor import Fold
from ordrank.datasets.letor_file import QuerySet, read_only

ON_DISK = ("vali", "test")
ARRAYS = ("X", "y", "qid", "docid")


class FoldOnDisk:
    """Fold ``fold`` with its training part (``train``) in memory, its validation and test parts in
    ``.npy`` files until :meth:`load` reads one; :meth:`close` (or the end of a ``with`` block)
    removes the files. The caller drops its own reference to ``fold`` for the memory to go."""

    def __init__(self, fold: Fold):
        self.name, self.files, self.train = fold.name, fold.files, fold.train
        self._folder = tempfile.TemporaryDirectory(prefix="ordrank-fold-")
        self._saved = {}  # part -> (the path it was read from, {array name: its .npy file, None for no array})
        for part in ON_DISK:
            data, files = getattr(fold, part), {}
            for name in ARRAYS:
                array = getattr(data, name)
                files[name] = None if array is None else Path(self._folder.name) / f"{part}.{name}.npy"
                if array is not None:
                    np.save(files[name], array, allow_pickle=False)
            self._saved[part] = (data.path, files)

    def load(self, part: str) -> QuerySet:
        """Part ``part`` (``train``, ``vali`` or ``test``): the training part as held, the others read
        from their files (read-only arrays, equal to the part's, byte for byte)."""
        if part == "train":
            return self.train
        if part not in self._saved:
            raise ValueError(f"a fold's parts are train, vali and test, not {part!r}")
        source, files = self._saved[part]
        arrays = {name: None if file is None else np.load(file, allow_pickle=False) for name, file in files.items()}
        return read_only(QuerySet(**arrays, path=source))

    def close(self) -> None:
        self._folder.cleanup()

    def __enter__(self) -> FoldOnDisk:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
