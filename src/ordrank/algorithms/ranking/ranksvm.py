"""RankSVM (seed 001): a large-margin ranker over every preference pair within a query."""
from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import NamedTuple

import clarabel
import numpy as np
from scipy import sparse
from scipy.optimize import minimize
from scipy.sparse.linalg import LinearOperator, cg
from sklearn.base import _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.utils._param_validation import Interval, StrOptions
from threadpoolctl import threadpool_limits

from ordrank.algorithms.ranking._base import RankingEstimator, check_scale, max_abs, warn_not_converged
from ordrank.algorithms.ranking._pairwise import MarginSweep, dense_ranks, margin_counts, pair_counts
from ordrank.queries import count_pairs, preference_pairs, query_index, query_offsets


AUTO_NEWTON_PAIRS = 1_000_000  # solver="auto": the smoothed Newton from this many preference pairs
MAX_CUTS = 200  # the cutting plane's model keeps at most this many cuts (plus one aggregate per group)


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

    - hinge: the optimised cutting-plane method (Joachims 2006's 1-slack cuts; OCAS, Franc &
      Sonnenburg 2009): each cut ``R(w) ≥ b_k − a_k·w`` comes from the active pairs at one point; the
      model ``½‖w‖² + max_k(b_k − a_k·w)⁺`` is minimised exactly in its dual (a QP over the simplex
      of the cuts, Clarabel), then a line search from the best point towards it. The dual value is a
      lower bound of the optimum: the fit stops when ``F(w_best) − bound ≤ tol · F(w_best)``, a
      certified relative gap. Its rounds grow with the data (127 at 200 queries × 100 documents,
      276 at 2,000: 152 s for 8 million pairs), so large problems use instead. The model keeps at
      most ``MAX_CUTS`` cuts: beyond that, the cuts with the largest dual weights stay and the rest
      are replaced by their aggregate ``Σ α_k (a_k, b_k) / Σ α_k`` (a valid cut that keeps the
      model's last minimiser, so the bound never decreases), so a round costs a bounded QP even on
      badly scaled data, where the rounds run to ``max_iter`` (LETOR 3.0 OHSUMED uses at most 97).
    - hinge, ``solver="smoothed_newton"`` (``"auto"`` from ``AUTO_NEWTON_PAIRS`` pairs): Newton on
      Huber-smoothed hinges whose width μ shrinks, each solve warm-started from the last; the
      smoothed gradient gives dual variables ``α_p = C h_μ'(z_p) ∈ [0, C]``, so the same certified
      stop (:func:`_smoothed_newton`). On small data, where the pairs on the margin are a large share,
      its smoothing error shrinks only as μ and the cutting plane is faster.
    - squared hinge: truncated Newton (Chapelle & Keerthi 2010, PRSVM) by SciPy's ``trust-ncg`` with
      the Hessian products above, to a gradient norm of ``tol`` times the initial one.

    Kernel ``"rbf"``/``"poly"``: the dual over the explicit pairs, ``f(x) = Σ_d β_d K(x_d, x)``, by
    :func:`ordrank.algorithms.ranking.ranksvm_dual.fit_ranksvm_dual` (small data only).

    Every solver stops within ``max_iter`` iterations (Newton steps or μ rounds for the smoothed
    Newton, cutting-plane rounds, trust-region steps, interior-point steps for the kernel dual) and
    warns (ConvergenceWarning) when it stops short of ``tol`` (the kernel dual: when its solver ends
    "optimal_inaccurate"; without any optimum it raises FitFailed). A problem whose magnitudes would
    overflow float64 (``C · pairs · max|x| · √d``, or ``C · pairs · max|K|`` for a kernel, above
    1e150) is refused with a ValueError naming that scale rather than fitted to an all-zero model.

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
        "solver": [StrOptions({"auto", "cutting_plane", "smoothed_newton"})],
    }

    def __init__(self, C=1.0, *, loss="hinge", tol=1e-5, max_iter=1000, kernel="linear",
                 gamma=None, degree=3, coef0=1.0, solver="auto"):
        self.C = C
        self.loss = loss
        self.tol = tol
        self.max_iter = max_iter
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, qid=None):
        X, y, qid = self._validate_queries(X, y, qid)
        self.n_pairs_ = count_pairs(y, qid)
        if self.n_pairs_ == 0:
            raise ValueError(f"{type(self).__name__}: no preference pair (n_samples={len(y)}): within "
                             "every query all rows have the same label, so there is nothing to rank")
        if self.kernel != "linear":
            return self._fit_kernel(X, y, qid)
        _check_scale(self, max_abs(X) * np.sqrt(X.shape[1]), "C · pairs · max|x| · √n_features", X)
        problem = _Problem(X, y, qid, self.C, self.loss)
        if self.loss == "hinge":
            # its products are memory-bound matrix-vector ones: BLAS threads gain little and, on a
            # loaded machine, each call waits for them (measured: 3x slower under load 8 on 2 cores)
            with threadpool_limits(limits=1, user_api="blas"):
                newton = self.solver == "smoothed_newton" or (
                    self.solver == "auto" and self.n_pairs_ >= AUTO_NEWTON_PAIRS)
                solve = _smoothed_newton if newton else _cutting_plane
                w, self.n_iter_, self.gap_ = solve(problem, self.tol, self.max_iter)
            if self.gap_ > self.tol:
                warn_not_converged(type(self).__name__, self.max_iter, f"with a certified relative gap "
                                   f"of {self.gap_:.2g} > tol={self.tol:g}")
        else:
            w, self.n_iter_, gradient = _newton(problem, self.tol, self.max_iter)
            if gradient is not None:
                warn_not_converged(type(self).__name__, self.max_iter, f"with a gradient norm of "
                                   f"{gradient:.2g} times the initial one, above tol={self.tol:g}")
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
        with np.errstate(over="ignore", invalid="ignore"):  # refused just below, by name
            K = self._kernel(X, X)
        if not np.all(np.isfinite(K)):
            raise ValueError(f"{type(self).__name__}: the {self.kernel} kernel matrix overflows float64 "
                             f"(max|x| = {max_abs(X):.3g}, gamma={self.gamma}, degree={self.degree}); "
                             "rescale X (e.g. StandardScaler) or lower gamma")
        _check_scale(self, max_abs(K), "C · pairs · max|K|", X)
        dual = fit_ranksvm_dual(K, pairs_i, pairs_j, self.C, loss=self.loss, tol=self.tol,
                                max_iter=self.max_iter)
        self.X_fit_, self.dual_coef_ = X, np.asarray(dual.beta, dtype=np.float64)
        self.alpha_, self.status_, self.n_iter_ = dual.alpha, dual.status, dual.n_iter
        if dual.status != "optimal":
            warn_not_converged(type(self).__name__, self.max_iter, f"or the kernel dual's solver "
                               f"stopped inaccurate (status {dual.status!r} after {dual.n_iter} "
                               "iterations)")
        scores = K @ self.dual_coef_
        margins = 1.0 - (scores[pairs_i] - scores[pairs_j])
        slack = np.maximum(margins, 0.0) ** (1 if self.loss == "hinge" else 2)
        self.objective_ = 0.5 * float(self.dual_coef_ @ scores) + self.C * float(slack.sum())
        return self

    def _scores(self, X):
        if self.kernel == "linear":
            return X @ self.coef_
        return self._kernel(X, self.X_fit_) @ self.dual_coef_


def _check_scale(model, magnitude, what, X):
    """:func:`~._base.check_scale` of ``C · pairs · magnitude`` (``magnitude`` = max|x|·√d or max|K|)."""
    scale = model.C * model.n_pairs_ * magnitude
    check_scale(type(model).__name__, scale, f"{what} (C={model.C:g}, {model.n_pairs_} pairs, "
                f"max|x| = {max_abs(X):.3g})", "rescale X (e.g. StandardScaler) or lower C")


class _Counts(NamedTuple):
    lower_count: np.ndarray
    upper_count: np.ndarray


class _Problem:
    """The primal objective of a linear RankSVM, by sweeps over sorted scores."""

    def __init__(self, X, y, qid, C, loss, groups=1):
        self.X, self.C, self.squared = X, C, loss == "squared_hinge"
        self.ranks, self.n_levels = dense_ranks(y)
        self.qindex = query_index(qid)
        self.n_pairs = count_pairs(y, qid)
        # the queries in `groups` runs of about equal rows: one risk term (and cut) per run
        offsets = query_offsets(qid)
        wanted = np.searchsorted(offsets, np.linspace(0, len(y), min(groups, len(offsets) - 1) + 1))
        self.starts = np.unique(offsets[np.clip(wanted, 0, len(offsets) - 1)])[:-1]
        # few pairs per row (small queries): the hinge's counts from the explicit pairs, same counts
        few = not self.squared and self.n_pairs <= len(y) * self.n_levels
        self.pairs = preference_pairs(y, qid) if few else None

    def sweep(self, s):
        if self.pairs is not None:
            return _Counts(*pair_counts(s, 1.0, *self.pairs, len(s)))
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


def _cutting_plane(problem: _Problem, tol: float, max_iter: int, patience: int = 8):
    """OCAS for the hinge: returns ``(w, iterations, certified relative gap)``.

    Every point where the risk is evaluated (the cut point and each line-search point) adds its cut.
    """
    X, C = problem.X, problem.C
    d = X.shape[1]
    w_best, s_best = np.zeros(d), np.zeros(X.shape[0])
    cuts_a, cuts_b, cuts_g = [], [], []
    cuts = (cuts_a, cuts_b, cuts_g)
    f_best, diff_best = _evaluate(problem, w_best, s_best, cuts)
    bound, idle = 0.0, np.zeros(0, dtype=np.int64)
    for iteration in range(1, max_iter + 1):
        # cuts unused by the model for `patience` rounds are dropped (the bound stays valid)
        idle = np.r_[idle, np.zeros(len(cuts_a) - len(idle), dtype=np.int64)]
        keep = idle <= patience
        cuts_a[:] = [a for a, k in zip(cuts_a, keep) if k]
        cuts_b[:] = [b for b, k in zip(cuts_b, keep) if k]
        cuts_g[:] = [g for g, k in zip(cuts_g, keep) if k]
        A, b = np.asarray(cuts_a), np.asarray(cuts_b)
        alpha = _simplex_qp(A @ A.T, b, np.asarray(cuts_g), len(problem.starts))
        idle = np.where(alpha > 1e-9 * max(alpha.max(), 1e-300), 0, idle[keep] + 1)
        w_model = A.T @ alpha
        bound = max(bound, float(alpha @ b) - 0.5 * float(w_model @ w_model))
        if len(cuts_a) > MAX_CUTS:
            idle = _aggregate(cuts, alpha, idle, len(problem.starts))
        if f_best - bound <= tol * f_best:
            break
        w_best, s_best, f_best, diff_best = _line_search(
            problem, w_best, s_best, f_best, diff_best, w_model, cuts)
        if f_best - bound <= tol * f_best:
            break
        w_cut = 0.9 * w_best + 0.1 * w_model
        _evaluate(problem, w_cut, X @ w_cut, cuts)
    return w_best, iteration, (f_best - bound) / f_best


def _aggregate(cuts, alpha, idle, n_groups):
    """Keep the ``MAX_CUTS`` cuts of largest weight α and replace the others, per group, by their
    aggregate ``Σ α_k (a_k, b_k) / Σ α_k``: a convex combination of valid cuts is valid, and with it
    the last model minimiser stays feasible (the bound cannot decrease). Returns the new ``idle``."""
    cuts_a, cuts_b, cuts_g = cuts
    order = np.argsort(-alpha, kind="stable")
    kept, dropped = np.sort(order[:MAX_CUTS]), order[MAX_CUTS:]
    groups = np.asarray(cuts_g)
    extra_a, extra_b, extra_g = [], [], []
    for g in range(n_groups):
        mine = dropped[groups[dropped] == g]
        weight = float(alpha[mine].sum())
        if weight > 0:
            extra_a.append(np.asarray(cuts_a)[mine].T @ alpha[mine] / weight)
            extra_b.append(float(np.asarray(cuts_b)[mine] @ alpha[mine]) / weight)
            extra_g.append(g)
    cuts_a[:] = [cuts_a[k] for k in kept] + extra_a
    cuts_b[:] = [cuts_b[k] for k in kept] + extra_b
    cuts_g[:] = [cuts_g[k] for k in kept] + extra_g
    return np.r_[idle[kept], np.zeros(len(extra_g), dtype=np.int64)]


def _evaluate(problem: _Problem, w, s, cuts):
    """``F(w)`` and the active-pair counts ``e − c`` at ``s = Xw``; appends the cuts of the risk there,
    one per group g of queries: ``R_g(v) ≥ b − a·v`` with ``a = C X_gᵀ(e − c)_g``, ``b = C Σ_g c_j``."""
    sweep = problem.sweep(s)
    diff = sweep.upper_count - sweep.lower_count
    bounds = np.r_[problem.starts, len(s)]
    counts = np.add.reduceat(sweep.lower_count, problem.starts)
    for g, (start, stop) in enumerate(zip(bounds[:-1], bounds[1:])):
        cuts[0].append(problem.C * (problem.X[start:stop].T @ diff[start:stop]))
        cuts[1].append(problem.C * float(counts[g]))
        cuts[2].append(g)
    return 0.5 * float(w @ w) + problem.C * problem.loss(s, sweep), diff


def _simplex_qp(G, b, group, n_groups):
    """``max αᵀb − ½ αᵀGα`` over ``α ≥ 0`` and ``Σ α ≤ 1`` over the cuts of each group (Clarabel):
    the dual of the cutting-plane model ``½‖w‖² + Σ_g max_k(b_gk − a_gk·w)⁺``."""
    k = len(b)
    scale = max(float(np.max(np.abs(np.diag(G)))), float(np.max(np.abs(b))), 1.0)
    P = sparse.csc_matrix(np.triu(G / scale))
    A = sparse.csc_matrix(np.vstack([-np.eye(k), (group[None, :] == np.arange(n_groups)[:, None])]))
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = 1e-11
    solver = clarabel.DefaultSolver(P, -b / scale, A, np.r_[np.zeros(k), np.ones(n_groups)],
                                    [clarabel.NonnegativeConeT(k + n_groups)], settings)
    alpha = np.clip(np.asarray(solver.solve().x), 0.0, None)
    total = np.bincount(group, alpha, n_groups)  # feasible whatever the solver's accuracy
    return alpha / np.maximum(total, 1.0)[group]


def _line_search(problem: _Problem, w, s, f, diff, w_model, cuts, steps: int = 1):
    """The best of ``w + t(w_model − w)``, t ≥ 0: the convex φ(t) minimised (roughly: a few steps
    of a safeguarded secant) on its slope ``φ'(t) = w(t)·δ − C (e − c)·Xδ``. Never worse than w."""
    delta = w_model - w
    s_delta = problem.X @ delta
    C = problem.C

    def phi(t):
        wt, st = w + t * delta, s + t * s_delta
        value, diff_t = _evaluate(problem, wt, st, cuts)
        return value, float(wt @ delta) - C * float(diff_t @ s_delta), diff_t

    best = (f, 0.0, diff)
    lo, slope_lo, hi = 0.0, float(w @ delta) - C * float(diff @ s_delta), 1.0
    value_hi, slope_hi, diff_hi = phi(hi)
    best = min(best, (value_hi, hi, diff_hi), key=lambda b: b[0])
    while slope_hi < 0 and hi < 1e6:  # the minimum lies beyond w_model
        lo, slope_lo, hi = hi, slope_hi, 2 * hi
        value_hi, slope_hi, diff_hi = phi(hi)
        best = min(best, (value_hi, hi, diff_hi), key=lambda b: b[0])
    if slope_lo < 0:
        for _ in range(steps):
            t = lo - slope_lo * (hi - lo) / (slope_hi - slope_lo) if slope_hi > slope_lo else lo
            t = min(max(t, lo + 1e-3 * (hi - lo)), hi - 1e-3 * (hi - lo))
            value, slope, diff_t = phi(t)
            best = min(best, (value, t, diff_t), key=lambda b: b[0])
            if slope < 0:
                lo, slope_lo = t, slope
            else:
                hi, slope_hi = t, slope
            if hi - lo <= 1e-9 * hi:
                break
    value, t, diff_t = best
    return w + t * delta, s + t * s_delta, value, diff_t


def _smoothed_newton(problem: _Problem, tol: float, max_iter: int, mu: float = 0.1):
    """The hinge by Newton steps on Huber-smoothed hinges of shrinking width μ (Chapelle 2007,
    "Training a support vector machine in the primal", §4): ``(w, iterations, certified relative gap)``.

    ``h_μ(z) = 0 (z ≤ 0), z²/2μ (0 < z ≤ μ), z − μ/2 (z > μ)``; the pairs split into the linear part
    L (``z > μ``: active at margin 1 − μ) and the quadratic window Q (``0 < z ≤ μ``: active at margin
    1, not at 1 − μ), each by its own :class:`~._pairwise.MarginSweep`. At any w, ``α_p = C h_μ'(z_p)``
    ∈ [0, C] is feasible for the RankSVM dual ``D(α) = Σ α_p − ½‖Σ α_p d_p‖²``, so ``F(w) − D(α)`` is a
    certified gap: it is ``½‖∇F_μ(w)‖² + C Σ_Q z(1 − z/μ)`` and shrinks with μ² once the Newton solve
    (inexact Newton: SciPy's CG on the generalized Hessian, Armijo line search) is accurate. The fit
    stops at ``F − D ≤ tol · F``.
    """
    X, C = problem.X, problem.C
    cache = {}

    def state(w, mu):
        if cache.get("mu") != mu or not np.array_equal(cache["w"], w):
            s = X @ w
            sweeps = [MarginSweep(s, margin, problem.ranks, problem.n_levels, problem.qindex)
                      for margin in (1.0, 1.0 - mu)]
            outer, inner = sweeps  # the window's counts: active at margin 1, not at 1 − μ
            window = (outer.lower_count - inner.lower_count, outer.upper_count - inner.upper_count)
            cache.update(mu=mu, w=w.copy(), s=s, sweeps=sweeps, window=window)
        return cache["s"], cache["sweeps"], cache["window"]

    def window_sums(sweeps, v):  # (below, above) over the window Q = active at 1, not at 1 − μ
        (b1, a1), (b2, a2) = (sweep.partner_sums(v) for sweep in sweeps)
        return b1 - b2, a1 - a2

    def parts(w, mu):
        """F_μ(w), ∇F_μ(w), F(w) and the dual value D at α = C h_μ'(z)."""
        s, sweeps, (c_win, e_win) = state(w, mu)
        c_lin, e_lin = sweeps[1].lower_count, sweeps[1].upper_count
        below, above = window_sums(sweeps, s)
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

    def hessp(w, v, mu):
        _, sweeps, (c_win, e_win) = state(w, mu)
        u = X @ v
        below, above = window_sums(sweeps, u)
        return v + (C / mu) * (X.T @ ((c_win + e_win) * u - below - above))

    def newton(w, mu, gtol, budget):
        """Inexact Newton steps (CG on the generalized Hessian) with a backtracking line search:
        robust on this piecewise-quadratic F_μ, where trust-region steps stall on small data."""
        value, gradient = parts(w, mu)[:2]
        for step in range(budget):
            norm = float(np.linalg.norm(gradient))
            if norm <= gtol:
                return w, step
            H = LinearOperator((len(w), len(w)), matvec=lambda v: hessp(w, v, mu), dtype=np.float64)
            direction, _ = cg(H, -gradient, rtol=min(0.1, np.sqrt(norm / (norm + 1.0))),
                              maxiter=max(2 * len(w), 20))
            slope, t = float(gradient @ direction), 1.0
            if slope >= 0:  # CG gave no descent (round-off): a gradient step instead
                direction, slope = -gradient, -norm ** 2
            while True:  # Armijo, halving with a quadratic-interpolation guess
                trial, trial_gradient = parts(w + t * direction, mu)[:2]
                if trial <= value + 1e-4 * t * slope or t < 1e-10:
                    break
                guess = -slope * t * t / (2.0 * (trial - value - slope * t))
                t = float(np.clip(guess, 0.1 * t, 0.5 * t))
            w, value, gradient = w + t * direction, trial, trial_gradient
        return w, budget

    w, iterations = np.zeros(X.shape[1]), 0
    value = problem.value(w)
    while True:
        # ½‖∇F_μ‖² ≤ tol·F/4: the Newton solve's share of the gap
        w, steps = newton(w, mu, np.sqrt(0.5 * tol * value), max(max_iter - iterations, 1))
        iterations += max(steps, 1)  # a μ round without a Newton step counts: the loop must end
        _, _, value, dual, smoothing = parts(w, mu)
        if value - dual <= tol * value or iterations >= max_iter:
            break
        # the smoothing's share (C Σ_Q z(1 − z/μ)) shrinks about as μ²: aim it at tol·F/2
        shrink = np.sqrt(tol * value / (2.0 * smoothing)) if smoothing > 0 else 0.5
        mu *= float(np.clip(shrink, 0.1, 0.5))
    return w, iterations, (value - dual) / value


def _newton(problem: _Problem, tol: float, max_iter: int):
    """Truncated Newton for the squared hinge: ``(w, iterations, None)``, or the final gradient norm
    in place of None when it stopped short of ``tol`` (the caller warns)."""
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
    norm = float(np.linalg.norm(result.jac))
    return result.x, int(result.nit), None if norm <= gtol else norm / max(gtol / tol, 1.0)
