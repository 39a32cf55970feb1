r"""SVOR's dual, its parts: the index maps of the dual variables :math:`g_{ij}`, the dual as one
cvxpy problem (C a ``cp.Parameter``, the kernel term exact or through a low-rank factor), what SMO
and the interior point keep of a training set, the solve by either, and the warning of a fit short
of the optimum. The estimator and the math: :mod:`ordrank.algorithms.batch.svor`.
"""
from __future__ import annotations

import threading
from typing import NamedTuple

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ordrank.algorithms.qp import cache, factor
from ordrank.algorithms.qp.ipm import ipm_solve, ordering
from ordrank.algorithms.qp.smo import smo_solve


class Maps:
    """The dual's index maps: variable m is g_{i[m], j[m]} with label s[m]; ``offset[m]`` is how
    many thresholds lie between j[m] and example i[m]'s own two, y − 1 and y (0 for those)."""

    def __init__(self, ranks, k, constraints):
        n = len(ranks)
        j, i = np.tile(np.arange(1, k), n), np.repeat(np.arange(n), k - 1)
        if constraints == "explicit":  # only the thresholds y−1 and y next to each example
            keep = (j == ranks[i] - 1) | (j == ranks[i])
            i, j = i[keep], j[keep]
        self.i, self.j, self.s, self.k = i, j, np.where(ranks[i] > j, 1.0, -1.0), k
        self.offset = np.where(j >= ranks[i], j - ranks[i], ranks[i] - 1 - j)
        self.ranks, self.n, self.constraints = ranks, n, constraints

    def beta(self, g):
        r""":math:`\beta_i = \sum_j s_{ij} g_{ij}`, shape (n,)."""
        return np.bincount(self.i, self.s * g, minlength=self.n)


class Dual(Maps):
    """The dual of one (training set, kernel, variant) as a cvxpy problem, and its index maps."""

    def __init__(self, K, K_qp, ranks, k, constraints, jitter=0.0):
        super().__init__(ranks, k, constraints)
        n = len(ranks)
        self.K = jittered(K, jitter)  # the Gram matrix of f on the training rows
        L = factor.low_rank_factor(K_qp)  # ≈ LLᵀ (of K_qp without the jitter), or None
        self.rank = None if L is None else L.shape[1]
        self.size = n * n if L is None else n * (L.shape[1] + n // 20)  # ~ bytes / 150
        i, j = self.i, self.j
        m = len(i)
        S = sp.csr_matrix((self.s, (i, np.arange(m))), shape=(n, m))  # β = S g
        T = sp.csr_matrix((self.s, (j - 1, np.arange(m))), shape=(k - 1, m))  # Σ_i s g, per j
        self.C = cp.Parameter(nonneg=True, value=1.0)
        self.g, beta = cp.Variable(m), cp.Variable(n)
        sums, self.nu = T @ self.g, None
        if constraints == "explicit" and k > 2:
            self.nu = cp.Variable(k - 2, nonneg=True)
            sums = sums - ordering(k) @ self.nu  # Σ_i s_ij g_ij = ν_{j−1} − ν_j
        quad, extra = factor.kernel_term(beta, jittered(K_qp, jitter) if L is None else K_qp, L)
        if L is not None and jitter:  # βᵀ(LLᵀ + εI)β = ‖u‖² + ε‖β‖²
            quad = quad + jitter * cp.sum_squares(beta)
        cons = [beta == S @ self.g, sums == 0, self.g >= 0, self.g <= self.C, *extra]
        self.problem = cp.Problem(cp.Minimize(0.5 * quad - cp.sum(self.g)), cons)
        self.lock = threading.Lock()


def jittered(K, jitter):
    """K + jitter · I (a copy; K itself where jitter is 0)."""
    if not jitter:
        return K
    K = K.copy()
    K[np.diag_indices_from(K)] += jitter
    return K


def compiled(X, ranks, key_params, build):
    """The cached problem of these training rows and ranks (:mod:`ordrank.algorithms.qp.cache`)."""
    return cache.cached((X, np.asarray(ranks, dtype=np.int64)), key_params, build)


class Gram:
    """What SMO and the interior point keep of one training set: the index maps, K (the training
    scores' kernel) and K_qp (the quadratic term's), both with the jitter."""

    def __init__(self, K, K_qp, ranks, k, constraints, jitter=0.0):
        self.maps = Maps(ranks, k, constraints)
        self.K, self.K_qp = jittered(K, jitter), jittered(K_qp, jitter)
        self.size = len(K) ** 2 // 15  # 8 or 16 bytes per entry, in units of ~150 bytes


def smo_budget(n):
    """The pair steps ``solver="auto"`` gives SMO on n training rows before it turns to the IPM:
    3000 + n² / 150, about what one IPM solve costs (its n × n factorizations against SMO steps
    of order n operations; fitted to the break-even points measured in docs/svor_solver.md, "The
    default")."""
    return 3000 + n * n // 150


class Solved(NamedTuple):
    """A structured solve: g, ν, the status ("optimal", or "max_iter" where SMO stopped at its
    iteration limit), the iterations, the solver that ran and, for SMO, its KKT violation at g
    (the largest :math:`e_b - e_a` of an allowed pair; converged: ≤ 2 tol)."""
    g: np.ndarray
    nu: np.ndarray | None
    status: str
    n_iter: int
    solver: str
    violation: float | None = None


def solve_structured(solver, gram, C, tol, max_iter) -> Solved | None:
    """The dual of ``gram`` (a :class:`Gram`) by "SMO", "IPM" or "auto": SMO for at most
    :func:`smo_budget` steps, the IPM (with ``max_iter``) where SMO has not converged by then.

    None where the IPM stops short (its limit, or a factorization that fails): the caller then
    solves the full problem with Clarabel. SMO at its own limit returns its point, status
    "max_iter"."""
    if solver == "auto":
        g, nu, steps, converged, violation = smo_solve(gram.K_qp, gram.maps, C, tol,
                                                       smo_budget(len(gram.K)))
        if converged:
            return Solved(g, nu, "optimal", steps, "SMO", violation)
        solver = "IPM"
    if solver == "SMO":
        g, nu, steps, converged, violation = smo_solve(gram.K_qp, gram.maps, C, tol, max_iter)
        return Solved(g, nu, "optimal" if converged else "max_iter", steps, "SMO", violation)
    g, nu, steps, converged = ipm_solve(gram.K_qp, gram.maps, C, tol, max_iter)
    return Solved(g, nu, "optimal", steps, "IPM") if converged else None


def short_of_optimum(model, what, violation, K):
    """The ConvergenceWarning of a fitted :class:`~ordrank.algorithms.batch.svor.SVOR` whose
    ``status_`` is not "optimal": why, how far (its duality gap) and the fix."""
    gap = (f"duality gap {model.duality_gap_:.3g}: the objective {model.objective_:.6g} (and "
           "the primal objective of the fitted scores and thresholds) at most that far from "
           "the optimum")
    scale = f"C = {model.C:g} times the kernel's scale (largest K(x, x) {np.max(np.diag(K)):.3g})"
    if model.status_ == "optimal_inaccurate":  # Clarabel's reduced accuracy, yet close
        return f"{what}: status=optimal_inaccurate ({gap})"
    if model.status_ == "inaccurate":
        return (f"{what}: status=inaccurate: {model.solver_} met its stopping rule, but its "
                f"point is far from the optimum, {gap}; {scale} is large: scale the features "
                "or lower C (or tol)")
    return (f"{what}: status=max_iter: SMO stopped at its iteration limit after {model.n_iter_} "
            f"pair steps, short of the optimum: KKT violation {violation:.3g} (converged: at most "
            f"2·tol = {2 * model.tol:g}), {gap}. Use solver='auto' or 'IPM', or scale the "
            f"features or lower C: SMO's steps grow with {scale}")
