"""RankSVM (seed 001): a large-margin ranker over every preference pair within a query."""
from __future__ import annotations

from numbers import Integral, Real
import warnings
from typing import NamedTuple

import numpy as np
from scipy.optimize import minimize
from sklearn.base import _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.utils._param_validation import Interval, StrOptions
from threadpoolctl import threadpool_limits

from ordrank.algorithms.ranking._base import RankingEstimator
from ordrank.algorithms.ranking._pairwise import MarginSweep, dense_ranks, margin_counts
from ordrank.queries import count_pairs, preference_pairs, query_index


class RankSVM(RankingEstimator):
    r"""Ranking SVM: ``min_w ½‖w‖² + C Σ_p ℓ(1 − w·(x_i − x_j))`` over the preference pairs.

    The pairs p = (i, j) are every two documents of one query with ``y_i > y_j`` (ties give none;
    ``qid=None`` is one query, so every two rows with different labels). ``ℓ(z) = max(0, z)`` (hinge,
    the seed's slack ξ_ij) or ``max(0, z)²`` (squared hinge). A document is scored ``f(x) = w·x``.

    Linear kernel: the primal, never building the pairs. At scores ``s = Xw`` the active pairs
    (``s_i < s_j + 1``) are counted per query by sorting (:class:`~._pairwise.MarginSweep`; the
    hinge, which needs the counts only, :func:`~._pairwise.margin_counts`): the
    loss is ``Σ_j c_j (s_j + 1) − Σ_i e_i s_i`` with ``c_j``/``e_i`` the active pairs where a row is
    the lower/upper one, its subgradient in w is ``−C Xᵀ(e − c)``, and a squared-hinge Hessian
    product ``v ↦ v + 2C Xᵀ[(c + e)∘u − below(u) − above(u)]``, ``u = Xv`` — each O(n log n log L).

    - hinge: Newton on Huber-smoothed hinges whose width μ shrinks (0.1, then as the gap requires;
      Chapelle 2007), each solve warm-started from the last. The smoothed gradient gives dual
      variables ``α_p = C h_μ'(z_p) ∈ [0, C]``, so the RankSVM dual's value is a lower bound of the
      optimum: the fit stops when ``F(w) − D(α) ≤ tol · F(w)``, a certified relative gap
      (:func:`_smoothed_newton`).
    - squared hinge: truncated Newton (Chapelle & Keerthi 2010, PRSVM) by SciPy's ``trust-ncg`` with
      the Hessian products above, to a gradient norm of ``tol`` times the initial one.

    Kernel ``"rbf"``/``"poly"``: the dual over the explicit pairs, ``f(x) = Σ_d β_d K(x_d, x)``, by
    :func:`ordrank.algorithms.ranking.ranksvm_dual.fit_ranksvm_dual` (small data only).

    Attributes: ``coef_`` (linear), ``X_fit_``/``dual_coef_`` (kernels), ``objective_``,
    ``n_pairs_``, ``n_iter_``, ``gap_`` (hinge, the certified relative gap at the end).
    """

    _parameter_constraints = {
        "C": [Interval(Real, 0, None, closed="neither")],
        "loss": [StrOptions({"hinge", "squared_hinge"})],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "kernel": [StrOptions({"linear", "rbf", "poly"})],
        "gamma": [Interval(Real, 0, None, closed="neither"), None],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "coef0": [Interval(Real, None, None, closed="neither")],
    }

    def __init__(self, C=1.0, *, loss="hinge", tol=1e-5, max_iter=1000, kernel="linear",
                 gamma=None, degree=3, coef0=1.0):
        self.C = C
        self.loss = loss
        self.tol = tol
        self.max_iter = max_iter
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, qid=None):
        X, y, qid = self._validate_queries(X, y, qid)
        self.n_pairs_ = count_pairs(y, qid)
        if self.n_pairs_ == 0:
            raise ValueError(f"{type(self).__name__}: no preference pair (n_samples={len(y)}): within "
                             "every query all rows have the same label, so there is nothing to rank")
        if self.kernel != "linear":
            return self._fit_kernel(X, y, qid)
        problem = _Problem(X, y, qid, self.C, self.loss)
        if self.loss == "hinge":
            # its products are memory-bound matrix-vector ones: BLAS threads gain little and, on a
            # loaded machine, each call waits for them (measured: 3x slower under load 8 on 2 cores)
            with threadpool_limits(limits=1, user_api="blas"):
                w, self.n_iter_, self.gap_ = _smoothed_newton(problem, self.tol, self.max_iter)
            if self.gap_ > self.tol:
                warnings.warn(f"{type(self).__name__}: max_iter={self.max_iter} Newton steps reached with a "
                              f"certified relative gap of {self.gap_:.2g} > tol={self.tol:g}; raise "
                              "max_iter or tol", ConvergenceWarning, stacklevel=2)
        else:
            w, self.n_iter_ = _newton(problem, self.tol, self.max_iter)
        self.coef_ = w
        self.objective_ = problem.value(w)
        return self

    def _kernel(self, A, B):
        params = {"gamma": self.gamma} if self.gamma is not None else {}
        if self.kernel == "poly":
            params |= {"degree": self.degree, "coef0": self.coef0}
        return pairwise_kernels(A, B, metric=self.kernel, **params)

    def _fit_kernel(self, X, y, qid):
        from ordrank.algorithms.ranking.ranksvm_dual import fit_ranksvm_dual

        pairs_i, pairs_j = preference_pairs(y, qid)
        K = self._kernel(X, X)
        beta, alpha, status = fit_ranksvm_dual(K, pairs_i, pairs_j, self.C, loss=self.loss,
                                               tol=self.tol)
        self.X_fit_, self.dual_coef_, self.alpha_, self.status_ = X, np.asarray(beta), alpha, status
        scores = K @ self.dual_coef_
        margins = 1.0 - (scores[pairs_i] - scores[pairs_j])
        slack = np.maximum(margins, 0.0) ** (1 if self.loss == "hinge" else 2)
        self.objective_ = 0.5 * float(self.dual_coef_ @ scores) + self.C * float(slack.sum())
        self.n_iter_ = None
        return self

    def _scores(self, X):
        if self.kernel == "linear":
            return X @ self.coef_
        return self._kernel(X, self.X_fit_) @ self.dual_coef_


class _Counts(NamedTuple):
    lower_count: np.ndarray
    upper_count: np.ndarray


class _Problem:
    """The primal objective of a linear RankSVM, by sweeps over sorted scores."""

    def __init__(self, X, y, qid, C, loss):
        self.X, self.C, self.squared = X, C, loss == "squared_hinge"
        self.ranks, self.n_levels = dense_ranks(y)
        self.qindex = query_index(qid)

    def sweep(self, s):
        if not self.squared:  # the hinge needs the counts only
            return _Counts(*margin_counts(s, 1.0, self.ranks, self.n_levels, self.qindex))
        return MarginSweep(s, 1.0, self.ranks, self.n_levels, self.qindex)

    def loss(self, s, sweep):
        """``Σ_p ℓ`` over the active pairs of ``sweep`` (made at ``s``)."""
        c, e = sweep.lower_count, sweep.upper_count
        if not self.squared:
            return float(c @ (s + 1.0) - e @ s)
        below, _ = sweep.partner_sums(s)  # Σ s_i over the upper partners
        # Σ (s_j + 1 − s_i)² = Σ_j c_j (s_j+1)² − 2 Σ_j (s_j+1) below_j + Σ_i e_i s_i²
        return float(c @ (s + 1.0) ** 2 - 2.0 * (s + 1.0) @ below + e @ s ** 2)

    def value(self, w):
        s = self.X @ w
        return 0.5 * float(w @ w) + self.C * self.loss(s, self.sweep(s))


def _smoothed_newton(problem: _Problem, tol: float, max_iter: int, mu: float = 0.1):
    """The hinge by Newton steps on Huber-smoothed hinges of shrinking width μ (Chapelle 2007,
    "Training a support vector machine in the primal", §4): ``(w, iterations, certified relative gap)``.

    ``h_μ(z) = 0 (z ≤ 0), z²/2μ (0 < z ≤ μ), z − μ/2 (z > μ)``; the pairs split into the linear part
    L (``z > μ``: active at margin 1 − μ) and the quadratic window Q (``0 < z ≤ μ``: active at margin
    1, not at 1 − μ), each by its own :class:`~._pairwise.MarginSweep`. At any w, ``α_p = C h_μ'(z_p)``
    ∈ [0, C] is feasible for the RankSVM dual ``D(α) = Σ α_p − ½‖Σ α_p d_p‖²``, so ``F(w) − D(α)`` is a
    certified gap: it is ``½‖∇F_μ(w)‖² + C Σ_Q z(1 − z/μ)`` and shrinks with μ² once the Newton solve
    (SciPy's ``trust-ncg``) is accurate. The fit stops at ``F − D ≤ tol · F``.
    """
    X, C = problem.X, problem.C
    cache = {}

    def state(w, mu):
        if cache.get("mu") != mu or not np.array_equal(cache["w"], w):
            s = X @ w
            sweeps = [MarginSweep(s, margin, problem.ranks, problem.n_levels, problem.qindex)
                      for margin in (1.0, 1.0 - mu)]
            cache.update(mu=mu, w=w.copy(), s=s, sweeps=sweeps)
        return cache["s"], cache["sweeps"]

    def window_sums(sweeps, v):  # (below, above) over the window Q = active at 1, not at 1 − μ
        (b1, a1), (b2, a2) = (sweep.partner_sums(v) for sweep in sweeps)
        return b1 - b2, a1 - a2

    def parts(w, mu):
        """F_μ(w), ∇F_μ(w), F(w) and the dual value D at α = C h_μ'(z)."""
        s, (outer, inner) = state(w, mu)
        c_lin, e_lin = inner.lower_count, inner.upper_count
        c_win, e_win = outer.lower_count - c_lin, outer.upper_count - e_lin
        below, above = window_sums((outer, inner), s)
        above += e_win  # Σ (s_j + 1) over the lower partners j in the window
        z_lin = float(c_lin @ (s + 1.0) - e_lin @ s)                          # Σ_L z
        z_win = float(c_win @ (s + 1.0) - e_win @ s)                          # Σ_Q z
        z2_win = float(c_win @ (s + 1.0) ** 2 - 2.0 * (s + 1.0) @ below + e_win @ s ** 2)  # Σ_Q z²
        n_lin = float(c_lin.sum())
        # dF_μ/ds: z_p = 1 + s_j − s_i, h_μ' = 1 on L and z/μ on Q
        grad_s = c_lin - e_lin + (c_win * (s + 1.0) - below - (above - e_win * s)) / mu
        half = 0.5 * float(w @ w)
        smoothed = half + C * (z_lin - 0.5 * mu * n_lin + 0.5 * z2_win / mu)
        gradient = w + C * (X.T @ grad_s)
        v = w - gradient                                                      # Σ α_p d_p
        dual = C * (n_lin + z_win / mu) - 0.5 * float(v @ v)
        return smoothed, gradient, half + C * (z_lin + z_win), dual, C * (z_win - z2_win / mu)

    def fun(w, mu):
        return parts(w, mu)[:2]

    def hessp(w, v, mu):
        _, sweeps = state(w, mu)
        u = X @ v
        below, above = window_sums(sweeps, u)
        weight = (sweeps[0].lower_count - sweeps[1].lower_count
                  + sweeps[0].upper_count - sweeps[1].upper_count)
        return v + (C / mu) * (X.T @ (weight * u - below - above))

    w, iterations = np.zeros(X.shape[1]), 0
    value = problem.value(w)
    while True:
        # ½‖∇F_μ‖² ≤ tol·F/4: the Newton solve's share of the gap
        gtol = np.sqrt(0.5 * tol * value)
        result = minimize(fun, w, args=(mu,), jac=True, hessp=hessp, method="trust-ncg",
                          options={"gtol": gtol, "maxiter": max(max_iter - iterations, 1)})
        w, iterations = result.x, iterations + int(result.nit)
        _, _, value, dual, smoothing = parts(w, mu)
        if value - dual <= tol * value or iterations >= max_iter:
            break
        # the smoothing's share (C Σ_Q z(1 − z/μ)) shrinks about as μ²: aim it at tol·F/2
        shrink = np.sqrt(tol * value / (2.0 * smoothing)) if smoothing > 0 else 0.5
        mu *= float(np.clip(shrink, 0.01, 0.5))
    return w, iterations, (value - dual) / value


def _newton(problem: _Problem, tol: float, max_iter: int):
    """Truncated Newton for the squared hinge: ``(w, iterations)``."""
    X, C = problem.X, problem.C
    cache = {}

    def state(w):
        if cache.get("w") is None or not np.array_equal(cache["w"], w):
            s = X @ w
            cache.update(w=w.copy(), s=s, sweep=problem.sweep(s))
        return cache["s"], cache["sweep"]

    def fun(w):
        s, sweep = state(w)
        below, _ = sweep.partner_sums(s)
        c, e = sweep.lower_count, sweep.upper_count
        # d/ds_j = 2 Σ_i (s_j + 1 − s_i) = 2(c_j (s_j+1) − below_j); d/ds_i = −2(above_i − e_i s_i)
        _, above = sweep.partner_sums(s + 1.0)
        grad_s = 2.0 * (c * (s + 1.0) - below) - 2.0 * (above - e * s)
        return 0.5 * float(w @ w) + C * problem.loss(s, sweep), w + C * (X.T @ grad_s)

    def hessp(w, v):
        _, sweep = state(w)
        u = X @ v
        below, above = sweep.partner_sums(u)
        c, e = sweep.lower_count, sweep.upper_count
        return v + 2.0 * C * (X.T @ ((c + e) * u - below - above))

    w0 = np.zeros(X.shape[1])
    gtol = tol * max(float(np.linalg.norm(fun(w0)[1])), 1.0)
    result = minimize(fun, w0, jac=True, hessp=hessp, method="trust-ncg",
                      options={"gtol": gtol, "maxiter": max_iter})
    return result.x, int(result.nit)
