r"""The linear RankSVM's Newton solvers on the primal (:class:`~ordrank.algorithms.ranking.ranksvm_primal._Problem`):
truncated Newton on the squared hinge, and Newton on Huber-smoothed hinges of shrinking width μ for
the hinge (whose smoothed gradient gives a dual-feasible point, so it stops on a certified gap).
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.optimize import minimize
from scipy.sparse.linalg import LinearOperator, cg

from ordrank.algorithms.ranking._pairwise import MarginSweep
from ordrank.algorithms.ranking._products import matvec, rmatvec, weighted_gram
from ordrank.algorithms.ranking.ranksvm_primal import _Problem


def _smoothed_newton(problem: _Problem, tol: float, max_iter: int, mu: float = 0.1, precondition: bool = False):
    """The hinge by Newton steps on Huber-smoothed hinges of shrinking width μ (Chapelle 2007,
    "Training a support vector machine in the primal", §4): ``(w, iterations, certified relative gap)``.

    ``h_μ(z) = 0 (z ≤ 0), z²/2μ (0 < z ≤ μ), z − μ/2 (z > μ)``; the pairs split into the linear part
    L (``z > μ``: active at margin 1 − μ) and the quadratic window Q (``0 < z ≤ μ``: active at margin
    1, not at 1 − μ), each by its own :class:`~._pairwise.MarginSweep`. At any w, ``α_p = C h_μ'(z_p)``
    ∈ [0, C] is feasible for the RankSVM dual ``D(α) = Σ α_p − ½‖Σ α_p d_p‖²``, so ``F(w) − D(α)`` is a
    certified gap: it is ``½‖∇F_μ(w)‖² + C Σ_Q z(1 − z/μ)`` and shrinks with μ² once the Newton solve
    (inexact Newton: SciPy's CG on the generalized Hessian, Armijo line search) is accurate. The fit
    stops at ``F − D ≤ tol · F``.

    With ``precondition`` (RankSVM sets it when ``C · d · max|x|² > ILL_CONDITIONED``: raw features,
    columns on scales from 1e-3 to 1e6), three changes that leave the problem, its optimum and the
    stopping rule as they are:

    - μ starts at 1, not 0.1: at w = 0 every pair has z = 1, inside the window ``0 < z ≤ 1``, so the
      first Newton step sees the whole pairwise Hessian. From a window that is empty at w = 0
      (μ < 1) the first step is a gradient step whose length the line search must find across the
      features' scales, and the steps after it are damped (t < 1) while the window fills.
    - CG is preconditioned by ``M = I + (C/μ) X̃ᵀ diag(c + e) X̃``, Cholesky-factored at each Newton
      step, where ``X̃`` is X minus each row's query mean and ``c + e`` the rows' window pair counts:
      for rows of one query, ``Σ_pairs (x_i − x_k)(x_i − x_k)ᵀ`` is ``n_q Σ_i (x_i − x̄)(x_i − x̄)ᵀ``
      when every pair is in the window, so M approximates the Hessian with its scales and its
      correlations between columns (one d × d factorization, ``O(n d²)`` by BLAS, per step).
    - CG's relative tolerance follows Eisenstat and Walker's choice 2,
      ``η_k = 0.9 (‖g_k‖/‖g_{k−1}‖)²`` (at most 0.1, and no smaller than ``gtol / 2‖g_k‖``: no
      more accuracy than the stop ``‖g‖ ≤ gtol`` needs), which depends on the gradient's decrease
      only; the tolerance ``min(0.1, √(‖g‖/(‖g‖ + 1)))`` used otherwise compares the gradient with
      1, so gradients of raw scales (1e7 at w = 0) would keep it at 0.1 and Newton converging
      linearly.

    The Newton step solves the same equation either way, so the solution is the same up to the
    certified gap.
    """
    X, C = problem.X, problem.C
    cache = {}

    def centred():  # X minus each row's query mean (rows of a query are contiguous), computed once
        if "centred" not in cache:
            starts = np.flatnonzero(np.r_[True, problem.qindex[1:] != problem.qindex[:-1]])
            counts = np.diff(np.r_[starts, len(X)])
            means = np.add.reduceat(X, starts, axis=0, dtype=np.float64) / counts[:, None]
            cache["centred"] = (X - np.repeat(means, counts, axis=0)).astype(X.dtype)
        return cache["centred"]

    def preconditioner(w, mu):  # M⁻¹ by the Cholesky factor of I + (C/μ) X̃ᵀ diag(c + e) X̃
        _, _, (c_win, e_win) = state(w, mu)
        factor = cho_factor(np.eye(len(w)) + (C / mu) * weighted_gram(centred(), c_win + e_win))
        return LinearOperator((len(w), len(w)), matvec=lambda v: cho_solve(factor, v), dtype=np.float64)

    def state(w, mu):
        if cache.get("mu") != mu or not np.array_equal(cache["w"], w):
            s = matvec(X, w)
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
        gradient = w + C * rmatvec(X, grad_s)
        v = w - gradient                                                      # Σ α_p d_p
        dual = C * (n_lin + z_win / mu) - 0.5 * float(v @ v)
        return smoothed, gradient, half + C * (z_lin + z_win), dual, C * (z_win - z2_win / mu)

    def hessp(w, v, mu):
        _, sweeps, (c_win, e_win) = state(w, mu)
        u = matvec(X, v)
        below, above = window_sums(sweeps, u)
        return v + (C / mu) * rmatvec(X, (c_win + e_win) * u - below - above)

    def newton(w, mu, gtol, budget):
        """Inexact Newton steps (CG on the generalized Hessian) with a backtracking line search:
        robust on this piecewise-quadratic F_μ, where trust-region steps stall on small data."""
        value, gradient = parts(w, mu)[:2]
        previous = None
        for step in range(budget):
            norm = float(np.linalg.norm(gradient))
            if norm <= gtol:
                return w, step
            H = LinearOperator((len(w), len(w)), matvec=lambda v: hessp(w, v, mu), dtype=np.float64)
            if precondition:  # Eisenstat-Walker choice 2, at most 0.1, no tighter than the stop needs
                eta = 0.1 if previous is None else min(0.1, 0.9 * (norm / previous) ** 2)
                rtol, M, previous = max(eta, 0.5 * gtol / norm), preconditioner(w, mu), norm
            else:
                rtol, M = min(0.1, np.sqrt(norm / (norm + 1.0))), None
            direction, _ = cg(H, -gradient, rtol=rtol, maxiter=max(2 * len(w), 20), M=M)
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
    mu = 1.0 if precondition else mu
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
    """Truncated Newton for the squared hinge (SciPy's ``trust-ncg``, to ``‖∇F‖ ≤ tol · ‖∇F(0)‖``):
    ``(w, iterations, certified relative gap, None)``, or the final gradient norm over the initial
    one in place of None when it stopped short of that (the caller warns).

    The gap: at ``z_p = max(0, 1 − w·d_p)`` the multipliers ``α_p = 2C z_p ≥ 0`` are feasible for the
    dual ``D(α) = Σ α_p − ½‖Σ α_p d_p‖² − Σ α_p²/(4C)``, and ``Σ α_p d_p = w − ∇F(w)``, so
    ``D = 2C Σ z_p − C Σ z_p² − ½‖w − ∇F(w)‖² ≤ F* ≤ F(w)`` (zero at the optimum, where ∇F = 0)."""
    X, C = problem.X, problem.C
    cache = {}

    def state(w):
        if cache.get("w") is None or not np.array_equal(cache["w"], w):
            s = matvec(X, w)
            cache.update(w=w.copy(), s=s, sweep=problem.sweep(s))
        return cache["s"], cache["sweep"]

    def fun(w):
        s, sweep = state(w)
        below, _ = sweep.partner_sums(s)
        c, e = sweep.lower_count, sweep.upper_count
        # d/ds_j = 2 Σ_i (s_j + 1 − s_i) = 2(c_j (s_j+1) − below_j); d/ds_i = −2(above_i − e_i s_i)
        _, above = sweep.partner_sums(s + 1.0)
        grad_s = 2.0 * (c * (s + 1.0) - below) - 2.0 * (above - e * s)
        return 0.5 * float(w @ w) + C * problem.loss(s, sweep), w + C * rmatvec(X, grad_s)

    def hessp(w, v):
        _, sweep = state(w)
        u = matvec(X, v)
        below, above = sweep.partner_sums(u)
        c, e = sweep.lower_count, sweep.upper_count
        return v + 2.0 * C * rmatvec(X, (c + e) * u - below - above)

    w0 = np.zeros(X.shape[1])
    gtol = tol * max(float(np.linalg.norm(fun(w0)[1])), 1.0)
    result = minimize(fun, w0, jac=True, hessp=hessp, method="trust-ncg",
                      options={"gtol": gtol, "maxiter": max_iter})
    w = result.x
    value, gradient = fun(w)
    s, sweep = state(w)
    z_sum = float(sweep.lower_count @ (s + 1.0) - sweep.upper_count @ s)  # Σ z_p over the active pairs
    v = w - gradient
    dual = 2.0 * C * z_sum - (value - 0.5 * float(w @ w)) - 0.5 * float(v @ v)
    norm = float(np.linalg.norm(gradient))
    return w, int(result.nit), (value - dual) / value, None if norm <= gtol else norm / max(gtol / tol, 1.0)
