r"""The kernel RankSVM dual's box QP in β-form, handed to Clarabel in its standard form, or written
in cvxpy (the oracle the tests compare against).

.. math:: \min_{g,\,\beta}\ \tfrac12\beta^\top K\beta - \mathbf 1^\top g + \tfrac\rho2\|g\|^2
          \quad\text{s.t.}\quad \beta = Sg,\quad 0 \le g \le C

with one variable :math:`g_p` per preference pair, :math:`S` sparse (column p is
:math:`e_i - e_j`), :math:`C = \infty` for no upper bound and :math:`\rho > 0` for a squared
hinge. ``L`` replaces :math:`K` by the factor :math:`LL^\top` (:mod:`.factor`). (SVOR's dual, with
its thresholds' balance rows, is solved by :mod:`.smo`, :mod:`.ipm` and, for the oracle, cvxpy:
:mod:`ordrank.algorithms.batch.svor_dual`.)

:func:`solve_box_qp` is the one entry point: Clarabel in its standard form
(:func:`clarabel_box_qp`, no compilation). To route the problem through cvxpy instead (tests),
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
    """The problem's data (see the module docstring)."""
    K: np.ndarray           # (e, e), the kernel block of the examples in β
    S: sp.spmatrix          # (e, m)
    C: float                # upper bound; np.inf for none
    ridge: float = 0.0      # ρ
    L: np.ndarray | None = None  # (e, r): K ≈ LLᵀ


def solve_box_qp(qp: BoxQP, opts):
    """Solve ``qp`` with Clarabel's ``opts``: ``(g, status, iterations)``, g None where the status is
    not accepted."""
    return clarabel_box_qp(qp, opts)


def cvxpy_box_qp(qp: BoxQP, opts):
    """The problem written in cvxpy (compiled anew at each call), solved by Clarabel."""
    S, C = qp.S, qp.C
    gw, beta = cp.Variable(S.shape[1]), cp.Variable(S.shape[0])
    quad, extra = kernel_term(beta, qp.K, qp.L)
    objective = 0.5 * quad - cp.sum(gw)
    if qp.ridge:
        objective = objective + 0.5 * qp.ridge * cp.sum_squares(gw)
    cons = [beta == S @ gw, gw >= 0, *([gw <= C] if np.isfinite(C) else []), *extra]
    problem = cp.Problem(cp.Minimize(objective), cons)
    problem.solve(solver="CLARABEL", **{"ignore_dpp": True, **opts})
    if problem.status not in ACCEPTED or gw.value is None:
        return None, problem.status, problem.solver_stats.num_iters or 0
    return gw.value, problem.status, problem.solver_stats.num_iters or 0


def clarabel_box_qp(qp: BoxQP, opts):
    r"""The problem in Clarabel's standard form,
    :math:`\min \tfrac12 x^\top Px + q^\top x` subject to :math:`Ax + s = b`,
    :math:`s \in \{0\}^{e (+ r)} \times \mathbb{R}_+^{m (+ m)}`, with :math:`x = (g, \beta, u)`:
    rows :math:`Sg - \beta = 0` (β's definition), :math:`u - L^\top\beta = 0` (with the factor),
    then :math:`g \ge 0`, :math:`g \le C` (finite C). Built here because cvxpy's compilation
    (~6 ms) costs more than solving a small problem (~1 ms)."""
    S, C, L = qp.S, qp.C, qp.L
    e, m = S.shape
    p = 0 if L is None else L.shape[1]
    bounded = bool(np.isfinite(C))
    Z = sp.csc_matrix
    G = Z((m, m)) if not qp.ridge else qp.ridge * sp.identity(m, format="csc")
    Kb = sp.triu(dense_csc(qp.K)) if L is None else Z((e, e))
    P = sp.block_diag([G, Kb] + ([sp.identity(p)] if p else []), format="csc")
    eye = sp.identity(m, format="csc")
    blocks = [[S, -sp.identity(e)], [-eye, None]] + ([[eye, None]] if bounded else [])
    if p:
        blocks = [row + [None] for row in blocks]
        blocks.insert(1, [None, -sp.csc_matrix(L.T), sp.identity(p)])
    A = sp.bmat(blocks, format="csc")
    q = np.concatenate([-np.ones(m), np.zeros(e), np.zeros(p)])
    b = np.concatenate([np.zeros(e + p + m), np.full(m if bounded else 0, C)])
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    for key, value in opts.items():
        if key != "warm_start":  # cvxpy's keyword
            setattr(settings, key, value)
    cones = [clarabel.ZeroConeT(e + p), clarabel.NonnegativeConeT((1 + bounded) * m)]
    solution = clarabel.DefaultSolver(P, q, A, b, cones, settings).solve()
    status = CLARABEL_STATUS.get(str(solution.status), str(solution.status))
    if status not in ACCEPTED:
        return None, status, solution.iterations
    return np.asarray(solution.x)[:m], status, solution.iterations
