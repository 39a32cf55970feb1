"""Ordinal losses on ranks 1..k, and the costs the partition protocol selects models by.

Online curves use the per-round rank loss |ŷ − y|; the batch benchmarks report the mean absolute
error (MAE) and the mean zero-one error (MZE). :data:`SCORINGS` maps the names a config uses
(``protocol.scoring``) to those costs (lower is better).
"""
from __future__ import annotations

import numpy as np


def rank_loss(y_true, y_pred) -> np.ndarray:
    """Per-example rank loss |ŷ − y| (ranks, not label values)."""
    return np.abs(np.asarray(y_pred, dtype=np.int64) - np.asarray(y_true, dtype=np.int64))


def mean_absolute_error(y_true, y_pred, sample_weight=None) -> float:
    """Mean absolute error in ranks (the absolute cost of ordinal regression)."""
    return float(np.average(rank_loss(y_true, y_pred), weights=sample_weight))


def zero_one_error(y_true, y_pred) -> np.ndarray:
    """Per-example zero-one error: 1 where ŷ ≠ y, else 0."""
    return (np.asarray(y_true) != np.asarray(y_pred)).astype(np.float64)


def mean_zero_one_error(y_true, y_pred, sample_weight=None) -> float:
    """Mean zero-one error (MZE, the classification cost): the fraction of examples with ŷ ≠ y."""
    return float(np.average(zero_one_error(y_true, y_pred), weights=sample_weight))


def time_averaged(losses: np.ndarray) -> np.ndarray:
    """Time-averaged loss along the last axis: entry t is (1/t) Σ_{s≤t} loss_s (t 1-based)."""
    losses = np.asarray(losses, dtype=np.float64)
    return np.cumsum(losses, axis=-1) / np.arange(1, losses.shape[-1] + 1)


def _mae_of_values(y_true, y_pred) -> float:
    """Mean |ŷ − y| of the values as given (no rounding to ranks): the partition protocol's "mae"."""
    return float(np.mean(np.abs(np.asarray(y_true) - np.asarray(y_pred))))


# name -> cost(y_true, y_pred) (lower is better): protocol.scoring and the test-part rows
SCORINGS = {
    "mae": _mae_of_values,
    "zero_one": mean_zero_one_error,
}
