r"""PredtronRanker: the Predtron for subset ranking with the NDCG loss (Section 4 of Jain,
Natarajan & Tewari, *Predtron*, NIPS 2015)."""
from __future__ import annotations

from functools import lru_cache
from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import validate_data

from ordrank.algorithms.online._base import Rule
from ordrank.algorithms.ranking._base import RankingEstimator
from ordrank.algorithms.structured.losses import NDCGLoss
from ordrank.algorithms.structured.spaces import Permutations
from ordrank.algorithms.structured.steps import STATE_KEYS, make_step
from ordrank.algorithms.structured.surrogate import predtron_round
from ordrank.queries import check_qid, query_offsets


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


class PredtronRanker(Rule, RankingEstimator):
    r"""Online subset ranking: a weight vector w ∈ R^p scores documents by t = Xw.

    The data are rows (documents) with graded relevance y ∈ {0, 1, …} and a query id ``qid``
    (rows of a query contiguous, :mod:`ordrank.queries`; queries may have different lengths m;
    ``qid=None`` is one query). For a query X ∈ R^{m×p} the
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

    ``fit(X, y, qid)`` and ``partial_fit(X, y, qid)`` visit the queries in order (one online round
    each); ``decision_function``/``predict`` give the scores t = Xw of the rows; ``score`` is the
    mean NDCG@10 (:class:`~ordrank.algorithms.ranking.RankingEstimator`). The rule
    (:class:`~ordrank.algorithms.online._base.Rule`) acts on S copies at once, one query of m
    documents per copy: X (S, m, p), relevance (S, m), ``coef`` (S, p).

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

    __metadata_request__partial_fit = {"qid": True}

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

    # --- the rule, on S copies: X (S, m, p), relevance (S, m), coef (S, p) ----------------------
    def _parts(self, n_features: int):
        f = POSITION_FUNCTIONS[self.f] if isinstance(self.f, str) else self.f
        return _parts(f, self.margin, float(self.eta), n_features)

    def init_state(self, n_copies: int, n_features: int, **shape) -> dict:
        """w = 0 (and its dual for ``margin="l1"``) for ``n_copies`` copies; no other size."""
        if shape:
            raise TypeError(f"PredtronRanker.init_state takes no shape, got {sorted(shape)}")
        return self._parts(n_features)[2].init((n_copies, n_features))

    @staticmethod
    def decision(state: dict, X: np.ndarray) -> np.ndarray:
        """Scores t = Xw, (S, m)."""
        return np.einsum("smp,sp->sm", X, state["coef"])

    def step(self, state: dict, X: np.ndarray, relevance: np.ndarray) -> np.ndarray:
        """One round per copy: predict positions (S, m), then update on a mistake; returns the
        positions (made before the update)."""
        return self.step_and_loss(state, X, relevance)[0]

    def step_and_loss(self, state: dict, X: np.ndarray, relevance: np.ndarray):
        """:meth:`step`, and the :meth:`loss` of the positions it returns (the round computes it)."""
        space, loss, step = self._parts(X.shape[-1])
        positions, losses, grad_t = predtron_round(space, loss, self.decision(state, X), relevance)
        step.update(state, np.einsum("smp,sm->sp", X, grad_t))
        return positions, losses

    def loss(self, relevance: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """1 − NDCG of each copy's positions (S,); the rule updates exactly where it is > 0."""
        return _NDCG_LOSS(positions, relevance)

    # --- validation ---------------------------------------------------------------------------
    def _check(self, X, y, qid, reset: bool):
        """X (n, p) finite, y integer relevance >= 0, qid contiguous; the query offsets."""
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True, reset=reset)
        y = np.asarray(y, dtype=np.float64)
        bad = ~np.isfinite(y) | (y != np.round(y)) | (y < 0)
        if bad.any():
            raise ValueError(f"{type(self).__name__}: relevance must be integers >= 0, got "
                             f"{y[bad][:5].tolist()} (first at row {int(np.flatnonzero(bad)[0])})")
        return X, y.astype(np.int64), query_offsets(check_qid(qid, len(y)))

    # --- scikit-learn interface ---------------------------------------------------------------
    def _state(self) -> dict:
        return {key: getattr(self, key + "_")[None] for key in STATE_KEYS[self.margin]}

    def partial_fit(self, X, y, qid=None):
        """One online pass over the queries in order; each is predicted, then learned from."""
        first = not hasattr(self, "coef_")
        if first:
            self._validate_params()
        X, y, offsets = self._check(X, y, qid, reset=first)
        if first:
            self._start(X.shape[1])
        self._online_pass(X, y, offsets, np.arange(len(offsets) - 1))
        return self

    def _start(self, n_features: int) -> None:
        """The zero model (w = 0, and its dual for the l1 margin), no mistakes yet."""
        for key, value in self.init_state(1, n_features).items():
            setattr(self, key + "_", value[0])
        self.n_mistakes_ = 0

    def _online_pass(self, X, y, offsets, order) -> None:
        """One pass over validated queries in ``order``, counting the mistakes in ``n_mistakes_``."""
        state = self._state()
        for q in order:
            rows = slice(offsets[q], offsets[q + 1])
            _, losses = self.step_and_loss(state, X[rows][None], y[rows][None])
            self.n_mistakes_ += int(losses[0] > 0)

    def fit(self, X, y, qid=None):
        """From w = 0, ``n_epochs`` online passes over the queries (fewer with ``stop_when_separated``)."""
        self._validate_params()
        for key in ("coef_", "dual_coef_", "n_mistakes_", "n_epochs_", "n_features_in_"):
            self.__dict__.pop(key, None)
        X, y, offsets = self._check(X, y, qid, reset=True)
        rng = check_random_state(self.random_state)
        self._start(X.shape[1])
        n_queries = len(offsets) - 1
        for epoch in range(self.n_epochs):
            before = self.n_mistakes_
            order = rng.permutation(n_queries) if self.shuffle else np.arange(n_queries)
            self._online_pass(X, y, offsets, order)
            self.n_epochs_ = epoch + 1
            if self.stop_when_separated and self.n_mistakes_ == before:
                break
        return self

    def _scores(self, X) -> np.ndarray:
        """t = Xw, one score per row."""
        return X @ self.coef_


_NDCG_LOSS = NDCGLoss()
