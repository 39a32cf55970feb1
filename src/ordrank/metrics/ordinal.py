"""Losses on ranks 1..k. Online curves use the per-round rank loss |ŷ − y|."""
from __future__ import annotations

import numpy as np


def rank_loss(y_true, y_pred) -> np.ndarray:
    """Per-example rank loss |ŷ − y| (ranks, not label values)."""
    return np.abs(np.asarray(y_pred, dtype=np.int64) - np.asarray(y_true, dtype=np.int64))


def mean_absolute_error(y_true, y_pred, sample_weight=None) -> float:
    """Mean absolute error in ranks (the absolute cost of ordinal regression)."""
    return float(np.average(rank_loss(y_true, y_pred), weights=sample_weight))


def time_averaged(losses: np.ndarray) -> np.ndarray:
    """Time-averaged loss along the last axis: entry t is (1/t) Σ_{s≤t} loss_s (t 1-based)."""
    losses = np.asarray(losses, dtype=np.float64)
    return np.cumsum(losses, axis=-1) / np.arange(1, losses.shape[-1] + 1)


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
    """Gains 2^y − 1 (n, m) and the ideal DCG Z(y) (n,): gains sorted decreasingly, discounted."""
    gains = np.exp2(relevance) - 1.0
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
    return _ndcg(*_check_ranking(positions, relevance))


def _ndcg(positions: np.ndarray, relevance: np.ndarray) -> np.ndarray:
    """:func:`ndcg` of checked (n, m) arrays: integer positions, float relevance."""
    gains, ideal = gains_and_ideal_dcg(relevance)
    by_position = np.empty_like(gains)
    np.put_along_axis(by_position, positions - 1, gains, axis=1)  # gain of the document at j
    # the same summation order as the ideal DCG: an ideal ranking gets NDCG = 1 exactly
    dcg = np.sum(by_position * dcg_discounts(positions.shape[1]), axis=1)
    return np.where(ideal > 0, dcg / np.where(ideal > 0, ideal, 1.0), 1.0)


def ndcg_loss(positions, relevance) -> np.ndarray:
    """The NDCG loss 1 − NDCG(σ, y) of each row (n,), in [0, 1]; 0 exactly for ideal rankings."""
    return 1.0 - ndcg(positions, relevance)
