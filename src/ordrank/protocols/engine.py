"""The online engine: S independent sequences at once, predict then update, a per-round loss.

Every online protocol runs its learners through :func:`run_sequences`; what differs between them is
how the sequences are made and which loss and label check apply (by default the learner's own
``loss`` -- the rank loss on ranks 1..k for ordinal regression; other losses and structured labels
pass their own ``loss`` and ``check``). A learner is a :class:`~ordrank.algorithms.online._base.Rule`.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from ordrank.protocols._checks import check_ranks


def run_sequences(learner, X: np.ndarray, y: np.ndarray, n_ranks: int, *, loss=None,
                  check=None) -> np.ndarray:
    """Run ``learner``'s rule on S sequences at once and return the per-round loss (S, T).

    ``X`` is (S, T, d) and ``y`` is (S, T, ...) labels (by default ranks in 1..k, checked by
    ``check(y)``). On round t every copy predicts ``X[:, t]`` with its current model, is charged
    ``loss(y_t, ŷ_t)`` (default ``learner.loss``), then updates (``learner.step``, which returns the
    prediction it made before updating).
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 3 or y.shape[:2] != X.shape[:2]:
        raise ValueError(f"expected X (S, T, d) and y (S, T, ...), got {X.shape} and {y.shape}")
    if not np.isfinite(X).all():
        raise ValueError("X contains NaN or infinite values")
    (check or partial(check_ranks, n_ranks=n_ranks))(y)
    n_seq, n_rounds, n_features = X.shape
    X_t = np.ascontiguousarray(X.transpose(1, 0, 2))  # round-major: X_t[t] is contiguous (S, d)
    y_t = np.ascontiguousarray(np.moveaxis(y, 1, 0))
    if np.issubdtype(y_t.dtype, np.integer):
        y_t = y_t.astype(np.int64)
    state = learner.init_state(n_seq, n_features, n_ranks=n_ranks)
    loss = learner.loss if loss is None else loss
    losses = None
    for t in range(n_rounds):
        value = loss(y_t[t], learner.step(state, X_t[t], y_t[t]))
        if losses is None:
            losses = np.empty((n_rounds, n_seq), dtype=np.asarray(value).dtype)
        losses[t] = value
    return losses.T


def record_steps(n_rounds: int, every: int) -> np.ndarray:
    """1-based rounds to record: 1, every, 2·every, …, and always the last round."""
    return np.unique(np.r_[1, np.arange(every, n_rounds + 1, every), n_rounds])
