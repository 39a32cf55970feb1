"""The kernel RankSVM dual: against a cvxpy primal over explicit pairs, scikit-learn's LinearSVC on the
pair differences, a separable toy ranked perfectly by an rbf kernel, Clarabel's standard form against
its cvxpy form, KKT invariants and failures."""
import warnings
from unittest import mock

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from ordrank.algorithms import FitFailed
from ordrank.algorithms.qp import clarabel_qp, factor
from ordrank.algorithms.ranking.ranksvm_dual import fit_ranksvm_dual
from ordrank.features.kernels import kernel_matrix
from ordrank.queries import preference_pairs

LOSSES = ["hinge", "squared_hinge"]


def ranking_data(seed=0, n_queries=4, per_query=12, d=4):
    """Gaussian features, graded relevance 0..3 from a noisy linear score, queries of equal size."""
    rng = np.random.default_rng(seed)
    n = n_queries * per_query
    X = rng.normal(size=(n, d))
    y = np.clip(np.round(X @ rng.normal(size=d) + rng.normal(size=n)), -1, 2).astype(int) + 1
    return X, y, np.repeat(np.arange(n_queries), per_query)


def primal_value(margins, theta_sq, C, loss):
    """½‖θ‖² + C Σ ℓ(1 − m_p) at the pairs' margins m_p = θ·(φ_i − φ_j)."""
    hinge = np.maximum(0.0, 1.0 - margins)
    return 0.5 * theta_sq + C * (hinge.sum() if loss == "hinge" else hinge @ hinge)


def cvxpy_primal(Phi, pi, pj, C, loss):
    """The seed-001 primal over explicit pairs, features Φ (one row per document), by cvxpy."""
    theta, xi = cp.Variable(Phi.shape[1]), cp.Variable(len(pi), nonneg=True)
    slack = cp.sum(xi) if loss == "hinge" else cp.sum_squares(xi)
    problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(theta) + C * slack),
                         [(Phi[pi] - Phi[pj]) @ theta >= 1 - xi])
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    assert problem.status == "optimal"
    return problem.value, theta.value


def feature_map(K):
    """Φ with ΦΦᵀ = K (K PSD), from its eigendecomposition: the kernel's explicit features."""
    w, V = np.linalg.eigh(K)
    return V * np.sqrt(np.clip(w, 0.0, None))


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("C", [0.05, 2.0])
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_dual_matches_cvxpy_primal(kernel, C, loss):
    """Strong duality: −(dual minimum) is the primal optimum to 1e-6 relative, and (rbf through
    its explicit feature map) θ = Φᵀβ is the primal's θ and attains that value."""
    X, y, qid = ranking_data()
    K = kernel_matrix(X, None, kernel, gamma=0.3)
    Phi = X if kernel == "linear" else feature_map(K)
    pi, pj = preference_pairs(y, qid)
    sol = fit_ranksvm_dual(K, pi, pj, C, loss=loss, tol=1e-8)
    value, theta = cvxpy_primal(Phi, pi, pj, C, loss)
    assert sol.status == "optimal"
    assert -sol.objective == pytest.approx(value, rel=1e-6)
    ours = Phi.T @ sol.beta
    np.testing.assert_allclose(ours, theta, atol=1e-5)
    f = K @ sol.beta  # the score, from the kernel alone
    assert primal_value(f[pi] - f[pj], sol.beta @ f, C, loss) == pytest.approx(value, rel=1e-6)
    if kernel == "linear":
        assert sol.kernel_rank == X.shape[1]  # K = XXᵀ: the factor of rank d is used


def linear_svc_on_pairs(D, C, loss):
    r"""LinearSVC's optimum on the pair differences. LinearSVC (no intercept) minimizes
    ½‖w‖² + C' Σ_rows ℓ(1 − t_r w·z_r), and needs two classes: each difference d_p enters as
    (d_p, +1) and mirrored as (−d_p, −1), whose margins t_r w·z_r = w·d_p are equal, so the sum
    counts each pair's loss twice and C' = C/2 gives exactly the RankSVM objective."""
    Z = np.r_[D, -D]
    t = np.r_[np.ones(len(D)), -np.ones(len(D))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # liblinear may not say it converged
        svc = LinearSVC(fit_intercept=False, loss=loss, C=C / 2, dual=True, tol=1e-10,
                        max_iter=100_000).fit(Z, t)
    return svc.coef_[0]


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_linear_kernel_is_linear_svc_on_pair_differences(C, loss):
    """K = XXᵀ: θ = Xᵀβ is LinearSVC's w on the explicit pair differences (mirrored, C/2), with
    the same objective; so is the alternating-sign encoding (each pair once, C)."""
    X, y, qid = ranking_data(1)
    pi, pj = preference_pairs(y, qid)
    D = X[pi] - X[pj]
    sol = fit_ranksvm_dual(X @ X.T, pi, pj, C, loss=loss, tol=1e-9)
    theta = X.T @ sol.beta
    w = linear_svc_on_pairs(D, C, loss)
    theirs = primal_value(D @ w, w @ w, C, loss)
    assert -sol.objective == pytest.approx(theirs, rel=1e-6)
    assert primal_value(D @ theta, theta @ theta, C, loss) == pytest.approx(theirs, rel=1e-6)
    np.testing.assert_allclose(theta, w, atol=1e-5 * max(1.0, np.abs(w).max()))
    # every second pair flipped (label −1): each pair once, both classes present, C' = C
    flip = np.where(np.arange(len(D)) % 2, -1.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        alt = LinearSVC(fit_intercept=False, loss=loss, C=C, dual=True, tol=1e-10,
                        max_iter=100_000).fit(D * flip[:, None], flip).coef_[0]
    np.testing.assert_allclose(alt, w, atol=1e-5 * max(1.0, np.abs(w).max()))


def circle_queries(n_queries=5, per_query=16, seed=2):
    """Points in the plane; relevance 2, 1, 0 by distance from the origin (< 1, < 2, else): no
    linear score orders such rings, a Gaussian kernel does."""
    rng = np.random.default_rng(seed)
    radius = rng.uniform(0.05, 3.0, size=n_queries * per_query)
    angle = rng.uniform(0, 2 * np.pi, size=len(radius))
    X = np.c_[radius * np.cos(angle), radius * np.sin(angle)]
    y = 2 - np.searchsorted([1.0, 2.0], radius)
    keep = np.abs(radius - 1.0) > 0.15
    keep &= np.abs(radius - 2.0) > 0.15  # a gap between the rings: separable with margin
    return X[keep], y[keep], np.repeat(np.arange(n_queries), per_query)[keep]


def pairwise_accuracy(f, pi, pj):
    return np.mean(f[pi] > f[pj])


def test_separable_toy_ranked_perfectly_by_rbf():
    """Rings around the origin, several queries: the rbf dual orders every preference pair, every
    pair on or outside its margin (no slack used, C large); the linear kernel cannot."""
    X, y, qid = circle_queries()
    pi, pj = preference_pairs(y, qid)
    sol = fit_ranksvm_dual(kernel_matrix(X, None, "rbf", gamma=1.0), pi, pj, 1000.0, tol=1e-8)
    f = kernel_matrix(X, None, "rbf", gamma=1.0) @ sol.beta
    assert pairwise_accuracy(f, pi, pj) == 1.0
    assert np.min(f[pi] - f[pj]) >= 1 - 1e-4
    assert np.all(sol.alpha < 1000.0 * (1 - 1e-3))  # no pair at its bound C: hard margin
    # the score on fresh points of the same rings: still ordered
    X_new, y_new, qid_new = circle_queries(seed=3)
    f_new = kernel_matrix(X_new, X, "rbf", gamma=1.0) @ sol.beta
    ni, nj = preference_pairs(y_new, qid_new)
    assert pairwise_accuracy(f_new, ni, nj) >= 0.97
    linear = fit_ranksvm_dual(X @ X.T, pi, pj, 1000.0)
    assert pairwise_accuracy(X @ X.T @ linear.beta, pi, pj) < 0.8


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_standard_form_is_the_cvxpy_problem(kernel, loss):
    """Clarabel's standard form (no balance rows, the factor or the exact block, a ridge or no
    upper bound) and the same box QP written in cvxpy: the same α and β; also the exact form
    forced."""
    X, y, qid = ranking_data(3)
    K = kernel_matrix(X, None, kernel, gamma=0.3)
    pi, pj = preference_pairs(y, qid)
    direct = fit_ranksvm_dual(K, pi, pj, 1.0, loss=loss, tol=1e-8)
    assert (direct.kernel_rank is None) == (kernel == "rbf")
    with mock.patch.object(clarabel_qp, "clarabel_box_qp", clarabel_qp.cvxpy_box_qp):
        modelled = fit_ranksvm_dual(K, pi, pj, 1.0, loss=loss, tol=1e-8)
    with mock.patch.object(factor, "MAX_RANK", 0.0):
        exact = fit_ranksvm_dual(K, pi, pj, 1.0, loss=loss, tol=1e-8)
    assert exact.kernel_rank is None
    for other, atol in ((modelled, 1e-5), (exact, 1e-5)):
        np.testing.assert_allclose(other.beta, direct.beta, atol=atol)
        assert other.objective == pytest.approx(direct.objective, rel=10 * atol)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(2, 25), queries=st.integers(1, 3),
       C=st.sampled_from([0.01, 1.0, 100.0]), loss=st.sampled_from(LOSSES))
def test_kkt_conditions_hold(seed, n, queries, C, loss):
    """At the solution, for any data: β sums to zero within each query, α in its box, and each
    pair's margin m_p = f_i − f_j obeys the KKT conditions (α = 0: m ≥ 1; 0 < α < C: m = 1;
    α = C: m ≤ 1; squared hinge: α = 2C·max(0, 1 − m))."""
    rng = np.random.default_rng(seed)
    X, y = rng.normal(size=(n, 3)), rng.integers(0, 3, size=n)
    qid = np.sort(rng.integers(0, queries, size=n))
    K = kernel_matrix(X, None, "rbf", gamma=0.5)
    pi, pj = preference_pairs(y, qid)
    sol = fit_ranksvm_dual(K, pi, pj, C, loss=loss, tol=1e-9)
    np.testing.assert_allclose(np.bincount(qid, sol.beta), 0, atol=1e-9)
    margin = (K @ sol.beta)[pi] - (K @ sol.beta)[pj]
    scale = 1e-4 * max(1.0, C)
    assert np.all(sol.alpha >= 0)
    if loss == "hinge":
        assert np.all(sol.alpha <= C)
        at0, atC = sol.alpha <= scale, sol.alpha >= C - scale
        assert np.all(margin[at0] >= 1 - 1e-3)
        assert np.all(margin[atC] <= 1 + 1e-3)
        np.testing.assert_allclose(margin[~at0 & ~atC], 1, atol=1e-3)
    else:
        np.testing.assert_allclose(sol.alpha, 2 * C * np.maximum(0, 1 - margin), atol=1e-3 * C)


def test_no_pairs_gives_zero_scores():
    sol = fit_ranksvm_dual(np.eye(3), np.zeros(0, int), np.zeros(0, int), 1.0)
    assert sol.status == "optimal" and not sol.beta.any() and sol.alpha.shape == (0,)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_solver_failure_raises_fitfailed():
    X, y, qid = ranking_data(4)
    K, (pi, pj) = kernel_matrix(X, None, "rbf", gamma=0.3), preference_pairs(y, qid)
    with pytest.raises(FitFailed, match=r"kernel RankSVM dual \(loss='hinge', C=1.0, \d+ pairs\) "
                                        r"with CLARABEL did not reach an optimum: status=MaxIter"):
        fit_ranksvm_dual(K, pi, pj, 1.0, max_iter=1)
    with mock.patch.object(clarabel_qp, "clarabel_box_qp", clarabel_qp.cvxpy_box_qp):
        with pytest.raises(FitFailed, match="with CLARABEL did not reach an optimum: status=user_limit"):
            fit_ranksvm_dual(K, pi, pj, 1.0, max_iter=1)
        with mock.patch.object(cp.Problem, "solve", side_effect=cp.error.SolverError("boom")):
            with pytest.raises(FitFailed, match="status=solver_error.*boom"):
                fit_ranksvm_dual(K, pi, pj, 1.0)


@pytest.mark.parametrize("loss", LOSSES)
def test_ranksvm_kernel_stopped_by_max_iter_names_the_limit_and_its_gap(loss):
    """Clarabel stopped at max_iter returns its point as "optimal_inaccurate" once within its reduced
    accuracy: RankSVM says "max_iter" (never "optimal"), and warns naming the limit and the certified
    relative gap that remains (the optimum within it); below that limit, no point: FitFailed."""
    from ordrank.algorithms.ranking import RankSVM

    X, y, qid = ranking_data(4)
    for max_iter in range(1, 40):  # the first limit at which the solver returns a point
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                RankSVM(kernel="rbf", C=10.0, loss=loss, tol=1e-9, max_iter=max_iter).fit(X, y, qid=qid)
            break
        except FitFailed:
            continue
    with pytest.warns(ConvergenceWarning, match=rf"^RankSVM: max_iter={max_iter} reached \(solver status "
                                                r"'optimal_inaccurate'\) with a certified relative gap of "):
        model = RankSVM(kernel="rbf", C=10.0, loss=loss, tol=1e-9, max_iter=max_iter).fit(X, y, qid=qid)
    assert model.status_ == "max_iter" and model.gap_ > model.tol
    best = RankSVM(kernel="rbf", C=10.0, loss=loss, tol=1e-9).fit(X, y, qid=qid)
    assert best.status_ == "optimal" and best.gap_ <= 1e-6
    assert model.objective_ * (1 - model.gap_) <= best.objective_ * (1 + 1e-9) <= model.objective_ * (1 + 1e-9)
