"""The online protocol: many independent sequences at once, predict then update, per-round loss.

:func:`run_sequences` is the engine every online experiment shares; :class:`OnlineSequences` is the
protocol of the synthetic experiment (S sequences of T rounds drawn from a generator).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ordrank.metrics import rank_loss, time_averaged
from ordrank.results import curve_records


def check_ranks(y: np.ndarray, n_ranks: int, what: str = "y") -> None:
    """Raise a ValueError naming the offending value unless every entry of ``y`` is in 1..k."""
    y = np.asarray(y)
    if not np.issubdtype(y.dtype, np.integer):
        raise ValueError(f"{what} must hold integer ranks 1..{n_ranks}, got dtype {y.dtype}")
    bad = (y < 1) | (y > n_ranks)
    if bad.any():
        raise ValueError(f"{what} has rank {y[bad].flat[0]} outside 1..{n_ranks}")


def check_positive(owner, names, optional=()) -> None:
    """Raise a ValueError naming ``protocol.<name>`` unless each attribute is a positive integer."""
    for name in names:
        value = getattr(owner, name)
        if value is None and name in optional:
            continue
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
            raise ValueError(f"protocol.{name} must be a positive integer, got {value!r}")


def run_sequences(learner, X: np.ndarray, y: np.ndarray, n_ranks: int) -> np.ndarray:
    """Run ``learner``'s rule on S sequences at once and return the per-round rank loss (S, T).

    ``X`` is (S, T, d), ``y`` is (S, T) with ranks in 1..k. On round t every copy predicts
    ``X[:, t]`` with its current model, is charged |ŷ − y|, then updates (``learner.step``).
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 3 or y.shape != X.shape[:2]:
        raise ValueError(f"expected X (S, T, d) and y (S, T), got {X.shape} and {y.shape}")
    if not np.isfinite(X).all():
        raise ValueError("X contains NaN or infinite values")
    check_ranks(y, n_ranks)
    n_seq, n_rounds, n_features = X.shape
    X_t = np.ascontiguousarray(X.transpose(1, 0, 2))  # round-major: X_t[t] is contiguous (S, d)
    y_t = np.ascontiguousarray(y.T.astype(np.int64))
    losses = np.empty((n_rounds, n_seq), dtype=np.int64)
    state = learner.init_state(n_seq, n_features, n_ranks)
    for t in range(n_rounds):
        losses[t] = rank_loss(y_t[t], learner.step(state, X_t[t], y_t[t]))
    return losses.T


def record_steps(n_rounds: int, every: int) -> np.ndarray:
    """1-based rounds to record: 1, every, 2·every, …, and always the last round."""
    return np.unique(np.r_[1, np.arange(every, n_rounds + 1, every), n_rounds])


@dataclass
class OnlineSequences:
    """S independent sequences of T rounds from an online generator; every learner sees the same ones.

    Sequence i is drawn with ``numpy.random.SeedSequence(seed, spawn_key=(i,))``, so it does not depend
    on S, and the ``seed`` column of the table is i.
    """

    n_sequences: int = 100
    n_rounds: int = 7000
    record_every: int = 50

    def __post_init__(self):
        check_positive(self, ("n_sequences", "n_rounds", "record_every"))

    def iter_run(self, dataset, learners: dict, features=None, seed: int = 0):
        """Yield one tidy table per learner (columns algorithm, seed, step, metric, value)."""
        rngs = [np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(i,)))
                for i in range(self.n_sequences)]
        X, y = dataset.sequences(rngs, self.n_rounds)
        if features is not None:
            flat = X.reshape(-1, X.shape[-1])
            X = features.fit(flat[:1]).transform(flat).reshape(*X.shape[:2], -1)
        steps = record_steps(self.n_rounds, self.record_every)
        for name, learner in learners.items():
            curves = time_averaged(run_sequences(learner, X, y, dataset.n_ranks))
            yield curve_records(curves[:, steps - 1], steps, algorithm=name,
                                metric="time_avg_rank_loss")
