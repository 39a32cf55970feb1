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
