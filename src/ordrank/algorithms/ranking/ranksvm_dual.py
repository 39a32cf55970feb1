r"""The kernel RankSVM dual (Herbrich, Graepel & Obermayer 2000; Joachims, KDD 2002), for small data.

Primal (seed 001), one slack per preference pair :math:`p = (i, j)` of a query
(:math:`y_i > y_j`, from :func:`ordrank.queries.preference_pairs`):

.. math:: \min_{\theta,\,\xi}\ \tfrac12\|\theta\|^2 + C\sum_p \ell(\xi_p) \quad\text{s.t.}\quad
          \theta\cdot(\phi(x_i) - \phi(x_j)) \ge 1 - \xi_p,

with :math:`\ell(\xi) = \xi,\ \xi \ge 0` (``loss="hinge"``) or :math:`\ell(\xi) = \xi^2`
(``loss="squared_hinge"``, scikit-learn's LinearSVC convention :math:`C\sum_p \max(0, 1 - m_p)^2`).
With :math:`\alpha_p \ge 0` the multiplier of pair p and :math:`\beta = \sum_p \alpha_p(e_i - e_j)`
(one coefficient per document), stationarity in θ gives :math:`\theta = \sum_d \beta_d\phi(x_d)`,
and the dual, written as a minimization, is

.. math:: \min_\alpha\ \tfrac12\beta^\top K\beta - \textstyle\sum_p \alpha_p
          \;\Big[ + \tfrac1{4C}\textstyle\sum_p \alpha_p^2 \Big], \qquad
          0 \le \alpha_p \le C \ \text{(hinge)}, \quad 0 \le \alpha_p \ \text{(squared hinge)}.

Squared hinge: stationarity in :math:`\xi_p` gives :math:`2C\xi_p = \alpha_p`, and
:math:`C\xi_p^2 - \alpha_p\xi_p = -\alpha_p^2/(4C)` (the bracket, a ridge :math:`\rho = 1/(2C)`
on α). The minimum is minus the primal optimum (strong duality). The score is
:math:`f(x) = \theta\cdot\phi(x) = \sum_d \beta_d K(x_d, x)`; there is no bias (a pairwise loss
cannot see one).

This is SVOR's box QP without thresholds (:mod:`ordrank.algorithms.qp.clarabel_qp`: :math:`S` with
columns :math:`e_i - e_j`, no balance rows), solved with SVOR's parts: only the documents in some
pair enter the kernel block; the kernel term is exact or, where the spectrum decays fast (a linear
kernel on few features), through a pivoted-Cholesky factor (:mod:`ordrank.algorithms.qp.factor`);
Clarabel gets the problem in its standard form (no cvxpy compilation; cvxpy's formulation of it is
the oracle the tests compare against). K must
be PSD; a conditionally PSD kernel (the perceptron kernel) may be centred first, since
:math:`\sum_d \beta_d = 0` (every column of :math:`S` sums to zero) leaves the term unchanged.
One variable per pair: OHSUMED's 9,219 training documents have 367,663 pairs, far too many; the
linear RankSVM never builds them.
"""
from __future__ import annotations

from numbers import Real
from typing import NamedTuple

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ordrank.algorithms._ordinal import FitFailed
from ordrank.algorithms.qp import factor
from ordrank.algorithms.qp.clarabel_qp import BoxQP, solve_box_qp
from ordrank.algorithms.qp.options import ACCEPTED, solver_options

LOSSES = ("hinge", "squared_hinge")


class RankSVMDual(NamedTuple):
    """The dual solution: ``beta`` (n,), the score's coefficients; ``alpha`` (pairs,), the pairs'
    multipliers; the solver's ``status`` ("optimal", or "optimal_inaccurate": within the solver's
    reduced accuracy, also where it stopped at ``max_iter``, so the caller warns naming the limit);
    ``objective``, the dual minimum :math:`\\tfrac12\\beta^\\top K\\beta - \\sum\\alpha
    [+\\sum\\alpha^2/(4C)]` with the exact K (minus the primal optimum); the solver's
    ``n_iter``; ``kernel_rank``, the factor's rank r, or None for the exact kernel term."""
    beta: np.ndarray
    alpha: np.ndarray
    status: str
    objective: float
    n_iter: int
    kernel_rank: int | None


def _checked(K, pairs_i, pairs_j, C, loss, tol):
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"fit_ranksvm_dual: K must be a square (n, n) Gram matrix, got shape "
                         f"{K.shape}")
    if not np.all(np.isfinite(K)):
        raise ValueError("fit_ranksvm_dual: K has non-finite entries")
    pairs = []
    for name, p in (("pairs_i", pairs_i), ("pairs_j", pairs_j)):
        p = np.asarray(p)
        if p.ndim != 1 or (p.size and p.dtype.kind not in "iu"):
            raise ValueError(f"fit_ranksvm_dual: {name} must be a 1-D integer array of row "
                             f"indices, got dtype {p.dtype} and shape {p.shape}")
        bad = np.flatnonzero((p < 0) | (p >= len(K)))
        if bad.size:
            raise ValueError(f"fit_ranksvm_dual: {name}[{bad[0]}] = {p[bad[0]]} is not a row of "
                             f"K (0..{len(K) - 1})")
        pairs.append(p.astype(np.int64))
    if len(pairs[0]) != len(pairs[1]):
        raise ValueError(f"fit_ranksvm_dual: pairs_i has {len(pairs[0])} entries, pairs_j "
                         f"{len(pairs[1])}")
    same = np.flatnonzero(pairs[0] == pairs[1])
    if same.size:
        raise ValueError(f"fit_ranksvm_dual: pair {same[0]} compares row {pairs[0][same[0]]} "
                         "with itself")
    for name, value in (("C", C), ("tol", tol)):
        if not isinstance(value, Real) or not np.isfinite(value) or value <= 0:
            raise ValueError(f"fit_ranksvm_dual: {name} must be a finite number > 0, got "
                             f"{value!r}")
    if loss not in LOSSES:
        raise ValueError(f"fit_ranksvm_dual: loss must be one of {LOSSES}, got {loss!r}")
    return K, pairs[0], pairs[1]


def fit_ranksvm_dual(K, pairs_i, pairs_j, C, *, loss="hinge", tol=1e-6, max_iter=None) -> RankSVMDual:
    """Solve the kernel RankSVM dual (see the module docstring) for the pairs ``(pairs_i[p],
    pairs_j[p])``, document ``pairs_i[p]`` preferred, on the Gram matrix ``K`` (n × n, PSD).

    ``tol`` is the solver's accuracy (:func:`ordrank.algorithms.qp.options.solver_options`: with
    Clarabel a duality gap of tol/100); ``max_iter`` its iteration limit (None: its default).
    Raises :class:`~ordrank.algorithms.FitFailed` naming the status where the solver stops
    without an optimum, ValueError on malformed input. No pairs: β = 0 (optimal).
    """
    K, pi, pj = _checked(K, pairs_i, pairs_j, C, loss, tol)
    n, m, C = len(K), len(pi), float(C)
    if m == 0:
        return RankSVMDual(np.zeros(n), np.zeros(0), "optimal", 0.0, 0, None)
    rows = np.union1d(pi, pj)  # only the documents in some pair enter the kernel block
    loc = np.zeros(n, np.int64)
    loc[rows] = np.arange(len(rows))
    e = len(rows)
    S = sp.csc_matrix((np.r_[np.ones(m), -np.ones(m)], (np.r_[loc[pi], loc[pj]],
                                                        np.r_[np.arange(m), np.arange(m)])),
                      shape=(e, m))
    K_E = K[np.ix_(rows, rows)]
    L = factor.low_rank_factor(K_E)
    hinge = loss == "hinge"
    qp = BoxQP(K=K_E, S=S, C=C if hinge else np.inf, ridge=0.0 if hinge else 1 / (2 * C), L=L)
    what = f"kernel RankSVM dual (loss={loss!r}, C={C}, {m} pairs) with CLARABEL"
    try:  # cvxpy's SolverError: the oracle formulation (tests route it there)
        g, status, iterations = solve_box_qp(
            qp, solver_options(tol, max_iter, factored=L is not None))
    except cp.error.SolverError as exc:
        raise FitFailed(f"{what} failed: status=solver_error ({exc})") from exc
    if status not in ACCEPTED or g is None:
        raise FitFailed(f"{what} did not reach an optimum: status={status}")
    alpha = np.clip(g, 0.0, C if hinge else np.inf)
    beta = np.bincount(pi, alpha, minlength=n) - np.bincount(pj, alpha, minlength=n)
    objective = 0.5 * beta @ K @ beta - alpha.sum() + (0 if hinge else alpha @ alpha / (4 * C))
    return RankSVMDual(beta, alpha, status, float(objective), int(iterations),
                       None if L is None else L.shape[1])
