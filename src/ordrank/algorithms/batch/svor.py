r"""Support vector ordinal regression (Chu & Keerthi, ICML 2005; Neural Computation 19(3), 2007).

One function :math:`f(x) = \sum_i \beta_i K(x_i, x)` and thresholds :math:`b_1 \le \dots \le
b_{k-1}`; the rank is :math:`1 + \#\{j : f(x) > b_j\}`. Example i and threshold j give the label
:math:`s_{ij} = +1` if :math:`y_i > j` else :math:`-1` and the soft constraint
:math:`s_{ij}(f(x_i) - b_j) \ge 1 - \xi_{ij}`, :math:`\xi_{ij} \ge 0`, at cost
:math:`C \sum \xi_{ij}`. Both variants are solved in the dual, one variable
:math:`g_{ij} \in [0, C]` per kept constraint:

.. math:: \min_{g,\,\nu}\ \tfrac12 \beta^\top K \beta - \textstyle\sum g_{ij}, \qquad
          \beta_i = \textstyle\sum_j s_{ij} g_{ij}, \qquad
          \textstyle\sum_i s_{ij} g_{ij} = \nu_{j-1} - \nu_j \quad (j = 1..k-1)

- ``constraints="implicit"`` (SVORIM): every example constrains every threshold; there is no
  :math:`\nu` (:math:`\nu \equiv 0`) and the optimal thresholds are ordered by themselves.
- ``constraints="explicit"`` (SVOREX): example i constrains only its two adjacent thresholds,
  :math:`y_i - 1` (:math:`s = +1`, the papers' :math:`\alpha^*`) and :math:`y_i` (:math:`s = -1`,
  :math:`\alpha`); the ordering :math:`b_j \le b_{j+1}` is a constraint with multiplier
  :math:`\nu_j \ge 0` (:math:`\nu_0 = \nu_{k-1} = 0`).

Thresholds from the KKT conditions (:func:`~ordrank.algorithms.qp.kkt.kkt_thresholds`), with
:math:`e_{ij} = f(x_i) - s_{ij}`: a free :math:`0 < g_{ij} < C` gives :math:`b_j = e_{ij}` (the
mean over the free ones); a bound one only bounds :math:`b_j`; with no free variable :math:`b_j`
is the midpoint of that interval; thresholds tied by an active :math:`\nu_j > 0` are pooled;
``thresholds_`` is always non-decreasing (clipped into the ordered envelope of the intervals), and
a ConvergenceWarning says when that envelope is empty (an inaccurate solution).

The solver (the parts in :mod:`ordrank.algorithms.qp`; measurements and what was tried in
docs/svor_solver.md):

- ``solver="auto"`` (the default, and the sweeps' setting): SMO first, for at most about one
  interior point's cost in pair steps; where it has not converged by then (C times the kernel's
  scale large), the interior point. Either way the same optimum within ``tol`` (``solver_``
  says which); from n = 1000 no slower than the authors' C code in
  ``benchmarks/bench_svor.py --part selection``.
- ``solver="SMO"``: sequential minimal optimization, two variables per step, compiled with numba
  (:mod:`~ordrank.algorithms.qp.smo`); no QP solver. The authors' kind of solver (their C code
  takes the maximal violating pair, this one the second-order pair); its steps grow with C times
  the kernel's scale, and at ``max_iter`` it returns its point with status "max_iter".
- ``solver="IPM"``: a primal-dual interior point written for this dual
  (:mod:`~ordrank.algorithms.qp.ipm`): one n × n Cholesky factorization per Newton step,
  whatever C; Clarabel's full solve where it stops short (its limit or a failed factorization).
- ``solver="CLARABEL"``: the whole dual as one cvxpy problem (the oracle the tests use), C a
  ``cp.Parameter``, kept compiled in :mod:`~ordrank.algorithms.qp.cache` (keyed on the training
  rows and ranks and on everything else that shapes it: the estimator's class, k, kernel and its
  parameters, variant and ``diagonal_jitter``), so a grid over C compiles once per training set;
  the kernel term exact or through a pivoted-Cholesky factor :math:`K \approx LL^\top`
  (:mod:`~ordrank.algorithms.qp.factor`; ``kernel_rank_``).

Every fit reports the duality gap of its point (``duality_gap_``,
:func:`~ordrank.algorithms.qp.kkt.duality_gap`): the primal objective of (β, ``thresholds_``)
plus the dual objective, computed from g alone; ``objective_`` is within it of the optimum.
``status_`` is "optimal" only where the solver met its rule and that gap is not far; a solver
stopped at its iteration limit never says "optimal" (``status_``, below; docs/svor_solver.md).
"""
from __future__ import annotations

import warnings
from numbers import Integral, Real

import cvxpy as cp
import numpy as np
from sklearn.base import _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions

from ordrank.algorithms._ordinal import FitFailed, OrdinalEstimator
from ordrank.algorithms.batch.svor_dual import (Dual, Gram, compiled, short_of_optimum,
                                                solve_structured)
from ordrank.algorithms.qp.kkt import duality_gap, far_from_optimum, kkt_thresholds
from ordrank.algorithms.qp.options import ACCEPTED, solver_options
from ordrank.features.kernels import KERNELS, finite_kernel_matrix


class SVOR(OrdinalEstimator):
    r"""Support vector ordinal regression with implicit (SVORIM) or explicit (SVOREX) constraints.

    The dual solved, how the thresholds are recovered and the solver are in the module docstring.

    Parameters
    ----------
    constraints : {"implicit", "explicit"}, default="implicit"
        Every example constrains every threshold (SVORIM), or only its two adjacent ones, with
        explicit ordering constraints (SVOREX).
    C : float, default=1.0
        Cost of a unit of slack, > 0.
    kernel : {"linear", "rbf", "poly", "perceptron"}, default="rbf"
        See :mod:`ordrank.features.kernels`; rbf is :math:`\exp(-\gamma\|x - x'\|^2)`. The
        perceptron kernel :math:`-\|x - x'\|` is centred in the quadratic form (PSD there; the
        constraints force :math:`\sum_i \beta_i = 0`, so the objective is unchanged).
    gamma : float, default=1.0
        Kernel coefficient of rbf and poly.
    degree : int, default=2
        Degree of poly.
    coef0 : float, default=1.0
        Constant of poly.
    solver : {"auto", "SMO", "IPM", "CLARABEL"}, default="auto"
        "SMO": sequential minimal optimization, compiled with numba
        (:mod:`ordrank.algorithms.qp.smo`; the authors' kind of solver), fastest where most
        variables end at a bound (small C).
        "IPM": an interior point for this dual's structure (:mod:`ordrank.algorithms.qp.ipm`),
        whose cost does not grow with C. "auto": SMO for about one IPM's cost in pair steps
        (:func:`~ordrank.algorithms.batch.svor_dual.smo_budget`), then the IPM; ``max_iter`` is
        the IPM's. "CLARABEL": the cvxpy problem, the oracle. Timings: docs/svor_solver.md.
    tol : float, default=1e-3
        Accuracy. Clarabel: ``tol_gap_abs = tol_gap_rel = tol/100``, ``tol_feas = tol_ktratio =
        tol``; IPM: balance within tol/100, dual residual within tol/10, gap as Clarabel's; SMO:
        no allowed pair's KKT bounds on a threshold cross by more than ``2 tol`` (the C code's
        ``tol``).
    max_iter : int or None, default=None
        The solver's iteration limit (None: its default; IPM's is 100 Newton steps; SMO's is
        LIBSVM's, max(10⁷, 100·m) pair steps for m dual variables; Clarabel's 200).
    diagonal_jitter : float, default=0.0
        :math:`\varepsilon \ge 0` added to the diagonal of the training Gram matrix, as the
        authors' C code does with :math:`\varepsilon = 0.001` (``Calc_Kernel`` in
        ``smo_kernel.c`` adds it when both arguments are the same training example; skordinal and
        ORCA run that code). 0 is the textbook dual. With :math:`\varepsilon > 0` the quadratic
        term is :math:`\tfrac12\beta^\top(K + \varepsilon I)\beta` (a squared-norm penalty
        on :math:`\beta`) and the training scores from which the thresholds are recovered are
        :math:`f(x_i) = ((K + \varepsilon I)\beta)_i`; ``decision_function`` on any rows,
        the training rows included, uses the plain kernel :math:`\sum_i \beta_i K(x_i, x)`, as
        the C code does at prediction (a test row is never the same example), so there it
        differs from the training scores by :math:`\varepsilon\beta_i`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The labels in rank order.
    thresholds_ : ndarray of shape (n_classes - 1,)
        :math:`b_1 \le \dots \le b_{k-1}`.
    dual_coef_ : ndarray of shape (n_samples,)
        :math:`\beta`: ``decision_function`` is :math:`\sum_i \beta_i K(x_i, x)`.
    X_fit_ : ndarray of shape (n_samples, n_features)
        The training rows.
    status_ : str
        "optimal": the solver met its stopping rule (``tol``) and ``duality_gap_`` is not far
        (:func:`~ordrank.algorithms.qp.kkt.far_from_optimum`). Else a ConvergenceWarning names
        the gap and the fix, and: "max_iter": SMO stopped at its iteration limit (its point
        returned; the warning also names its KKT violation and steps); "inaccurate": the
        solver met its rule but the gap is far (a kernel of a large scale times C: the dual's
        rounding moves the scores :math:`K\beta`); "optimal_inaccurate": Clarabel stopped at
        its reduced accuracy, the gap not far. The IPM never returns a point short of its rule
        (Clarabel's full solve instead, ``solver_`` "CLARABEL"); Clarabel at its limit
        ("user_limit": cvxpy gives no point) or any other status raises :class:`FitFailed`.
    n_iter_ : int or None
        The iteration count of the solver that found the solution, ``solver_``.
    solver_ : str
        That solver: "SMO", "IPM" or "CLARABEL" (also where the IPM stopped short).
    objective_ : float
        The dual objective :math:`\tfrac12\beta^\top K\beta - \sum g` at the solution (minus the
        primal optimum); with the factor, :math:`K` there is :math:`LL^\top`.
    duality_gap_ : float
        The primal objective of (β, ``thresholds_``) plus the dual objective at g, with the
        exact kernel (:func:`~ordrank.algorithms.qp.kkt.duality_gap`): ``objective_`` is at most
        this far above the optimum (≥ 0 up to the solver's feasibility tolerance).
    kernel_rank_ : int or None
        The rank r of the factor :math:`K \approx LL^\top` in the quadratic term, or None where
        the exact :math:`n \times n` kernel was used (see :mod:`ordrank.algorithms.qp.factor`).
    """

    _parameter_constraints: dict = {
        "constraints": [StrOptions({"implicit", "explicit"})],
        "C": [Interval(Real, 0, None, closed="neither")],
        "kernel": [StrOptions(set(KERNELS))],
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "coef0": [Interval(Real, None, None, closed="neither")],
        "solver": [StrOptions({"auto", "CLARABEL", "SMO", "IPM"})],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "diagonal_jitter": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, constraints="implicit", *, C=1.0, kernel="rbf", gamma=1.0, degree=2,
                 coef0=1.0, solver="auto", tol=1e-3, max_iter=None, diagonal_jitter=0.0):
        self.constraints = constraints
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.diagonal_jitter = diagonal_jitter

    def _gram(self, X, Y=None):
        return finite_kernel_matrix(self, X, Y, self.kernel, gamma=self.gamma, degree=self.degree,
                                    coef0=self.coef0)  # cvxpy would say "Problem data contains NaN"

    def _kernels(self, X):
        """K, and K_qp for the quadratic term (the perceptron kernel centred)."""
        K = self._gram(X)
        K_qp = K - K.mean(0) - K.mean(1)[:, None] + K.mean() if self.kernel == "perceptron" else K
        return K, K_qp

    def _build(self, X, ranks, k):
        return Dual(*self._kernels(X), ranks, k, self.constraints, float(self.diagonal_jitter))

    def _cache_key(self, k):
        """Everything that shapes the compiled problem besides the training rows and ranks: the
        estimator's class (a subclass may build another problem), k, the kernel and its
        parameters, the variant, the jitter and the solver; not C (a cp.Parameter) nor tol,
        max_iter (solve-time options)."""
        kernel = {"linear": (), "perceptron": (), "rbf": (self.gamma,),
                  "poly": (self.gamma, self.degree, self.coef0)}[self.kernel]
        cls = type(self)
        return (f"{cls.__module__}.{cls.__qualname__}", k, self.kernel, *kernel,
                self.constraints, float(self.diagonal_jitter), self.solver)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        X, ranks = self._fit_data(X, y)  # classes_ in rank order (see _ordinal)
        k = len(self.classes_)
        key = self._cache_key(k)
        what = (f"SVOR(constraints={self.constraints!r}, C={self.C}, kernel={self.kernel!r}, "
                f"gamma={self.gamma}) with {self.solver}")
        solved = violation = None
        if self.solver != "CLARABEL":  # K, K_qp and the index maps, cached
            gram = compiled(X, ranks, key, lambda: Gram(*self._kernels(X), ranks, k,
                                                        self.constraints,
                                                        float(self.diagonal_jitter)))
            solved = solve_structured(self.solver, gram, float(self.C), self.tol, self.max_iter)
        if solved is not None:  # else CLARABEL, or the IPM stopped short: Clarabel's full solve
            g, nu, status, self.n_iter_, self.solver_, violation = solved
            maps, K = gram.maps, gram.K
            beta = maps.beta(g)
            self.objective_ = float(0.5 * beta @ gram.K_qp @ beta - g.sum())
            self.kernel_rank_ = None
        else:
            maps = compiled(X, ranks, (*key[:-1], "CLARABEL"), lambda: self._build(X, ranks, k))
            g, nu, status = self._solve_full(maps, what)
            K, self.kernel_rank_ = maps.K, maps.rank
        self.dual_coef_ = maps.beta(g)
        self.X_fit_ = X
        f = K @ self.dual_coef_
        self.thresholds_, consistent = kkt_thresholds(f, maps, g, self.C, nu, slack=10 * self.tol)
        self.duality_gap_ = duality_gap(f, self.dual_coef_, maps, g, self.C, self.thresholds_)
        far = far_from_optimum(self.duality_gap_, self.objective_, self.tol, self.C, len(g))
        self.status_ = "inaccurate" if far and status != "max_iter" else status
        if self.status_ != "optimal":
            warnings.warn(short_of_optimum(self, what, violation, K), ConvergenceWarning,
                          stacklevel=2)
        if not consistent:
            warnings.warn(f"{what}: the KKT intervals of the thresholds are not ordered (an "
                          "inaccurate solution); thresholds forced into order",
                          ConvergenceWarning, stacklevel=2)
        return self

    def _solve_full(self, dual: Dual, what):
        """The one full problem by Clarabel (cached, C a parameter): (g, ν, status); sets
        n_iter_, solver_ and objective_."""
        max_iter = self.max_iter if self.solver == "CLARABEL" else None  # else Clarabel's own
        with dual.lock:
            dual.C.value = float(self.C)
            try:
                dual.problem.solve(solver="CLARABEL", **solver_options(
                    self.tol, max_iter, dual.rank is not None))
            except cp.error.SolverError as exc:
                raise FitFailed(f"{what} failed: status=solver_error ({exc})") from exc
            status = dual.problem.status
            if status not in ACCEPTED or dual.g.value is None:
                limit = (f" (Clarabel stopped at its iteration limit, max_iter={max_iter or 200},"
                         " where cvxpy returns no point: raise max_iter or use solver='auto')"
                         if status == "user_limit" else "")
                raise FitFailed(f"{what} did not reach an optimum: status={status}{limit}")
            g = np.clip(dual.g.value, 0.0, self.C)
            nu = None if dual.nu is None else dual.nu.value
            self.n_iter_, self.solver_ = dual.problem.solver_stats.num_iters, "CLARABEL"
            self.objective_ = float(dual.problem.value)
        return g, nu, status

    def _score(self, X):
        support = self.dual_coef_ != 0
        return self._gram(X, self.X_fit_[support]) @ self.dual_coef_[support]

    def decision_function(self, X):
        """The latent score :math:`f(x) = \\sum_i \\beta_i K(x_i, x)`, shape (n_samples,)."""
        return self._score(self._checked(X))

    def _predict_ranks(self, X):
        return 1 + (self._score(X)[:, None] > self.thresholds_).sum(1)
