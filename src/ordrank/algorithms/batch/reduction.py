r"""Reduction-SVM (Li & Lin, NIPS 2006): the reduction to extended binary classification
(:mod:`ordrank.algorithms.batch.extended_binary`, where :class:`OrdinalReduction`, the cost
matrices and the tree and boosting reductions are defined) with an SVM on the extended kernel
:math:`K((x, k), (x', k')) = K(x, x') + [k = k']`.
"""
from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC
from sklearn.utils._param_validation import Interval, StrOptions

from ordrank.algorithms.batch.extended_binary import COSTS, OrdinalReduction
from ordrank.algorithms.qp import cache, smo_reduction
from ordrank.features.kernels import KERNELS, finite_kernel_matrix

SMO_FROM = 20_000  # ReductionSVM(solver="auto"): SMO from this many extended examples (8·m² bytes ≈ 3.2 GB)


def extended_gram(K0: np.ndarray, rows: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Gram matrix K0[i, j] + [k_i = k_j] of extended examples (rows, k) with k sorted ascending.

    Built as a (K−1)×(K−1) tiling of the base kernel plus ones on the diagonal blocks, without
    any n_ext × n_ext temporary beyond the result.
    """
    G = K0[np.ix_(rows, rows)]
    bounds = np.searchsorted(k, np.unique(k), side="left").tolist() + [len(k)]
    for a, b in zip(bounds[:-1], bounds[1:]):
        G[a:b, a:b] += 1.0
    return G


class ReductionSVM(OrdinalReduction):
    r"""Reduction-SVM: LIBSVM's C-SVM (:class:`sklearn.svm.SVC`) on the extended kernel

    .. math:: K\big((x, k), (x', k')\big) = K(x, x') + [k = k'],

    with K Gaussian (``"rbf"``, :math:`\exp(-\gamma\|x-x'\|^2)`) or perceptron
    (:math:`-\|x-x'\|`; ``gamma`` unused), as in the paper's experiments. The extended Gram
    matrix is tiled from the n×n base kernel and passed to SVC as a precomputed kernel: n·(K−1)
    extended examples, so 9000² doubles ≈ 650 MB at n = 1000, K = 10 (fit ≈ 1–3 s, peak ≈ 0.9 GB).
    That grows as (nK)²: 23 GB at the papers' 6,000 rows and 10 ranks. ``solver="smo"`` solves the
    same dual by SMO on the n×n base kernel alone (:mod:`ordrank.algorithms.qp.smo_reduction`: it
    keeps f = K₀β and one sum per question, so memory is n², not (nK)²); ``"auto"`` uses it from
    ``SMO_FROM`` = 20,000 extended examples (a 3.2 GB extended Gram matrix), LIBSVM below.
    The decision is then :math:`g(x, k) = \sum_i a_i K(x, x_i) - \theta_k` (one kernel evaluation
    per training point, not per extended example), and
    :math:`r(x) = 1 + \#\{k : \sum_i a_i K(x, x_i) > \theta_k\}` (L. Li and H.-T. Lin, NIPS 2006;
    the perceptron kernel: H.-T. Lin and L. Li, ECML 2005).

    Parameters
    ----------
    C : float, default=1.0
        SVM penalty (multiplied by each extended example's cost weight).
    kernel : {"rbf", "perceptron", "linear", "poly"}, default="rbf"
        The base kernel K(x, x') (see :mod:`ordrank.features.kernels`).
    gamma : float, default=1.0
        Width of the Gaussian (and scale of "poly").
    cost : {"absolute", "classification"} or array-like of shape (K, K), default="absolute"
        As in :class:`OrdinalReduction`.
    solver : {"auto", "libsvm", "smo"}, default="auto"
        LIBSVM on the precomputed extended kernel, or SMO on the base kernel (above); both stop at
        LIBSVM's criterion with ``tol``.
    tol : float, default=1e-3
        Stopping tolerance on the largest KKT violation (LIBSVM's ``eps``).
    max_iter : int or None, default=None
        Iteration cap (None: LIBSVM's own for "libsvm", max(10⁷, 100·m) for "smo"); stopping
        on it warns (:class:`~sklearn.exceptions.ConvergenceWarning`).

    Attributes
    ----------
    estimator_ : SVC or None
        The fitted precomputed-kernel SVC on the extended examples (None when SMO solved it).
    solver_ : str
        The solver used ("libsvm" or "smo").
    n_iter_ : int
        Iterations of the solver.
    n_extended_ : int
        Number of extended examples used.
    support_x_ : ndarray of shape (n_support, n_features)
        Training points that carry a support vector (for any k).
    dual_coef_ : ndarray of shape (n_support,)
        :math:`a_i`: the signed dual coefficients of each point's support vectors, summed over k.
    thresholds_ : ndarray of shape (n_classes - 1,)
        :math:`\theta_k`; ordered (non-decreasing) exactly when the answers are rank-monotone.
    classes_ : ndarray of shape (n_classes,)
        The labels in rank order.
    """

    _parameter_constraints: dict = {
        "C": [Interval(Real, 0, None, closed="neither")],
        "kernel": [StrOptions(set(KERNELS))],
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "cost": [StrOptions(set(COSTS)), "array-like"],
        "solver": [StrOptions({"auto", "libsvm", "smo"})],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(self, C=1.0, kernel="rbf", gamma=1.0, *, cost="absolute", solver="auto", tol=1e-3,
                 max_iter=None):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.cost = cost
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter

    def _base_kernel(self, X, Y):
        return finite_kernel_matrix(self, X, Y, self.kernel, gamma=self.gamma)  # SVC would say "NaN"

    def _fit_extended(self, X, rows, k, labels, weights):
        self.solver_ = self.solver if self.solver != "auto" else \
            ("smo" if len(rows) >= SMO_FROM else "libsvm")
        if self.solver_ == "smo":
            K0 = self._base_kernel(X, X)
            u, h, bias, self.n_iter_, converged = smo_reduction.smo_solve(
                K0, rows, k, labels, weights, self.C, self.n_ranks_ - 1, self.tol, self.max_iter)
            sv, alpha, intercept, self.estimator_ = np.flatnonzero(u), u[u != 0], bias, None
        else:
            G = cache.reused((X, rows, k), ("extended Gram", self.kernel, self.gamma),
                             lambda: extended_gram(self._base_kernel(X, X), rows, k))
            svc = SVC(C=self.C, kernel="precomputed", tol=self.tol,
                      max_iter=-1 if self.max_iter is None else self.max_iter)
            svc.fit(G, labels, sample_weight=weights)  # at max_iter it warns itself; G unchanged
            del G  # (kept only inside a cache.reuse() scope: model selection)
            converged = True
            sv, alpha, intercept, self.estimator_ = svc.support_, svc.dual_coef_[0], svc.intercept_[0], svc
            self.n_iter_ = int(np.sum(svc.n_iter_))
        if not converged:
            warnings.warn(f"ReductionSVM ({self.solver_}) stopped at max_iter={self.max_iter} before "
                          f"reaching tol={self.tol}", ConvergenceWarning, stacklevel=3)
        used = np.unique(rows[sv])
        self.support_x_ = X[used]
        self.dual_coef_ = np.bincount(rows[sv], weights=alpha, minlength=X.shape[0])[used]
        self.thresholds_ = -(intercept
                             + np.bincount(k[sv] - 1, weights=alpha, minlength=self.n_ranks_ - 1))

    def _extended_decision(self, X):
        f = self._base_kernel(X, self.support_x_) @ self.dual_coef_
        return f[:, None] > self.thresholds_[None, :]

    def _extended_scores(self, X):
        """g(x, k) = f(x) − θ_k: :meth:`decision_function` is (K−1) f(x) − Σ_k θ_k, ordered as f."""
        f = self._base_kernel(X, self.support_x_) @ self.dual_coef_
        return f[:, None] - self.thresholds_[None, :]
