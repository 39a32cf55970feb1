r"""Ranking metrics: per query, then averaged.

Two input layouts:

* **dense subset ranking** (the Predtron, :mod:`ordrank.algorithms.structured`): ``positions`` and
  ``relevance`` as (n, m) arrays, one row per query of m documents — :func:`ndcg`, :func:`ndcg_loss`
  (an all-zero row has NDCG 1 there: every ranking of it is ideal);
* **flat** ``(y_true, y_score, qid)``, one entry per document, rows of a query contiguous
  (:mod:`ordrank.queries`; ``qid=None`` = one query). Documents are ranked by decreasing score,
  ties keeping row order. Each function returns one value per query, in order;
  :func:`mean_over_queries` averages them.

The flat metrics follow the **standard convention** of trec_eval (``pytrec-eval-terrier``) and ranx,
checked against both in tests/test_ranking_metrics.py:

* NDCG@k: gain 2^rel − 1 (ranx's ``ndcg_burges``; trec_eval's ``ndcg_cut_k`` uses the label itself
  as gain, so the oracle gives it 2^rel − 1 as the label), discount 1/log2(1 + rank), ideal DCG from
  the query's own relevances cut at k. A query without a relevant document gets **0**, and counts
  in the mean: trec_eval and ranx both do so (each reports 0 for a query whose judged documents are
  all 0, and averages over it).
* P@k = #{relevant in the top k} / k (also when the query has fewer than k documents), AP = the mean
  of the precisions at the relevant documents' ranks (0 without a relevant document); "relevant"
  means rel ≥ ``relevance_level`` (1, trec_eval's default).
* ERR@k (Chapelle, Metzler, Zhang & Grinspan, CIKM 2009): R(g) = (2^g − 1) / 2^{g_max},
  ERR@k = Σ_{r≤k} (1/r) R_r Π_{i<r} (1 − R_i).
* Kendall's τ_b (``scipy.stats.kendalltau``) between relevance and score; NaN for a query where it is
  undefined (fewer than two documents, or constant labels or scores).
* Pairwise accuracy: among the pairs of one query with different relevance, the fraction ordered
  correctly by the scores (a tie in score counts ½); NaN for a query without such a pair.

``convention="letor"`` gives LETOR's official evaluation (:mod:`.letor`) for NDCG@k, P@k and AP
(``Eval-Score-3.0.pl``), ``convention="letor4"`` that of LETOR 4.0 (``Eval-Score-4.0.pl``: P@k of a
query shorter than k counts its relevant documents over k, where 3.0 gives 0).
"""
from __future__ import annotations

import numpy as np
from scipy.stats import kendalltau

from ordrank.metrics import letor
from ordrank.metrics._ranked import GAIN_EXPONENT
from ordrank.metrics._ranked import check_inputs, check_k, exponential_gains, rank, ranked_average_precision
from ordrank.queries import query_slices

CONVENTIONS = ("standard", "letor", "letor4")
LETOR_VERSIONS = {"letor": "3.0", "letor4": "4.0"}


# --- dense subset ranking (positions, relevance): the Predtron's NDCG ---------------------------

def _check_ranking(positions, relevance) -> tuple[np.ndarray, np.ndarray]:
    """Both as (n, m) arrays; each row of ``positions`` a permutation of 1..m, relevance ≥ 0."""
    positions = np.atleast_2d(np.asarray(positions))
    relevance = np.atleast_2d(np.asarray(relevance, dtype=np.float64))
    if positions.ndim != 2 or positions.shape != relevance.shape:
        raise ValueError(f"positions and relevance must have the same shape (n, m), got "
                         f"{positions.shape} and {relevance.shape}")
    m = positions.shape[1]
    if not np.array_equal(np.sort(positions, axis=1), np.broadcast_to(np.arange(1, m + 1),
                                                                      positions.shape)):
        raise ValueError(f"each row of positions must be a permutation of 1..{m}")
    if not np.all(np.isfinite(relevance)) or np.any(relevance < 0):
        raise ValueError("relevance must be finite and >= 0")
    return positions.astype(np.int64), relevance


def dcg_discounts(m: int) -> np.ndarray:
    """1 / log2(1 + j) for positions j = 1..m."""
    return 1.0 / np.log2(np.arange(2, m + 2))


def gains_and_ideal_dcg(relevance: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gains 2^y − 1 (n, m) and the ideal DCG Z(y) (n,): gains sorted decreasingly, discounted.
    A row whose largest relevance g exceeds 960 has its gains scaled by 2^−(g − 960) (so that 2^y
    does not overflow; NDCG, their ratio, is unchanged); other rows get exactly 2^y − 1."""
    shift = np.maximum(np.max(relevance, axis=1, keepdims=True, initial=0.0) - GAIN_EXPONENT, 0.0)
    gains = np.exp2(relevance - shift) - np.exp2(-shift)
    ideal = np.sum(-np.sort(-gains, axis=1) * dcg_discounts(gains.shape[1]), axis=1)
    return gains, ideal


def ndcg(positions, relevance) -> np.ndarray:
    r"""NDCG of rankings: one value per row (n,).

    .. math:: \mathrm{NDCG}(\sigma, y) = \frac{1}{Z(y)} \sum_{i=1}^m
              \frac{2^{y(i)} - 1}{\log_2(1 + \sigma(i))}

    ``positions[q, i]`` = σ(i) is the position (1 = top) of document i of query q, ``relevance``
    the graded relevance y(i) ≥ 0, and Z(y) the largest sum over all σ (documents sorted by
    decreasing relevance), so NDCG ≤ 1. A row whose relevances are all 0 has Z(y) = 0 and NDCG 1:
    every ranking of it is ideal.
    """
    return ndcg_unchecked(*_check_ranking(positions, relevance))


def ndcg_unchecked(positions: np.ndarray, relevance: np.ndarray) -> np.ndarray:
    """:func:`ndcg` without its checks, for a caller whose arrays are already valid: (n, m) integer
    positions (each row a permutation of 1..m) and float relevance ≥ 0."""
    gains, ideal = gains_and_ideal_dcg(relevance)
    by_position = np.empty_like(gains)
    np.put_along_axis(by_position, positions - 1, gains, axis=1)  # gain of the document at j
    # the same summation order as the ideal DCG: an ideal ranking gets NDCG = 1 exactly
    dcg = np.sum(by_position * dcg_discounts(positions.shape[1]), axis=1)
    return np.where(ideal > 0, dcg / np.where(ideal > 0, ideal, 1.0), 1.0)


def ndcg_loss(positions, relevance) -> np.ndarray:
    """The NDCG loss 1 − NDCG(σ, y) of each row (n,), in [0, 1]; 0 exactly for ideal rankings."""
    return 1.0 - ndcg(positions, relevance)


# --- flat (y_true, y_score, qid): one value per query ------------------------------------------

def _convention(convention: str) -> str | None:
    """LETOR's script version for a LETOR convention, None for the standard one; a ValueError for an
    unknown name."""
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {CONVENTIONS}, got {convention!r}")
    return LETOR_VERSIONS.get(convention)


def ndcg_at_k(y_true, y_score, qid=None, k: int | None = 10, *, convention: str = "standard"
              ) -> np.ndarray:
    """NDCG@k of each query (``k=None``: the whole list). Standard: gain 2^rel − 1, discount
    1/log2(1 + rank), 0 for a query without a relevant document; ``"letor"``: :func:`.letor.ndcg_at_k`.
    """
    if version := _convention(convention):
        return letor.ndcg_at_k(y_true, y_score, qid, k, version)
    k = check_k(k, "ndcg_at_k")
    r = rank(*check_inputs(y_true, y_score, qid, nonnegative=True, who="ndcg_at_k"))
    kept = r.rank <= (k if k is not None else np.inf)
    weights = np.where(kept, 1.0 / np.log2(1.0 + r.rank), 0.0)
    dcg = r.per_query(exponential_gains(r, r.rel) * weights)
    ideal = r.per_query(exponential_gains(r, r.ideal) * weights)
    return np.where(ideal > 0, dcg / np.where(ideal > 0, ideal, 1.0), 0.0)


def precision_at_k(y_true, y_score, qid=None, k: int = 10, *, relevance_level: float = 1,
                   convention: str = "standard") -> np.ndarray:
    """P@k of each query: relevant (rel ≥ ``relevance_level``) documents in the top k, over k."""
    if version := _convention(convention):
        return letor.precision_at_k(y_true, y_score, qid, k, version)
    k = check_k(k, "precision_at_k", allow_none=False)
    r = rank(*check_inputs(y_true, y_score, qid, who="precision_at_k"))
    return r.per_query((r.rel >= relevance_level) & (r.rank <= k)) / k


def average_precision(y_true, y_score, qid=None, *, relevance_level: float = 1,
                      convention: str = "standard") -> np.ndarray:
    """Average precision of each query (0 without a relevant document); MAP is their mean."""
    if version := _convention(convention):
        return letor.average_precision(y_true, y_score, qid, version)
    r = rank(*check_inputs(y_true, y_score, qid, who="average_precision"))
    return ranked_average_precision(r, r.rel >= relevance_level)


def err_at_k(y_true, y_score, qid=None, k: int | None = 10, *, max_grade: float | None = None
             ) -> np.ndarray:
    """ERR@k of each query; ``max_grade`` = g_max (default: the largest relevance given)."""
    k = check_k(k, "err_at_k")
    y_true, y_score, qid = check_inputs(y_true, y_score, qid, nonnegative=True, who="err_at_k")
    top = float(np.max(y_true)) if max_grade is None else float(max_grade)
    if top < np.max(y_true):
        raise ValueError(f"err_at_k: max_grade={max_grade} is below the largest relevance "
                         f"{np.max(y_true):g}")
    r = rank(y_true, y_score, qid)
    # (2^g − 1) / 2^top, both scaled by 2^−shift so that grades from 1024 up do not overflow (shift
    # = 0, the plain formula, below 960); < 1: log1p(−stop) is finite
    shift = max(top - GAIN_EXPONENT, 0.0)
    stop = (np.exp2(r.rel - shift) - np.exp2(-shift)) / np.exp2(top - shift)
    # stop rounds to 1 for the top grade from 53 up: log1p(−1) = −inf would make NaN below; floored
    # at −800 instead, where exp is 0 all the same (for stop < 1 it is ≥ −37: unchanged)
    with np.errstate(divide="ignore"):
        log_go_on = np.maximum(np.log1p(-stop), -800.0)
    through = np.cumsum(log_go_on)
    starts = np.cumsum(r.sizes) - r.sizes
    before = through - log_go_on - np.repeat(np.r_[0.0, through][starts], r.sizes)
    kept = r.rank <= (k if k is not None else np.inf)
    return r.per_query(np.where(kept, stop * np.exp(before) / r.rank, 0.0))


def kendall_tau(y_true, y_score, qid=None) -> np.ndarray:
    """Kendall's τ_b between relevance and score in each query (scipy); NaN where undefined."""
    y_true, y_score, qid = check_inputs(y_true, y_score, qid, who="kendall_tau")
    values = np.full(len(query_slices(qid)), np.nan)
    for q, rows in enumerate(query_slices(qid)):
        labels, scores = y_true[rows], y_score[rows]
        if len(labels) > 1 and np.ptp(labels) > 0 and np.ptp(scores) > 0:
            values[q] = kendalltau(labels, scores).statistic
    return values


def pairwise_accuracy(y_true, y_score, qid=None, *, block: int = 2048) -> np.ndarray:
    """Fraction of each query's preference pairs (different relevance) that the scores order
    correctly, a tie in score counting ½; NaN for a query without a preference pair."""
    y_true, y_score, qid = check_inputs(y_true, y_score, qid, who="pairwise_accuracy")
    values = np.full(len(query_slices(qid)), np.nan)
    for q, rows in enumerate(query_slices(qid)):
        labels, scores = y_true[rows], y_score[rows]
        right = pairs = 0.0
        for start in range(0, len(labels), block):  # O(block · m) memory per step
            better = labels[start:start + block, None] > labels[None, :]
            diff = scores[start:start + block, None] - scores[None, :]
            pairs += better.sum()
            right += np.sum(better * ((diff > 0) + 0.5 * (diff == 0)))
        if pairs:
            values[q] = right / pairs
    return values


def mean_over_queries(values) -> float:
    """The mean of per-query values over the queries where they are defined (not NaN); NaN if none."""
    values = np.asarray(values, dtype=np.float64)
    defined = ~np.isnan(values)
    return float(np.mean(values[defined])) if defined.any() else float("nan")
