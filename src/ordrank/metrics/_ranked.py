"""Flat ranking inputs ``(y_true, y_score, qid)`` checked and sorted per query (shared by
:mod:`.ranking` and :mod:`.letor`)."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ordrank.queries import check_qid, group_sizes, query_index


class Ranked(NamedTuple):
    """Each query's documents by decreasing score (ties: row order), and its ideal order.

    ``query``, ``rank`` (1-based within the query) and ``rel`` are aligned, one entry per row of the
    ranked order; ``ideal`` holds each query's relevances sorted decreasingly (same ``query``/``rank``
    layout, since both orders keep the queries in row order); ``sizes`` = documents per query.
    """

    query: np.ndarray
    rank: np.ndarray
    rel: np.ndarray
    ideal: np.ndarray
    sizes: np.ndarray

    @property
    def n_queries(self) -> int:
        return len(self.sizes)

    def per_query(self, values) -> np.ndarray:
        """Σ of ``values`` (aligned with the rows of the ranked order) within each query."""
        return np.bincount(self.query, weights=values, minlength=self.n_queries)


GAIN_EXPONENT = 960  # 2^rel − 1 is computed as is up to this grade; above, scaled down per query


def exponential_gains(r: Ranked, values: np.ndarray) -> np.ndarray:
    """The gains 2^v − 1 of ``values`` (aligned with the rows of ``r``), each query's scaled by
    2^−shift, shift = max(0, the query's largest relevance − 960): NDCG, a ratio of two sums of one
    query's gains, is unchanged, and grades from 1024 up no longer overflow to inf (NaN NDCG).
    Below that grade shift = 0 and the gains are exactly ``exp2(v) − 1``."""
    shift = np.maximum(r.ideal[np.cumsum(r.sizes) - r.sizes] - GAIN_EXPONENT, 0.0)[r.query]
    return np.exp2(values - shift) - np.exp2(-shift)


def _first_bad(mask) -> int:
    return int(np.flatnonzero(mask)[0])


def check_inputs(y_true, y_score, qid, *, nonnegative: bool = False, integer: bool = False,
                 who: str = "ranking metric") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(y_true, y_score, qid)`` as float64, float64, int64 1-D arrays of one length, checked.

    Refuses (ValueError naming the row and value): different lengths, no rows, a non-finite
    relevance or score, a negative relevance (``nonnegative``), a non-integer one (``integer``), and
    non-contiguous query ids (:func:`ordrank.queries.check_qid`).
    """
    arrays = []
    for name, values in (("y_true", y_true), ("y_score", y_score)):
        array = np.asarray(values)
        if array.ndim != 1:
            raise ValueError(f"{who}: {name} must be 1-D (one value per document), got shape "
                             f"{array.shape}")
        if array.dtype.kind not in "iufb":
            raise ValueError(f"{who}: {name} must be numeric, got dtype {array.dtype}")
        array = array.astype(np.float64)
        if not np.all(np.isfinite(array)):
            row = _first_bad(~np.isfinite(array))
            raise ValueError(f"{who}: {name} has the non-finite value {array[row]} at row {row}")
        arrays.append(array)
    y_true, y_score = arrays
    if len(y_true) != len(y_score):
        raise ValueError(f"{who}: y_true has {len(y_true)} entries and y_score {len(y_score)}")
    if len(y_true) == 0:
        raise ValueError(f"{who}: no documents (empty y_true)")
    if nonnegative and np.any(y_true < 0):
        row = _first_bad(y_true < 0)
        raise ValueError(f"{who}: relevance must be >= 0; row {row} has {y_true[row]:g}")
    if integer and np.any(y_true != np.round(y_true)):
        row = _first_bad(y_true != np.round(y_true))
        raise ValueError(f"{who}: relevance must be an integer grade; row {row} has {y_true[row]:g}")
    return y_true, y_score, check_qid(qid, len(y_true))


def check_k(k, who: str, *, allow_none: bool = True) -> int | None:
    """A cut-off: an integer ≥ 1 (or ``None`` = the whole list, if allowed)."""
    if k is None and allow_none:
        return None
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"{who}: k must be an integer >= 1{' or None' if allow_none else ''}, "
                         f"got {k!r}")
    return int(k)


def rank(y_true: np.ndarray, y_score: np.ndarray, qid: np.ndarray) -> Ranked:
    """Sort checked inputs per query: by decreasing score, ties keeping row order (stable)."""
    query = query_index(qid)
    sizes = group_sizes(qid)
    rows = np.arange(len(y_true))
    order = np.lexsort((rows, -y_score, query))  # last key first: query, then score, then row
    starts = np.repeat(np.cumsum(sizes) - sizes, sizes)
    ideal = y_true[np.lexsort((rows, -y_true, query))]
    return Ranked(query=query, rank=rows - starts + 1, rel=y_true[order], ideal=ideal, sizes=sizes)


def ranked_average_precision(r: Ranked, relevant: np.ndarray) -> np.ndarray:
    """Σ over relevant ranks of (relevant up to the rank / rank), over the number relevant."""
    relevant = relevant.astype(np.float64)
    before = np.cumsum(relevant)
    starts = np.cumsum(r.sizes) - r.sizes
    within = before - np.repeat(np.r_[0.0, before][starts], r.sizes)  # relevant up to each rank
    total = r.per_query(relevant)
    sums = r.per_query(relevant * within / r.rank)
    return np.where(total > 0, sums / np.where(total > 0, total, 1.0), 0.0)
