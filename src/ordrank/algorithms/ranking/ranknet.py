"""RankNet (seed 002; Burges et al., ICML 2005): the pairwise cross-entropy on a linear model or a
one-hidden-layer net."""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy.optimize import minimize
from sklearn.base import _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from ordrank.algorithms.ranking._base import RankingEstimator, check_scale, max_abs, warn_not_converged
from ordrank.algorithms.ranking.ranknet_pairs import label_order, pair_cost
from ordrank.queries import count_pairs, group_sizes

BLOCK = 1 << 14  # rows per block of the products (a float32 block's float64 copy: 16,384 × d × 8 bytes)


class RankNet(RankingEstimator):
    r"""RankNet: ``min_θ (1/N) Σ_(i,j) C_ij + (α/2)‖W‖²`` over the pairs of each query.

    ``C_ij = −P̄_ij log P_ij − (1 − P̄_ij) log(1 − P_ij)``, ``P_ij = 1/(1 + e^{−σ(s_i − s_j)})``, with
    ``P̄_ij = 1`` when ``y_i > y_j``. Tied pairs are skipped (``ties="skip"``) or enter with
    ``P̄ = ½`` (``ties="half"``); N is the number of pairs that enter (``qid=None``: one query).
    Writing ``z = σ(s_i − s_j)``, ``C_ij = log(1 + e^z) − P̄_ij z`` and ``∂C_ij/∂s_i = σ(P_ij − P̄_ij)``.

    The score is ``s = w·x`` (``hidden=None``; then the problem is convex and is a logistic regression
    on the pair differences) or ``s = w₂·tanh(W₁x + b₁)`` with ``hidden`` tanh units (no output bias:
    it cancels in every pair). ``‖W‖²`` is the squared norm of w, or of W₁ and w₂ (not b₁).

    The gradient needs ``λ_i = Σ_j ∂C_ij/∂s_i``. Each query's documents are sorted by label once per
    fit; then every evaluation is one pass of a compiled kernel over the queries (numba, in parallel
    over them; :mod:`~.ranknet_pairs`) that visits, for each document, the documents of lower label
    (and, with ``ties="half"``, its ties) and sums C and λ in O(pairs) time and O(n) memory, never
    forming a list of the pairs; its result does not depend on the number of threads. Then
    ``∂/∂θ = (1/N) Σ_i λ_i ∂s_i/∂θ`` by back-propagation. Products run over blocks of :data:`BLOCK`
    rows: a float32 X (web-scale data) is kept as it is and converted one block at a time (float64
    arithmetic, no float64 copy of X), and the hidden layer is formed per block, in the forward pass and
    again in the backward one, never as an n × hidden array (an X of at most BLOCK rows is one block).
    Full-batch L-BFGS (SciPy), from zeros (linear) or a Glorot-uniform draw of ``random_state``; a
    ConvergenceWarning when it stops short of ``tol`` (``max_iter`` reached, or its line search
    failed). ``σ · max|x| · √d`` above 1e150 (where the gradient's square overflows float64 and
    L-BFGS returns its all-zero start) is refused with a ValueError naming that scale.

    Attributes: ``coef_`` (linear), ``coefs_ = [W₁ (n_features × hidden), w₂]`` and ``intercept_``
    (= b₁) for the net, ``objective_``, ``n_pairs_`` (N), ``n_iter_``.
    """

    _dtypes = [np.float64, np.float32]  # a float32 X is kept; its products in float64, block by block
    _parameter_constraints = {
        "hidden": [Interval(Integral, 1, None, closed="left"), None],
        "sigma": [Interval(Real, 0, None, closed="neither")],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "ties": [StrOptions({"skip", "half"})],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, hidden=None, *, sigma=1.0, alpha=1e-4, ties="skip", tol=1e-5, max_iter=500,
                 random_state=None):
        self.hidden = hidden
        self.sigma = sigma
        self.alpha = alpha
        self.ties = ties
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, qid=None):
        X, y, qid = self._validate_queries(X, y, qid)
        n_pairs = count_pairs(y, qid)
        if self.ties == "half":
            sizes = group_sizes(qid)
            n_pairs = int(np.sum(sizes * (sizes - 1) // 2))
        if n_pairs == 0:
            raise ValueError(f"{type(self).__name__}: no pair to learn from (n_samples={len(y)}): "
                             "within every query all rows have the same label (ties='skip') or are alone")
        self.n_pairs_ = n_pairs
        largest = max_abs(X)  # (max and −min: no |X| copy)
        check_scale(type(self).__name__, self.sigma * largest * np.sqrt(X.shape[1]),
                    f"σ · max|x| · √n_features (sigma={self.sigma:g}, max|x| = {largest:.3g})",
                    "rescale X (e.g. StandardScaler) or lower sigma")
        cost = _PairCost(y, qid, self.sigma, self.ties, n_pairs)
        theta0 = self._initial(X.shape[1])
        result = minimize(self._objective, theta0, args=(X, cost), jac=True, method="L-BFGS-B",
                          options={"maxiter": self.max_iter, "gtol": self.tol, "ftol": 1e-15,
                                   "maxcor": 20})
        self._unpack(result.x, X.shape[1])
        self.objective_, self.n_iter_ = float(result.fun), int(result.nit)
        if not result.success:
            message = result.message if isinstance(result.message, str) else str(result.message)
            gradient = float(np.max(np.abs(result.jac), initial=0.0))
            warn_not_converged(type(self).__name__, self.max_iter, f"or L-BFGS stopped short of "
                               f"tol={self.tol:g} after {self.n_iter_} iterations, the gradient's largest "
                               f"entry at {gradient:.2g} ({message})")
        return self

    def _initial(self, d):
        if self.hidden is None:
            return np.zeros(d)
        rng = check_random_state(self.random_state)
        h = self.hidden
        w1 = rng.uniform(-1, 1, (d, h)) * np.sqrt(6.0 / (d + h))
        w2 = rng.uniform(-1, 1, h) * np.sqrt(6.0 / (h + 1))
        return np.r_[w1.ravel(), np.zeros(h), w2]

    def _split(self, theta, d):
        h = self.hidden
        return theta[: d * h].reshape(d, h), theta[d * h: d * h + h], theta[d * h + h:]

    def _unpack(self, theta, d):
        if self.hidden is None:
            self.coef_ = theta.copy()
        else:
            w1, b1, w2 = self._split(theta, d)
            self.coefs_, self.intercept_ = [w1.copy(), w2.copy()], b1.copy()

    def _objective(self, theta, X, cost):
        """The objective and its gradient in the flat parameters θ, a block of rows at a time."""
        if self.hidden is None:
            value, lam = cost(self._forward(X, theta))
            grad = np.zeros_like(theta)
            for rows, block in _blocks(X):
                grad += block.T @ lam[rows]
            return value + 0.5 * self.alpha * theta @ theta, grad + self.alpha * theta
        w1, b1, w2 = self._split(theta, X.shape[1])
        value, lam = cost(self._forward(X, w1, b1, w2))
        g1, g_b1, g2 = np.zeros_like(w1), np.zeros_like(b1), np.zeros_like(w2)
        for rows, block in _blocks(X):  # the hidden layer again, block by block (never n × hidden)
            H = np.tanh(block @ w1 + b1)
            back = np.outer(lam[rows], w2) * (1.0 - H * H)  # ∂/∂(pre-activation)
            g1 += block.T @ back
            g_b1 += back.sum(axis=0)
            g2 += H.T @ lam[rows]
        grad = np.r_[(g1 + self.alpha * w1).ravel(), g_b1, g2 + self.alpha * w2]
        return value + 0.5 * self.alpha * (np.sum(w1 * w1) + w2 @ w2), grad

    @staticmethod
    def _forward(X, w, b1=None, w2=None):
        """The scores ``X w`` (linear) or ``tanh(X W₁ + b₁) w₂``, a block of rows at a time."""
        s = np.empty(X.shape[0])
        for rows, block in _blocks(X):
            s[rows] = block @ w if w2 is None else np.tanh(block @ w + b1) @ w2
        return s

    def _scores(self, X):
        if self.hidden is None:
            return self._forward(X, self.coef_)
        return self._forward(X, self.coefs_[0], self.intercept_, self.coefs_[1])


def _blocks(X):
    """``(rows, X[rows] as float64)`` for consecutive blocks of :data:`BLOCK` rows: float64 arithmetic on
    a float32 X with one block's copy at a time (X of at most BLOCK rows: one block, the whole X)."""
    for start in range(0, X.shape[0], BLOCK):
        rows = slice(start, min(start + BLOCK, X.shape[0]))
        yield rows, X[rows].astype(np.float64, copy=False)


class _PairCost:
    """``s ↦ ((1/N) Σ C_ij, λ/N)`` for the scores s, over every pair of every query.

    Each query's documents are sorted by decreasing label once, here (:func:`~.ranknet_pairs.label_order`);
    each evaluation is one pass of a numba kernel over the queries (:func:`~.ranknet_pairs.pair_cost`),
    which visits each preference pair once as (preferred, other) and each tied pair once (``ties="half"``):
    ``C = log(1 + e^{−z})`` and ``λ_i −= σ/(1 + e^z)``, ``λ_j += σ/(1 + e^z)`` for a preferred pair;
    ``C = log(1 + e^z) − z/2`` and ``λ_i += σ(P − ½)``, ``λ_j −= σ(P − ½)`` for a tie with ``P̄ = ½``
    (both in forms that neither overflow nor cancel, from ``e = e^{−|z|}`` and ``log1p(e)``; e from
    per-document exponentials where a query's scores span at most :data:`~.ranknet_pairs.SPAN`/σ,
    else per pair).
    """

    def __init__(self, y, qid, sigma, ties, n_pairs):
        self.sigma, self.half, self.n_pairs = sigma, ties == "half", n_pairs
        self.plan = label_order(y, qid)  # (order, lower, offsets, schedule)

    def __call__(self, s):
        total, lam = pair_cost(s, *self.plan, self.sigma, self.half)
        lam /= self.n_pairs
        return total / self.n_pairs, lam
