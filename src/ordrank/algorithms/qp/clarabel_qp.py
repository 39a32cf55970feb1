r"""The β-form box QP, handed to Clarabel in its standard form or written in cvxpy.

.. math:: \min_{g,\,\beta,\,\nu}\ \tfrac12\beta^\top K\beta + \ell^\top\beta - \mathbf 1^\top g
          + \tfrac\rho2\|g\|^2 \quad\text{s.t.}\quad \beta = Sg + \beta^{fixed},\quad
          Tg - D\nu = -\text{sums}^{fixed},\quad 0 \le g \le C,\quad \nu \ge 0

with one variable :math:`g_m` per (example, threshold) of SVOR or per preference pair of RankSVM,
:math:`S` sparse (β's definition: SVOR's :math:`s_{ij}` in row i; RankSVM's :math:`e_i - e_j`),
:math:`T` the balance rows (SVOR's :math:`\sum_i s_{ij} g_{ij}` per threshold, the multipliers
being the thresholds; none for RankSVM), :math:`D` the SVOREX ordering terms
:math:`(D\nu)_j = \nu_{j-1} - \nu_j` (``ordered``), :math:`C = \infty` for no upper bound and
:math:`\rho > 0` for a squared hinge. ``L`` replaces :math:`K` by the factor :math:`LL^\top`
(:mod:`.factor`). The fixed part (:math:`\ell`, :math:`\beta^{fixed}`,
:math:`\text{sums}^{fixed}`: variables held fixed outside the problem), the balance rows and
:math:`D` served SVOR's working set (removed); the kernel RankSVM's dual, the one caller now,
passes zeros and no balance rows.

:func:`solve_box_qp` is the one entry point: Clarabel in its standard form
(:func:`clarabel_box_qp`, no compilation) for ``solver="CLARABEL"``, else cvxpy
(:func:`cvxpy_box_qp`). To route Clarabel's problems through cvxpy instead (tests, benchmark),
patch this module's ``clarabel_box_qp`` with ``cvxpy_box_qp``.
"""
from __future__ import annotations

from typing import NamedTuple

import clarabel
import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ordrank.algorithms.qp.factor import dense_csc, kernel_term
from ordrank.algorithms.qp.options import ACCEPTED, CLARABEL_STATUS


class BoxQP(NamedTuple):
    """The problem's data (see the module docstring); ``T`` may have no rows."""
    K: np.ndarray           # (e, e), the kernel block of the examples in β
    linear: np.ndarray      # (e,) ℓ
    S: sp.spmatrix          # (e, m)
    fixed_beta: np.ndarray  # (e,)
    T: sp.spmatrix          # (t, m)
    fixed_sums: np.ndarray  # (t,)
    ordered: bool           # ν ≥ 0 with Dν in the balance rows (t − 1 of them)
    C: float                # upper bound; np.inf for none
    ridge: float = 0.0      # ρ
    L: np.ndarray | None = None  # (e, r): K ≈ LLᵀ


def ordering(k):
    """D with :math:`(D\\nu)_j = \\nu_{j-1} - \\nu_j`, the explicit variant's ordering terms."""
    return sp.diags([np.ones(k - 2), -np.ones(k - 2)], [-1, 0], shape=(k - 1, k - 2), format="csc")


def solve_box_qp(qp: BoxQP, solver, opts):
    """Solve ``qp`` with ``solver``: ``(g, ν, multipliers of the balance rows, status,
    iterations)``, the first three None where the status is not accepted."""
    solve = clarabel_box_qp if solver == "CLARABEL" else cvxpy_box_qp
    return solve(qp, solver, opts)


def cvxpy_box_qp(qp: BoxQP, solver, opts):
    """The problem written in cvxpy (compiled anew at each call)."""
    S, T, C = qp.S, qp.T, qp.C
    gw, beta = cp.Variable(S.shape[1]), cp.Variable(S.shape[0])
    sums, nu = T @ gw + qp.fixed_sums, None
    if qp.ordered:
        nu = cp.Variable(T.shape[0] - 1, nonneg=True)
        sums = sums - ordering(T.shape[0] + 1) @ nu
    quad, extra = kernel_term(beta, qp.K, qp.L)
    objective = 0.5 * quad + qp.linear @ beta - cp.sum(gw)
    if qp.ridge:
        objective = objective + 0.5 * qp.ridge * cp.sum_squares(gw)
    balance = sums == 0 if T.shape[0] else None
    cons = [beta == S @ gw + qp.fixed_beta, *([balance] if T.shape[0] else []), gw >= 0,
            *([gw <= C] if np.isfinite(C) else []), *extra]
    problem = cp.Problem(cp.Minimize(objective), cons)
    problem.solve(solver=solver, **{"ignore_dpp": True, **opts})
    if problem.status not in ACCEPTED or gw.value is None:
        return None, None, None, problem.status, problem.solver_stats.num_iters or 0
    b = -balance.dual_value if T.shape[0] else np.zeros(0)
    return (gw.value, None if nu is None else nu.value, b, problem.status,
            problem.solver_stats.num_iters or 0)


def clarabel_box_qp(qp: BoxQP, solver, opts):
    r"""The problem in Clarabel's standard form,
    :math:`\min \tfrac12 x^\top Px + q^\top x` subject to :math:`Ax + s = b`,
    :math:`s \in \{0\}^{e + t (+ r')} \times \mathbb{R}_+^{m (+ m) + (t - 1)}`, with
    :math:`x = (g, \beta, \nu, u)`: rows :math:`Sg - \beta = -\beta^{fixed}` (β's definition),
    :math:`Tg - D\nu = -\text{sums}^{fixed}` (the balance), :math:`u - L^\top\beta = 0` (with the
    factor), then :math:`g \ge 0`, :math:`g \le C` (finite C), :math:`\nu \ge 0`. Built here
    because cvxpy's compilation (~6 ms) costs more than solving a small problem (~1 ms)."""
    S, T, C, L = qp.S, qp.T, qp.C, qp.L
    (e, m), t = S.shape, T.shape[0]
    r = t - 1 if qp.ordered else 0
    p = 0 if L is None else L.shape[1]
    bounded = bool(np.isfinite(C))
    Z = sp.csc_matrix
    G = Z((m, m)) if not qp.ridge else qp.ridge * sp.identity(m, format="csc")
    Kb = sp.triu(dense_csc(qp.K)) if L is None else Z((e, e))
    P = sp.block_diag([G, Kb, Z((r, r))] + ([sp.identity(p)] if p else []), format="csc")
    eye = sp.identity(m, format="csc")
    blocks = [[S, -sp.identity(e)]] + ([[T, None]] if t else []) + [[-eye, None]]
    blocks += [[eye, None]] if bounded else []
    if r:
        blocks = [row + [None] for row in blocks] + [[None, None, -sp.identity(r)]]
        blocks[1][2] = -ordering(t + 1)
    if p:
        blocks = [row + [None] for row in blocks]
        factor_row = [None, -sp.csc_matrix(L.T)] + [None] * (r > 0) + [sp.identity(p)]
        blocks.insert(1 + (t > 0), factor_row)
    A = sp.bmat(blocks, format="csc")
    q = np.concatenate([-np.ones(m), qp.linear, np.zeros(r + p)])
    b = np.concatenate([-qp.fixed_beta, -qp.fixed_sums, np.zeros(p), np.zeros(m),
                        np.full(m if bounded else 0, C), np.zeros(r)])
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    for key, value in opts.items():
        if key != "warm_start":  # cvxpy's keyword
            setattr(settings, key, value)
    cones = [clarabel.ZeroConeT(e + t + p), clarabel.NonnegativeConeT((1 + bounded) * m + r)]
    solution = clarabel.DefaultSolver(P, q, A, b, cones, settings).solve()
    status = CLARABEL_STATUS.get(str(solution.status), str(solution.status))
    if status not in ACCEPTED:
        return None, None, None, status, solution.iterations
    x, z = np.asarray(solution.x), np.asarray(solution.z)
    return x[:m], x[m + e:m + e + r] if r else None, -z[e:e + t], status, solution.iterations
