"""RankSVM (seed 001): a large-margin ranker over every preference pair within a query."""
from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.utils._param_validation import Interval, StrOptions
from threadpoolctl import threadpool_limits

from ordrank.algorithms._ordinal import FitFailed
from ordrank.algorithms.ranking._base import RankingEstimator, check_scale, max_abs, warn_not_converged
from ordrank.algorithms.ranking._products import matvec
from ordrank.algorithms.ranking.ranksvm_newton import _newton, _smoothed_newton
from ordrank.algorithms.ranking.ranksvm_primal import _Problem, _cutting_plane
from ordrank.queries import count_pairs, preference_pairs


AUTO_NEWTON_PAIRS = 1_000_000  # solver="auto": the smoothed Newton from this many pairs (counted by sweeps)
ILL_CONDITIONED = 1e6  # C · max‖x‖² above which a stalled fit is put down to the features' scale


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
      of the cuts: an active set warm-started from the last round's,
      :mod:`ordrank.algorithms.qp.simplex`), then a line search from the best point towards it. The
      dual value is a lower bound of the optimum: the fit stops when
      ``F(w_best) − bound ≤ tol · F(w_best)``, a certified relative gap. Its rounds grow with C and
      the data (MSLR-shaped queries, 1e6 pairs: 17 rounds at C = 1e-4, 361 at C = 1; see "auto"
      below). The model keeps at most ``MAX_CUTS`` (200) cuts: beyond that, the cuts with the
      largest dual weights stay and the rest are replaced by their aggregate
      ``Σ α_k (a_k, b_k) / Σ α_k`` (a valid cut that keeps the model's last minimiser, so the bound
      never decreases), so a round costs a bounded QP even on badly scaled data, where the rounds
      run to ``max_iter`` (LETOR 3.0 OHSUMED uses at most 97).
    - hinge, ``solver="smoothed_newton"``: Newton on Huber-smoothed hinges whose width μ shrinks,
      each solve warm-started from the last; the smoothed gradient gives dual variables
      ``α_p = C h_μ'(z_p) ∈ [0, C]``, so the same certified stop (:func:`_smoothed_newton`). Its
      iterations hardly grow with the data (11–18 from 1e6 to 1e7 pairs), but each costs sweeps with
      partner sums where the cutting plane's rounds need the counts only.
    - squared hinge: truncated Newton (Chapelle & Keerthi 2010, PRSVM) by SciPy's ``trust-ncg`` with
      the Hessian products above, to a gradient norm of ``tol`` times the initial one; ``gap_`` from
      the dual point ``α_p = 2C max(0, z_p)`` (:func:`_newton`).

    ``solver="auto"`` (hinge) takes the smoothed Newton from ``AUTO_NEWTON_PAIRS`` = 1e6 pairs where
    the sweeps count the pairs (more than ``n_levels`` pairs per document: long queries), else the
    cutting plane. Measured by ``bench_ranking.py --part solvers`` (benchmarks/; CPU time, tol = 1e-5,
    docs/speed.md): on MSLR-shaped queries (~5,000 pairs each) the smoothed Newton is 1.4–3.4×
    faster from 1e6 pairs at C = 1e-2 and 11–29× at C = 1 (the cutting plane: 361 rounds at 1e6
    pairs, over 120 s at 1e7), the two within 1.4× at C = 1e-4; below 1e6 pairs the faster one turns
    on C (the cutting plane by 1.1–2× at C ≤ 1e-2 up to 1e5 pairs, the smoothed Newton by 3–9× at
    C = 1), every fit under 3 s. On small queries (Predtron's 20 documents: the explicit pairs) the
    cutting plane is 2–9× faster at every size measured, 1.5e4 to 1e7 pairs. So LETOR OHSUMED's folds
    (283k–423k pairs; fits under 0.4 s, the smoothed Newton up to 2× faster at C ≥ 1e-2) take the
    cutting plane, and ``+experiment=letor_web`` (~29M pairs) the smoothed Newton.

    Kernel ``"rbf"``/``"poly"``: the dual over the explicit pairs, ``f(x) = Σ_d β_d K(x_d, x)``, by
    :func:`ordrank.algorithms.ranking.ranksvm_dual.fit_ranksvm_dual` (small data only).

    Every solver stops within ``max_iter`` iterations (Newton steps or μ rounds for the smoothed
    Newton, cutting-plane rounds, trust-region steps, interior-point steps for the kernel dual) and
    warns (ConvergenceWarning) when it stops short of ``tol``, naming the limit and the certified
    relative gap ``gap_`` that remains (``F(w) − F* ≤ gap_ · F(w)``; the squared hinge stops on its
    gradient, named too). The kernel dual's gap comes from its multipliers α (feasible, clipped to
    the box); Clarabel stopped at ``max_iter`` returns its point "optimal_inaccurate" once within
    its reduced accuracy, which RankSVM reports as ``status_`` "max_iter", never "optimal" (without
    any point it raises FitFailed). A problem whose magnitudes would
    overflow float64 (``C · pairs · max|x| · √d``, or ``C · pairs · max|K|`` for a kernel, above
    1e150) is refused with a ValueError naming that scale rather than fitted to an all-zero model; a
    hinge fit that never leaves the all-zero model (raw features, e.g. counts up to 1e6, make
    ``C · max‖x‖²`` so large that the solver cannot make headway) raises FitFailed saying so and what
    to do (normalize the features, e.g. LETOR's query-level normalization, or lower C).

    A float32 X (web-scale data) is kept as it is: the linear solvers' products convert it a block of
    rows at a time (:mod:`~._products`), so the arithmetic stays float64 without a float64 copy of X.

    Attributes: ``coef_`` (linear), ``X_fit_``/``dual_coef_`` (kernels), ``objective_``,
    ``n_pairs_``, ``n_iter_``, ``gap_`` (the certified relative gap at the end), ``status_``
    (kernels: "optimal"; else "max_iter", or "inaccurate"/"optimal_inaccurate" by whether ``gap_``
    exceeds ``tol``).
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

    _dtypes = [np.float64, np.float32]  # linear: float32 X kept, its products in float64 (._products)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, qid=None):
        X, y, qid = self._validate_queries(X, y, qid)
        self.n_pairs_ = count_pairs(y, qid)
        if self.n_pairs_ == 0:
            raise ValueError(f"{type(self).__name__}: no preference pair (n_samples={len(y)}): within "
                             "every query all rows have the same label, so there is nothing to rank")
        if self.kernel != "linear":
            return self._fit_kernel(X.astype(np.float64, copy=False), y, qid)
        _check_scale(self, max_abs(X) * np.sqrt(X.shape[1]), "C · pairs · max|x| · √n_features", X)
        problem = _Problem(X, y, qid, self.C, self.loss)
        if self.loss == "hinge":
            # its products are memory-bound matrix-vector ones: BLAS threads gain little and, on a
            # loaded machine, each call waits for them (measured: 3x slower under load 8 on 2 cores)
            with threadpool_limits(limits=1, user_api="blas"):
                newton = self.solver == "smoothed_newton" or (  # "auto": measured, see the docstring
                    self.solver == "auto" and problem.pairs is None and self.n_pairs_ >= AUTO_NEWTON_PAIRS)
                if newton:  # raw feature scales: μ from 1, CG preconditioned (_smoothed_newton; same optimum)
                    precondition = self.C * X.shape[1] * max_abs(X) ** 2 > ILL_CONDITIONED
                    w, self.n_iter_, self.gap_ = _smoothed_newton(problem, self.tol, self.max_iter,
                                                                  precondition=precondition)
                else:
                    w, self.n_iter_, self.gap_ = _cutting_plane(problem, self.tol, self.max_iter)
            if not np.any(w) and self.gap_ > 0.5:  # stuck at zero, far from the optimum: not a warning
                raise FitFailed(f"{type(self).__name__}: no progress from the all-zero model in {self.n_iter_} "
                                f"iterations (max_iter={self.max_iter}, C={self.C:g}, certified relative gap "
                                f"{self.gap_:.2g}): {_scale_advice(self, X)}")
            if self.gap_ > self.tol:
                advice = _scale_advice(self, X) if self.gap_ > 0.5 else ""
                advice = f"; {advice}" if advice.startswith("C ·") else ""  # (not "raise max_iter" twice)
                warn_not_converged(type(self).__name__, self.max_iter, f"with a certified relative gap "
                                   f"of {self.gap_:.2g} > tol={self.tol:g} (F(w) − F* ≤ gap · F(w)){advice}")
        else:
            w, self.n_iter_, self.gap_, gradient = _newton(problem, self.tol, self.max_iter)
            if gradient is not None:
                warn_not_converged(type(self).__name__, self.max_iter, f"with a certified relative gap "
                                   f"of {self.gap_:.2g} (F(w) − F* ≤ gap · F(w)) and a gradient norm of "
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
        self.alpha_, self.n_iter_ = dual.alpha, dual.n_iter
        scores = K @ self.dual_coef_
        margins = 1.0 - (scores[pairs_i] - scores[pairs_j])
        slack = np.maximum(margins, 0.0) ** (1 if self.loss == "hinge" else 2)
        self.objective_ = 0.5 * float(self.dual_coef_ @ scores) + self.C * float(slack.sum())
        # α is dual-feasible (clipped to its box): −dual.objective ≤ F* ≤ objective_
        self.gap_ = (self.objective_ + dual.objective) / self.objective_
        if dual.status == "optimal":
            self.status_ = "optimal"
            return self
        # Clarabel stops at max_iter "optimal_inaccurate" when within its reduced accuracy: named
        # here by the limit and the certified gap, never "optimal"
        detail = (f"(solver status {dual.status!r}) with a certified relative gap of {self.gap_:.2g} "
                  f"(F(w) − F* ≤ gap · F(w), tol={self.tol:g})")
        if dual.n_iter >= self.max_iter:
            self.status_ = "max_iter"
            warn_not_converged(type(self).__name__, self.max_iter, detail)
        else:
            self.status_ = "inaccurate" if self.gap_ > self.tol else "optimal_inaccurate"
            warnings.warn(f"{type(self).__name__}: the kernel dual's solver stopped short of its tolerance "
                          f"after {dual.n_iter} iterations {detail}; raise tol", ConvergenceWarning, stacklevel=2)
        return self

    def _scores(self, X):
        if self.kernel == "linear":
            return matvec(X, self.coef_)
        return self._kernel(X.astype(np.float64, copy=False), self.X_fit_) @ self.dual_coef_


def _scale_advice(model, X) -> str:
    """What to do when the solver cannot make headway: usually features on raw scales."""
    R2 = float(np.max(np.einsum("ij,ij->i", X, X), initial=0.0))  # (an error path: one pass)
    if model.C * R2 <= ILL_CONDITIONED:
        return "raise max_iter"
    return (f"C · max‖x‖² is {model.C * R2:.3g} (max|x| = {max_abs(X):.3g}), too ill-conditioned for the "
            "solver; normalize the features (features=query_level_norm: LETOR's per-query min-max, or "
            "features=standardize), or lower C")


def _check_scale(model, magnitude, what, X):
    """:func:`~._base.check_scale` of ``C · pairs · magnitude`` (``magnitude`` = max|x|·√d or max|K|)."""
    scale = model.C * model.n_pairs_ * magnitude
    check_scale(type(model).__name__, scale, f"{what} (C={model.C:g}, {model.n_pairs_} pairs, "
                f"max|x| = {max_abs(X):.3g})", "rescale X (e.g. StandardScaler) or lower C")


