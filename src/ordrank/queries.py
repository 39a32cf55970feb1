"""Queries: the rows of one query are contiguous, and ``qid`` gives each row's query.

A ranking data set is ``(X, y, qid)``: ``X`` one row per document, ``y`` its graded relevance, ``qid``
its query. The rows of a query must be contiguous (as in LETOR's SVMlight files, LightGBM's groups and
XGBoost's ``qid``); two runs of the same id are refused rather than merged silently. ``qid=None`` means
one query holding every row (the ordinal use: every pair with different labels is a preference).
"""
from __future__ import annotations

import numpy as np


def check_qid(qid, n_samples: int | None = None, *, name: str = "qid") -> np.ndarray:
    """``qid`` as a 1-D int64 array, checked: integer-valued, ``n_samples`` long, contiguous.

    ``None`` gives one query (all zeros). Raises a ValueError naming the first offending row. Ids
    beyond the int64 range (floats such as 1e20, or uint64 above 2^63) are replaced by their
    order-preserving codes 0, 1, ... (a cast would turn them all into one id).
    """
    if qid is None:
        if n_samples is None:
            raise ValueError(f"{name}=None needs the number of samples")
        return np.zeros(n_samples, dtype=np.int64)
    values = np.asarray(qid)
    if values.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one query id per row), got shape {values.shape}")
    if n_samples is not None and len(values) != n_samples:
        raise ValueError(f"{name} has {len(values)} entries for {n_samples} rows")
    if values.dtype.kind not in "iu":
        as_float = _as_float(values)
        if as_float is None or not np.all(np.isfinite(as_float)) or np.any(as_float != np.round(as_float)):
            bad = _first_non_integer(values)
            raise ValueError(f"{name} must hold integer query ids; row {bad} has {values[bad]!r}")
        values = as_float
    if len(values):
        starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
        run_ids = values[starts]
        if len(np.unique(run_ids)) < len(run_ids):
            seen: dict = {}
            for start, q in zip(starts, run_ids.tolist()):
                if q in seen:
                    raise ValueError(
                        f"{name}: the rows of query {q} are not contiguous (rows from {seen[q]} and "
                        f"again from row {start}); sort the rows by query, keeping each query's order")
                seen[q] = start
    if values.dtype.kind == "f" or (values.dtype.kind == "u" and len(values) and values.max() > INT64_MAX):
        if len(values) and np.max(np.abs(values)) >= 2.0 ** 63:
            # beyond int64 (a cast would merge them all into one id): the ids' order-preserving codes
            return np.unique(values, return_inverse=True)[1].ravel().astype(np.int64)
    return values.astype(np.int64)


INT64_MAX = np.iinfo(np.int64).max


def _as_float(values):
    """Float or boolean ids (or an object array of real numbers) as float64, else None."""
    if values.dtype.kind in "fb":
        return np.asarray(values, dtype=np.float64)
    if values.dtype.kind == "O" and all(isinstance(v, (int, float, np.integer, np.floating))
                                        and not isinstance(v, (bool, np.bool_)) for v in values):
        return np.asarray(values, dtype=np.float64)
    return None


def _first_non_integer(values) -> int:
    for i, value in enumerate(values):
        try:
            number = float(value)
        except (TypeError, ValueError):
            return i
        if not np.isfinite(number) or number != round(number):
            return i
    return 0


def query_offsets(qid) -> np.ndarray:
    """Row offsets of the queries (length n_queries + 1): query q is rows offsets[q]:offsets[q+1]."""
    qid = np.asarray(qid)
    if len(qid) == 0:
        return np.zeros(1, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    return np.r_[starts, len(qid)].astype(np.int64)


def group_sizes(qid) -> np.ndarray:
    """The number of rows of each query, in order (LightGBM's ``group``)."""
    return np.diff(query_offsets(qid))


def query_index(qid) -> np.ndarray:
    """Each row's query as 0..n_queries−1 (for ``np.bincount``/``np.add.reduceat`` style sums)."""
    sizes = group_sizes(qid)
    return np.repeat(np.arange(len(sizes)), sizes)


def query_slices(qid) -> list[slice]:
    """One slice of rows per query, in order."""
    offsets = query_offsets(qid)
    return [slice(int(a), int(b)) for a, b in zip(offsets[:-1], offsets[1:])]


def preference_pairs(y, qid=None) -> tuple[np.ndarray, np.ndarray]:
    """Every preference pair within a query: rows ``(i, j)`` with ``y[i] > y[j]`` and the same query.

    Returned as two int64 arrays (preferred, other), query by query, ``i`` then ``j`` in row order.
    Ties give no pair. Memory is O(pairs); the pairwise learners never call this on large data (their
    losses are computed per query by sorting) — it serves oracles, tests and small kernel problems.
    """
    y = np.asarray(y, dtype=np.float64)
    qid = check_qid(qid, len(y))
    firsts, seconds = [], []
    for rows in query_slices(qid):
        labels = y[rows]
        i, j = np.nonzero(labels[:, None] > labels[None, :])
        firsts.append(i + rows.start)
        seconds.append(j + rows.start)
    if not firsts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(firsts).astype(np.int64), np.concatenate(seconds).astype(np.int64)


def count_pairs(y, qid=None) -> int:
    """The number of preference pairs (without building them): per query, pairs minus tied pairs."""
    y = np.asarray(y)
    qid = check_qid(qid, len(y))
    total = 0
    for rows in query_slices(qid):
        counts = np.unique(y[rows], return_counts=True)[1].astype(np.int64)
        n = counts.sum()
        total += int((n * n - np.sum(counts * counts)) // 2)
    return total
