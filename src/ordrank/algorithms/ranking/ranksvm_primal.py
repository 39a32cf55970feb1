r"""The linear RankSVM's primal: the objective by sweeps over sorted scores (never the pairs), and
the cutting plane (Joachims 2006: a bounded model of at most ``MAX_CUTS`` cuts, the rest merged into
one aggregate cut, each round's QP over the simplex solved exactly by an active set warm-started from
the last round's, :mod:`ordrank.algorithms.qp.simplex`). The Newton
solvers: :mod:`~ordrank.algorithms.ranking.ranksvm_newton`. The estimator:
:class:`ordrank.algorithms.ranking.ranksvm.RankSVM`.
"""
from __future__ import annotations

from typing import NamedTuple

import clarabel
import numpy as np
from scipy import sparse

from ordrank.algorithms.qp.simplex import simplex_qp
from ordrank.algorithms.ranking._products import matvec, rmatvec
from ordrank.algorithms.ranking._pairwise import MarginSweep, dense_ranks, margin_counts, pair_counts
from ordrank.queries import count_pairs, preference_pairs, query_index


MAX_CUTS = 200  # the cutting plane's model keeps at most this many cuts (plus their aggregate)


class _Counts(NamedTuple):
    lower_count: np.ndarray
    upper_count: np.ndarray


class _Problem:
    """The primal objective of a linear RankSVM, by sweeps over sorted scores."""

    def __init__(self, X, y, qid, C, loss):
        self.X, self.C, self.squared = X, C, loss == "squared_hinge"
        self.ranks, self.n_levels = dense_ranks(y)
        self.qindex = query_index(qid)
        self.n_pairs = count_pairs(y, qid)
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
        s = matvec(self.X, w)
        return 0.5 * float(w @ w) + self.C * self.loss(s, self.sweep(s))


def _cutting_plane(problem: _Problem, tol: float, max_iter: int, patience: int = 8):
    """OCAS for the hinge: returns ``(w, iterations, certified relative gap)``.

    Every point where the risk is evaluated (the cut point and each line-search point) adds its cut.
    """
    X = problem.X
    d = X.shape[1]
    w_best, s_best = np.zeros(d), np.zeros(X.shape[0])
    cuts_a, cuts_b = [], []
    cuts = (cuts_a, cuts_b)
    f_best, diff_best = _evaluate(problem, w_best, s_best, cuts)
    bound, idle, alpha = 0.0, np.zeros(0, dtype=np.int64), np.zeros(0)
    for iteration in range(1, max_iter + 1):
        # cuts unused by the model for `patience` rounds are dropped (the bound stays valid)
        idle = np.r_[idle, np.zeros(len(cuts_a) - len(idle), dtype=np.int64)]
        keep = idle <= patience
        cuts_a[:] = [a for a, k in zip(cuts_a, keep) if k]
        cuts_b[:] = [b for b, k in zip(cuts_b, keep) if k]
        A, b = np.asarray(cuts_a), np.asarray(cuts_b)
        # the last round's optimum, the new cuts at 0: a feasible start near this round's optimum
        start = np.r_[alpha, np.zeros(len(keep) - len(alpha))][keep]
        alpha = _simplex_qp(A @ A.T, b, start)
        idle = np.where(alpha > 1e-9 * max(alpha.max(), 1e-300), 0, idle[keep] + 1)
        w_model = A.T @ alpha
        bound = max(bound, float(alpha @ b) - 0.5 * float(w_model @ w_model))
        if len(cuts_a) > MAX_CUTS:
            idle, alpha = _aggregate(cuts, alpha, idle)
        if f_best - bound <= tol * f_best:
            break
        w_best, s_best, f_best, diff_best = _line_search(
            problem, w_best, s_best, f_best, diff_best, w_model, cuts)
        if f_best - bound <= tol * f_best:
            break
        w_cut = 0.9 * w_best + 0.1 * w_model
        _evaluate(problem, w_cut, matvec(X, w_cut), cuts)
    return w_best, iteration, (f_best - bound) / f_best


def _aggregate(cuts, alpha, idle):
    """Keep the ``MAX_CUTS`` cuts of largest weight α and replace the others by their aggregate
    ``Σ α_k (a_k, b_k) / Σ α_k``: a convex combination of valid cuts is valid, and with it the last
    model minimiser stays feasible (the bound cannot decrease). Returns the new ``(idle, alpha)``."""
    cuts_a, cuts_b = cuts
    order = np.argsort(-alpha, kind="stable")
    kept, dropped = np.sort(order[:MAX_CUTS]), order[MAX_CUTS:]
    weight = float(alpha[dropped].sum())
    extra_a, extra_b, extra_alpha = [], [], []
    if weight > 0:
        extra_a.append(np.asarray(cuts_a)[dropped].T @ alpha[dropped] / weight)
        extra_b.append(float(np.asarray(cuts_b)[dropped] @ alpha[dropped]) / weight)
        extra_alpha.append(weight)
    cuts_a[:] = [cuts_a[k] for k in kept] + extra_a
    cuts_b[:] = [cuts_b[k] for k in kept] + extra_b
    return np.r_[idle[kept], np.zeros(len(extra_a), dtype=np.int64)], np.r_[alpha[kept], extra_alpha]


def _evaluate(problem: _Problem, w, s, cuts):
    """``F(w)`` and the active-pair counts ``e − c`` at ``s = Xw``; appends the cut of the risk there,
    ``R(v) ≥ b − a·v`` with ``a = C Xᵀ(e − c)``, ``b = C Σ_j c_j`` (exact at w: ``R(w) = b − a·w``)."""
    sweep = problem.sweep(s)
    diff = sweep.upper_count - sweep.lower_count
    cuts[0].append(problem.C * rmatvec(problem.X, diff))
    cuts[1].append(problem.C * float(sweep.lower_count.sum()))
    return 0.5 * float(w @ w) + problem.C * problem.loss(s, sweep), diff


def _simplex_qp(G, b, start=None):
    """``max αᵀb − ½ αᵀGα`` over ``α ≥ 0``, ``Σ α ≤ 1``: the dual of the cutting-plane model
    ``½‖w‖² + max_k(b_k − a_k·w)⁺`` (``G = A Aᵀ``, its minimiser ``w = Aᵀα``). The active set from
    ``start`` (:func:`~ordrank.algorithms.qp.simplex.simplex_qp`, one simplex), else Clarabel from
    scratch."""
    k = len(b)
    alpha = simplex_qp(G, b, start)
    if alpha is not None:
        return alpha
    scale = max(float(np.max(np.abs(np.diag(G)))), float(np.max(np.abs(b))), 1.0)
    P = sparse.csc_matrix(np.triu(G / scale))
    A = sparse.csc_matrix(np.vstack([-np.eye(k), np.ones((1, k))]))
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = 1e-11
    solver = clarabel.DefaultSolver(P, -b / scale, A, np.r_[np.zeros(k), 1.0],
                                    [clarabel.NonnegativeConeT(k + 1)], settings)
    alpha = np.clip(np.asarray(solver.solve().x), 0.0, None)
    return alpha / max(float(alpha.sum()), 1.0)  # feasible whatever the solver's accuracy


def _line_search(problem: _Problem, w, s, f, diff, w_model, cuts, steps: int = 1):
    """The best of ``w + t(w_model − w)``, t ≥ 0: the convex φ(t) minimised (roughly: a few steps
    of a safeguarded secant) on its slope ``φ'(t) = w(t)·δ − C (e − c)·Xδ``. Never worse than w."""
    delta = w_model - w
    s_delta = matvec(problem.X, delta)
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
