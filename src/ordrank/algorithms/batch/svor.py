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

- ``solver="auto"`` (the default): SMO first, for at most about one interior point's cost in
  pair steps; where it has not converged by then (large C), the interior point. Either way the
  same optimum within ``tol`` (``solver_`` says which); from n = 1000 no slower than the
  authors' C code in benchmarks/bench_model_selection.py.
- ``solver="SMO"``: sequential minimal optimization, two variables per step, compiled with numba
  (:mod:`~ordrank.algorithms.qp.smo`); no QP solver, no working set. The authors' kind of solver
  (their C code takes the maximal violating pair, this one the second-order pair); its steps grow
  with C.
- ``solver="IPM"`` (the sweeps' setting, conf/algorithm/svorim.yaml): a primal-dual interior
  point written for this dual (:mod:`~ordrank.algorithms.qp.ipm`): one n × n Cholesky
  factorization per Newton step, whatever C; Clarabel's full solve where it stops short.
- ``solver="CLARABEL"`` (or OSQP): the whole dual as one cvxpy problem, C a ``cp.Parameter``,
  kept compiled in :mod:`~ordrank.algorithms.qp.cache` (keyed on the training rows and ranks and
  on everything else that shapes it: the estimator's class, k, kernel and its parameters,
  variant, ``diagonal_jitter`` and solver), so a grid over C compiles once per training set; the
  kernel term exact or through a pivoted-Cholesky factor :math:`K \approx LL^\top`
  (:mod:`~ordrank.algorithms.qp.factor`; ``kernel_rank_``). With ``working_set=True`` (or
  "auto": implicit constraints from ``WS_MIN_N`` rows) a chain of small restricted problems,
  KKT-checked on every variable (:mod:`~ordrank.algorithms.qp.working_set`); the full problem
  where it does not get there in its rounds.
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
from ordrank.algorithms.batch.svor_dual import (Dual, Gram, Maps, compiled, jittered,  # noqa: F401
                                                solve_structured)
from ordrank.algorithms.qp.kkt import kkt_thresholds
from ordrank.algorithms.qp.options import ACCEPTED, solver_options
from ordrank.algorithms.qp.working_set import working_set_explicit, working_set_implicit
from ordrank.features.kernels import KERNELS, finite_kernel_matrix

WS_MIN_N = 1000  # working_set="auto" from this many training rows (implicit constraints)


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
    solver : {"auto", "CLARABEL", "OSQP", "IPM", "SMO"}, default="auto"
        "SMO": sequential minimal optimization, compiled with numba
        (:mod:`ordrank.algorithms.qp.smo`; the authors' kind of solver), fastest where most
        variables end at a bound (small C).
        "IPM": an interior point for this dual's structure (:mod:`ordrank.algorithms.qp.ipm`),
        whose cost does not grow with C. "auto": SMO for about one IPM's cost in pair steps
        (:func:`~ordrank.algorithms.batch.svor_dual.smo_budget`), then the IPM; ``max_iter`` is
        the IPM's. "CLARABEL" / "OSQP": the cvxpy problem (with ``working_set``); OSQP (ADMM)
        is looser at the same ``tol`` and not faster here. Timings: docs/svor_solver.md.
    tol : float, default=1e-3
        Accuracy. Clarabel: ``tol_gap_abs = tol_gap_rel = tol/100``, ``tol_feas = tol_ktratio =
        tol``; OSQP: ``eps_abs = eps_rel = tol``; IPM: balance within tol/100, dual residual
        within tol/10, gap as Clarabel's; SMO: no allowed pair's KKT bounds on a threshold
        cross by more than ``2 tol`` (the C code's ``tol``).
    max_iter : int or None, default=None
        The solver's iteration limit (None: its default; IPM's is 100 Newton steps; SMO's is
        LIBSVM's, max(10⁷, 100·m) pair steps for m dual variables).
    working_set : bool or "auto", default="auto"
        With CLARABEL or OSQP: solve by a sequence of restricted problems, KKT-checked on
        every variable (see the module docstring): the same optimum, faster from n = 1000 with
        implicit constraints, slower with explicit ones. "auto": implicit constraints from
        ``WS_MIN_N`` training rows, else the full solve. False: the one full problem.
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
        The solver's status: "optimal", or "optimal_inaccurate" (accepted, with a
        ConvergenceWarning); any other status raises :class:`FitFailed`.
    n_iter_ : int or None
        The iteration count of the solver that found the solution, ``solver_``.
    solver_ : str
        That solver: "SMO", "IPM", "CLARABEL" (also where the IPM stopped short) or "OSQP".
    objective_ : float
        The dual objective :math:`\tfrac12\beta^\top K\beta - \sum g` at the solution (minus the
        primal optimum); with the factor, :math:`K` there is :math:`LL^\top`.
    kernel_rank_ : int or None
        The rank r of the factor :math:`K \approx LL^\top` in the quadratic term, or None where
        the exact :math:`n \times n` kernel was used (see :mod:`ordrank.algorithms.qp.factor`).
    n_rounds_ : int
        Restricted problems solved after the working-set solve's first pass; 0 for the full solve.
    working_set_size_ : int
        The most examples in a restricted problem's kernel block; n_samples for the full solve.
    """

    _parameter_constraints: dict = {
        "constraints": [StrOptions({"implicit", "explicit"})],
        "C": [Interval(Real, 0, None, closed="neither")],
        "kernel": [StrOptions(set(KERNELS))],
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "coef0": [Interval(Real, None, None, closed="neither")],
        "solver": [StrOptions({"auto", "CLARABEL", "OSQP", "SMO", "IPM"})],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "working_set": ["boolean", StrOptions({"auto"})],
        "diagonal_jitter": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, constraints="implicit", *, C=1.0, kernel="rbf", gamma=1.0, degree=2,
                 coef0=1.0, solver="auto", tol=1e-3, max_iter=None, working_set="auto",
                 diagonal_jitter=0.0):
        self.constraints = constraints
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.working_set = working_set
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
        solved = None
        def gram_of(cache_key):  # K, K_qp and the index maps, cached (SMO, working set)
            return compiled(X, ranks, cache_key, lambda: Gram(*self._kernels(X), ranks, k,
                                                              self.constraints,
                                                              float(self.diagonal_jitter)))

        if self.solver in ("SMO", "IPM", "auto"):
            gram = gram_of(key)
            found = solve_structured(self.solver, gram, float(self.C), self.tol, self.max_iter)
            if found is not None:  # else the IPM stopped short: Clarabel's full solve below
                *found, self.solver_ = found
                solved = (*found, 0, len(X))
        elif self.working_set is True or (self.working_set == "auto" and len(X) >= WS_MIN_N
                                          and self.constraints == "implicit"):
            gram = gram_of((*key, "working set"))
            args = (gram, float(self.C), self.tol, self.solver, self.max_iter)
            self.solver_ = self.solver
            try:
                solved = (working_set_implicit(*args) if self.constraints == "implicit" else
                          working_set_explicit(*args))
            except cp.error.SolverError:  # then the full problem, which raises FitFailed
                solved = None
        if solved is not None:
            g, nu, status, self.n_iter_, self.n_rounds_, self.working_set_size_ = solved
            maps, K = gram.maps, gram.K
            beta = maps.beta(g)
            self.objective_ = float(0.5 * beta @ gram.K_qp @ beta - g.sum())
            self.kernel_rank_ = None
        else:
            full_key = (*key[:-1], self._cvxpy_solver())  # key itself for CLARABEL / OSQP
            maps = compiled(X, ranks, full_key, lambda: self._build(X, ranks, k))
            g, nu, status = self._solve_full(maps, what)
            K, self.n_rounds_, self.working_set_size_ = maps.K, 0, len(X)
            self.kernel_rank_ = maps.rank
        self.status_ = status
        if status != "optimal":
            warnings.warn(f"{what}: status={status}", ConvergenceWarning, stacklevel=2)
        self.dual_coef_ = maps.beta(g)
        self.X_fit_ = X
        f = K @ self.dual_coef_
        self.thresholds_, consistent = kkt_thresholds(f, maps, g, self.C, nu, slack=10 * self.tol)
        if not consistent:
            warnings.warn(f"{what}: the KKT intervals of the thresholds are not ordered (an "
                          "inaccurate solution); thresholds forced into order",
                          ConvergenceWarning, stacklevel=2)
        return self

    def _cvxpy_solver(self):
        """CLARABEL / OSQP as asked; else Clarabel (where the IPM stopped short of the optimum)."""
        return self.solver if self.solver in ("CLARABEL", "OSQP") else "CLARABEL"

    def _solve_full(self, dual: Dual, what):
        """The one full problem (cached, C a parameter): (g, ν, status); sets n_iter_ and
        objective_."""
        with dual.lock:
            dual.C.value = float(self.C)
            solver = self._cvxpy_solver()
            max_iter = self.max_iter if solver == self.solver else None
            try:
                dual.problem.solve(solver=solver, **solver_options(
                    solver, self.tol, max_iter, dual.rank is not None))
            except cp.error.SolverError as exc:
                raise FitFailed(f"{what} failed: status=solver_error ({exc})") from exc
            status = dual.problem.status
            if status not in ACCEPTED or dual.g.value is None:
                raise FitFailed(f"{what} did not reach an optimum: status={status}")
            g = np.clip(dual.g.value, 0.0, self.C)
            nu = None if dual.nu is None else dual.nu.value
            self.n_iter_, self.solver_ = dual.problem.solver_stats.num_iters, solver
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
