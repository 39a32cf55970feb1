r"""PredtronRanker: the Predtron for subset ranking with the NDCG loss (Section 4 of Jain,
Natarajan & Tewari, *Predtron*, NIPS 2015)."""
from __future__ import annotations

from functools import lru_cache
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ordrank.algorithms.structured.losses import NDCGLoss
from ordrank.algorithms.structured.spaces import Permutations
from ordrank.algorithms.structured.steps import STATE_KEYS, make_step
from ordrank.algorithms.structured.surrogate import predtron_round
from ordrank.metrics import ndcg


def inverse(positions):
    """f(i) = 1/i."""
    return 1.0 / positions


def power_1_1(positions):
    """f(i) = −i^1.1."""
    return -(positions**1.1)


def power_2(positions):
    """f(i) = −i²."""
    return -(positions**2.0)


POSITION_FUNCTIONS = {"inverse": inverse, "power_1.1": power_1_1, "power_2": power_2}


@lru_cache(maxsize=64)
def _parts(f, margin, eta, n_features):
    """The space (its rep tables are computed once per m), the loss and the step."""
    return Permutations(f), NDCGLoss(), make_step(margin, eta, n_features)


class PredtronRanker(BaseEstimator):
    r"""Online subset ranking: a weight vector w ∈ R^p scores the m documents of a query by t = Xw.

    A query is X ∈ R^{m×p} (one row per document) with graded relevance y ∈ {0, 1, …}^m. The
    prediction σ = pred(t) sorts the scores decreasingly (σ(i) is the position of document i; equal
    scores keep document order), and the loss is L = 1 − NDCG(σ, y) (:func:`ordrank.metrics.ndcg`).
    Predictions are represented by rep(σ) = f(σ)/Z, Z = ‖(f(1), …, f(m))‖, for a strictly
    decreasing f. On a query with L > 0 (mistake driven), with σ_y the ideal ranking closest to t
    (by relevance, then current score, then index) and σ̃ the maximizer of the surrogate

    .. math:: \phi(t, y) = \max_\sigma L(\sigma, y) - \langle \mathrm{rep}(\sigma_y)
              - \mathrm{rep}(\sigma), t\rangle

    (a linear assignment problem, Lemma 3), the gradient is ∇_w = Xᵀ(rep(σ̃) − rep(σ_y)) and the
    step is w ← w − η∇ (``margin="l2"``, Corollary 5) or the p-norm mirror step on the dual
    (``margin="l1"``, Corollary 6; :mod:`~ordrank.algorithms.structured.steps`).

    Parameters
    ----------
    f : {"inverse", "power_1.1", "power_2"} or callable, default="inverse"
        The position function: 1/i, −i^1.1, −i², or ``f(positions) -> values`` on positions 1..m,
        checked strictly decreasing.
    margin : {"l2", "l1"}, default="l2"
    eta : float > 0, default=1.0
        Step size (the paper's experiments use 1).
    n_epochs : int ≥ 1, default=1
        Online passes over the queries in ``fit`` (from w = 0).
    stop_when_separated : bool, default=False
        In ``fit``, stop after the first pass that makes no mistake (at most ``n_epochs`` passes).
    shuffle : bool, default=False
        Shuffle the queries before each pass of ``fit``.
    random_state : int, RandomState or None
        Seed for the shuffling.

    Attributes
    ----------
    coef_ : ndarray (n_features,)
        w.
    dual_coef_ : ndarray (n_features,)
        The dual θ of the mirror step (``margin="l1"`` only); ``coef_`` = ∇ψ*(θ).
    n_mistakes_ : int
        Updates made (queries with L > 0) since the zero start (``fit`` restarts the count).
    n_epochs_ : int
        Passes made by the last ``fit``.
    n_features_in_ : int
        p.
    """

    _parameter_constraints: dict = {
        "f": [StrOptions(set(POSITION_FUNCTIONS)), callable],
        "margin": [StrOptions({"l2", "l1"})],
        "eta": [Interval(Real, 0, None, closed="neither")],
        "n_epochs": [Interval(Integral, 1, None, closed="left")],
        "stop_when_separated": ["boolean"],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(self, f="inverse", margin="l2", eta=1.0, n_epochs=1, stop_when_separated=False,
                 shuffle=False, random_state=None):
        self.f = f
        self.margin = margin
        self.eta = eta
        self.n_epochs = n_epochs
        self.stop_when_separated = stop_when_separated
        self.shuffle = shuffle
        self.random_state = random_state

    # --- the parts and the rule, on S copies: X (S, m, p), relevance (S, m), coef (S, p) --------
    def _parts(self, n_features: int):
        f = POSITION_FUNCTIONS[self.f] if isinstance(self.f, str) else self.f
        return _parts(f, self.margin, float(self.eta), n_features)

    def init_state(self, n_copies: int, n_features: int) -> dict:
        return self._parts(n_features)[2].init((n_copies, n_features))

    @staticmethod
    def decision(state: dict, X: np.ndarray) -> np.ndarray:
        """Scores t = Xw, (S, m)."""
        return np.einsum("smp,sp->sm", X, state["coef"])

    def step(self, state: dict, X: np.ndarray, relevance: np.ndarray):
        """One round per copy: predict positions (S, m), then update on a mistake. Returns the
        predictions and their NDCG losses (before the update)."""
        space, loss, step = self._parts(X.shape[-1])
        positions, losses, grad_t = predtron_round(space, loss, self.decision(state, X), relevance)
        step.update(state, np.einsum("smp,sm->sp", X, grad_t))
        return positions, losses

    # --- validation -------------------------------------------------------------------------
    def _check_X(self, X, reset: bool) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 3:
            raise ValueError(f"X must be 3-D (n_queries, n_documents, n_features), got shape "
                             f"{X.shape}")
        if X.shape[0] == 0 or X.shape[1] == 0 or X.shape[2] == 0:
            raise ValueError(f"X must have at least one query, document and feature, got shape "
                             f"{X.shape}")
        if not np.all(np.isfinite(X)):
            raise ValueError("X contains NaN or infinite values")
        if not reset and X.shape[2] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[2]} features, but {type(self).__name__} was fitted "
                             f"with {self.n_features_in_}")
        return X

    @staticmethod
    def _check_relevance(relevance, X: np.ndarray) -> np.ndarray:
        relevance = np.asarray(relevance)
        if relevance.shape != X.shape[:2]:
            raise ValueError(f"relevance must have shape (n_queries, n_documents) = {X.shape[:2]}, "
                             f"got {relevance.shape}")
        if relevance.dtype.kind not in "iuf" or not np.all(np.isfinite(relevance)):
            raise ValueError(f"relevance must be integers >= 0, got dtype {relevance.dtype}")
        if np.any(relevance != np.round(relevance)) or np.any(relevance < 0):
            bad = relevance[(relevance != np.round(relevance)) | (relevance < 0)]
            raise ValueError(f"relevance must be integers >= 0, got {bad[:5].tolist()}")
        return relevance.astype(np.int64)

    # --- scikit-learn interface ---------------------------------------------------------------
    def _state(self) -> dict:
        return {key: getattr(self, key + "_")[None] for key in STATE_KEYS[self.margin]}

    def partial_fit(self, X, relevance):
        """One online pass over the queries in order; each is predicted, then learned from."""
        first = not hasattr(self, "coef_")
        if first:
            self._validate_params()
        X = self._check_X(X, reset=first)
        relevance = self._check_relevance(relevance, X)
        if first:
            self._start(X.shape[2])
        self._online_pass(X, relevance)
        return self

    def _start(self, n_features: int) -> None:
        """The zero model (w = 0, and its dual for the l1 margin), no mistakes yet."""
        self.n_features_in_ = n_features
        for key, value in self.init_state(1, n_features).items():
            setattr(self, key + "_", value[0])
        self.n_mistakes_ = 0

    def _online_pass(self, X, relevance) -> None:
        """One pass over validated queries, counting the mistakes in ``n_mistakes_``."""
        state = self._state()
        for q in range(len(X)):
            _, losses = self.step(state, X[q : q + 1], relevance[q : q + 1])
            self.n_mistakes_ += int(losses[0] > 0)

    def fit(self, X, relevance):
        """From w = 0, ``n_epochs`` online passes (fewer with ``stop_when_separated``)."""
        self._validate_params()
        X = self._check_X(X, reset=True)
        relevance = self._check_relevance(relevance, X)
        for key in ("coef_", "dual_coef_", "n_mistakes_", "n_epochs_", "n_features_in_"):
            self.__dict__.pop(key, None)
        rng = check_random_state(self.random_state)
        self._start(X.shape[2])
        for epoch in range(self.n_epochs):
            before = self.n_mistakes_
            order = rng.permutation(len(X)) if self.shuffle else np.arange(len(X))
            self._online_pass(X[order], relevance[order])
            self.n_epochs_ = epoch + 1
            if self.stop_when_separated and self.n_mistakes_ == before:
                break
        return self

    def decision_function(self, X):
        """Scores t = Xw of shape (n_queries, n_documents)."""
        check_is_fitted(self)
        return np.einsum("qmp,p->qm", self._check_X(X, reset=False), self.coef_)

    def predict(self, X):
        """Positions σ(i) in 1..m (n_queries, n_documents): scores sorted decreasingly, ties by
        document index."""
        return self._parts(self.n_features_in_)[0].pred(self.decision_function(X))

    def score(self, X, relevance):
        """Mean NDCG over the queries (higher is better)."""
        positions = self.predict(X)
        relevance = self._check_relevance(relevance, np.asarray(X))
        return float(np.mean(ndcg(positions, relevance)))
