"""One partition file: a table of whitespace-separated numbers whose last column is the rank.

Shared by the loaders of the ORCA archives (:mod:`ordrank.datasets.partitions`) and of any partition
folder (:mod:`ordrank.datasets.partition_folder`); a leaf module that imports neither.
"""
from __future__ import annotations

import io

import numpy as np
import pandas as pd


def drop_constant(X_train: np.ndarray, X_test: np.ndarray, where: str):
    """``X_train`` and ``X_test`` without the columns that are constant on ``X_train`` (as ORCA does)."""
    keep = np.ptp(X_train, axis=0) > 0 if len(X_train) else np.ones(X_train.shape[1], bool)
    if not keep.any():
        raise ValueError(f"{where}: every input column is constant on the training part")
    if keep.all():
        return X_train, X_test
    return np.ascontiguousarray(X_train[:, keep]), np.ascontiguousarray(X_test[:, keep])


def parse_table(text: bytes, where: str, bins: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Inputs (float64) and ranks (int64) of a whitespace-separated table whose last column is a rank 1..bins
    (any integer >= 1 when `bins` is None).

    The fast path is pandas' C parser; anything wrong sends the text to :func:`_diagnose`, which
    raises a ValueError naming `where` and the first bad line.
    """
    try:
        table = pd.read_csv(io.BytesIO(text), sep=r"\s+", header=None, dtype=np.float64,
                            engine="c").to_numpy()
    except ValueError:  # includes pandas' ParserError and EmptyDataError
        table = None
    if (table is None or table.shape[1] < 2 or not np.isfinite(table).all()
            or not _ranks_ok(table[:, -1], bins).all()):
        _diagnose(text, where, bins)
    return np.ascontiguousarray(table[:, :-1]), table[:, -1].astype(np.int64)


def _ranks_ok(y: np.ndarray, bins: int | None) -> np.ndarray:
    """Which of `y` are integer ranks 1..bins (1, 2, ... when `bins` is None)."""
    return (y == np.round(y)) & (y >= 1) & (y <= (np.inf if bins is None else bins))


def _diagnose(text: bytes, where: str, bins: int | None) -> None:
    """Raise a ValueError for the first bad line of `text` (blank lines are allowed and skipped)."""
    width = None
    for number, raw in enumerate(text.split(b"\n"), 1):
        line = raw.decode(errors="replace")
        fields = line.split()
        if not fields:
            continue
        width = width or len(fields)
        if width < 2:
            reason = f"need at least one input and a label, found {width} field"
        elif len(fields) != width:
            reason = f"expected {width} fields (as on the first line), found {len(fields)}"
        else:
            values = []
            for field in fields:
                try:
                    values.append(float(field))
                except ValueError:
                    break
            if len(values) < width:
                reason = f"non-numeric field {fields[len(values)]!r}"
            elif not np.isfinite(values).all():
                reason = "NaN or infinite value"
            elif not _ranks_ok(np.array(values[-1:]), bins).all():
                reason = f"label {fields[-1]!r} is not an integer rank in {'1, 2, …' if bins is None else f'1..{bins}'}"
            else:
                continue
        raise ValueError(f"{where}, line {number}: {reason}: {line.rstrip()!r}")
    raise ValueError(f"{where} is empty" if width is None else
                     f"{where}: not a table of whitespace-separated numbers")
