"""SVOR (Chu & Keerthi): the dual against an independent primal, against skordinal's SMO on a real
partition, ordered thresholds, failures, scikit-learn conformance and the compiled-problem cache."""
import io
import os
import tarfile
import warnings
from functools import partial
from unittest import mock

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV
from sklearn.utils.estimator_checks import parametrize_with_checks

from ordrank.algorithms import FitFailed
from ordrank.algorithms.batch import svor
from ordrank.algorithms.batch.svor import SVOR
from ordrank.algorithms.qp import cache, clarabel_qp, factor, kkt, working_set
from ordrank.algorithms.qp.options import solver_options
from ordrank.features.kernels import kernel_matrix

CvxSVOR = partial(SVOR, solver="CLARABEL")  # the cvxpy problem: its cache, factor, working set

ORDINAL_SCORE = {
    "check_classifiers_train": "decision_function is the ordinal score f(x), shape (n,), not one "
    "margin per class; the rank comes from the thresholds",
    "check_classifiers_classes": "decision_function is the ordinal score f(x), shape (n,), not one "
    "margin per class; its sign does not give the binary class",
}


@parametrize_with_checks([SVOR(), SVOR("explicit", kernel="linear"),
                          SVOR(solver="CLARABEL", working_set=True)],
                         expected_failed_checks=lambda est: ORDINAL_SCORE)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def small_data(seed=0, n=40, d=3, k=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    z = X @ rng.normal(size=d) + 0.5 * rng.normal(size=n)
    y = 1 + np.searchsorted(np.quantile(z, np.linspace(0, 1, k + 1)[1:-1]), z)
    return X, y


def primal_objective(X, y, k, C, constraints, w, b):
    """½‖w‖² + C·(sum of hinge slacks) of the primal at (w, b), in numpy."""
    f = X @ w
    if constraints == "implicit":
        s = np.where(y[:, None] > np.arange(1, k), 1.0, -1.0)
        slack = np.maximum(0, 1 - s * (f[:, None] - b)).sum()
    else:
        up, lo = y < k, y > 1  # the threshold above (b_y) and below (b_{y−1}) each example
        slack = (np.maximum(0, 1 + f[up] - b[y[up] - 1]).sum()
                 + np.maximum(0, 1 - f[lo] + b[y[lo] - 2]).sum())
    return 0.5 * w @ w + C * slack


def primal(X, y, k, C, constraints):
    """The primal with an explicit w, thresholds b and slacks (linear kernel), solved by cvxpy."""
    n, d = X.shape
    w, b = cp.Variable(d), cp.Variable(k - 1)
    f = X @ w
    if constraints == "implicit":
        s = np.where(y[:, None] > np.arange(1, k), 1.0, -1.0)
        xi = cp.Variable((n, k - 1), nonneg=True)
        margins = cp.reshape(f, (n, 1), order="C") @ np.ones((1, k - 1)) - np.ones((n, 1)) @ \
            cp.reshape(b, (1, k - 1), order="C")
        cons = [cp.multiply(s, margins) >= 1 - xi]
        slack = cp.sum(xi)
    else:
        up, lo = np.flatnonzero(y < k), np.flatnonzero(y > 1)
        xi, xs = cp.Variable(len(up), nonneg=True), cp.Variable(len(lo), nonneg=True)
        cons = [f[up] - b[y[up] - 1] <= -1 + xi, f[lo] - b[y[lo] - 2] >= 1 - xs, cp.diff(b) >= 0]
        slack = cp.sum(xi) + cp.sum(xs)
    problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * slack), cons)
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    assert problem.status == "optimal"
    return problem.value, w.value, b.value


@pytest.mark.parametrize("constraints", ["implicit", "explicit"])
@pytest.mark.parametrize("C", [0.5, 5.0])
def test_dual_matches_primal(constraints, C):
    X, y = small_data()
    model = SVOR(constraints, C=C, kernel="linear", tol=1e-7).fit(X, y)
    value, w, b = primal(X, y, 4, C, constraints)
    assert -model.objective_ == pytest.approx(value, rel=1e-6)  # strong duality
    w_ours = model.X_fit_.T @ model.dual_coef_
    np.testing.assert_allclose(w_ours, w, atol=1e-5)
    np.testing.assert_allclose(model.decision_function(X), X @ w, atol=1e-5)
    # (w, b) from the dual is itself primal-optimal ...
    ours = primal_objective(X, y, 4, C, constraints, w_ours, model.thresholds_)
    assert ours == pytest.approx(value, rel=1e-6)
    # ... and b_j is unique where an example lies on its margin (a free dual variable): equal there
    on_margin = np.isclose(np.abs(X @ w - b[:, None]), 1, atol=1e-6).any(1)
    assert on_margin.any()
    np.testing.assert_allclose(model.thresholds_[on_margin], b[on_margin], atol=1e-5)


def test_perceptron_kernel_centred_objective_unchanged():
    """The constraints force Σβ = 0, so centring the (conditionally PD) perceptron Gram matrix in
    the quadratic form leaves the objective unchanged."""
    X, y = small_data(1)
    model = SVOR(kernel="perceptron", tol=1e-7).fit(X, y)
    beta, K = model.dual_coef_, model._gram(X)
    centred = K - K.mean(0) - K.mean(1)[:, None] + K.mean()
    assert abs(beta.sum()) < 1e-6
    assert beta @ K @ beta == pytest.approx(beta @ centred @ beta, rel=1e-6)
    assert np.all(np.diff(model.thresholds_) >= 0)
    assert np.mean(model.predict(X) == y) > 0.5


def machine10(root):
    """Partition 0 of machine10 (10 bins) of the ORCA discretized-regression collection."""
    path = root / "orca-discretized-regression" / "10bins" / "machine10.tar.xz"
    if not path.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"{path} not found (set ORDRANK_DATA)")
        pytest.skip(f"{path} not found (set ORDRANK_DATA)")
    with tarfile.open(path) as tar:
        def load(part):
            member = tar.extractfile(f"10bins/machine10/matlab/{part}_machine10.0")
            data = np.loadtxt(io.BytesIO(member.read()))
            return data[:, :-1], data[:, -1].astype(int)
        return load("train"), load("test")


@pytest.mark.parametrize("constraints", ["implicit", "explicit"])
def test_predicts_like_skordinal_on_machine10(shared_data_dir, constraints):
    """Same C, γ and tolerance as skordinal's SVOR (Chu's SMO in C). Measured on partition 0:
    thresholds within 0.0022 (implicit) and 0.0010 (explicit), 59/59 test predictions equal.
    The residual comes from the C code adding 0.001 to the training kernel's diagonal."""
    import skordinal.classifiers as skordinal  # a dev dependency: a missing install fails, never skips
    (X, y), (X_test, _) = machine10(shared_data_dir)
    ours = SVOR(constraints, C=1.0, gamma=1.0, tol=1e-3).fit(X, y)
    theirs = skordinal.SVOR(constraints=constraints, C=1.0, gamma=1.0, tol=1e-3).fit(X, y)
    np.testing.assert_allclose(ours.thresholds_, theirs.thresholds_, atol=5e-3)
    np.testing.assert_allclose(ours.decision_function(X_test), theirs.predict_projection(X_test),
                               atol=2e-2)
    assert np.mean(ours.predict(X_test) == theirs.predict(X_test)) >= 0.95


@settings(max_examples=15)
@given(seed=st.integers(0, 2**31), n=st.integers(4, 30), k=st.integers(2, 6),
       C=st.sampled_from([0.05, 1.0, 20.0]), kernel=st.sampled_from(["rbf", "linear"]))
def test_svorex_thresholds_ordered(seed, n, k, C, kernel):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = rng.integers(1, k + 1, size=n)
    y[:2] = [1, k]  # at least two ranks
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # not inaccurate, not forced in order
        model = SVOR("explicit", C=C, kernel=kernel).fit(X, y)
    assert np.all(np.diff(model.thresholds_) >= 0), model.thresholds_
    assert model.status_ == "optimal"


@pytest.mark.filterwarnings("ignore:Solution may be inaccurate")
def test_solver_failure_raises_fitfailed():
    X, y = small_data()
    with pytest.raises(FitFailed, match=r"SVOR\(constraints='implicit', C=2.0, kernel='rbf', "
                                        r"gamma=0.5\).*status=user_limit"):
        CvxSVOR(C=2.0, gamma=0.5, max_iter=1).fit(X, y)
    with mock.patch.object(cp.Problem, "solve", side_effect=cp.error.SolverError("boom")):
        with pytest.raises(FitFailed, match="status=solver_error.*boom"):
            CvxSVOR(C=3.0).fit(X, y)


def test_inaccurate_status_accepted_with_warning():
    X, y = small_data()
    real_solve = cp.Problem.solve

    def inaccurate(problem, *args, **kwargs):
        value = real_solve(problem, *args, **kwargs)
        problem._status = "optimal_inaccurate"
        return value

    with mock.patch.object(cp.Problem, "solve", inaccurate):
        with pytest.warns(ConvergenceWarning, match="status=optimal_inaccurate"):
            model = CvxSVOR(C=4.0).fit(X, y)
    assert model.status_ == "optimal_inaccurate"


def test_bad_parameters_rejected():
    X, y = small_data()
    for bad in ({"C": 0}, {"gamma": -1.0}, {"kernel": "sigmoid"}, {"constraints": "both"},
                {"solver": "SCS"}, {"max_iter": 0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            CvxSVOR(**bad).fit(X, y)


def test_grid_search_reuses_compiled_problem():
    X, y = small_data(2, n=60)
    cache.clear_cache()
    search = GridSearchCV(CvxSVOR(gamma=0.5), {"C": [0.1, 1, 10]}, cv=3).fit(X, y)
    # 3 folds + the refit on all rows compile; the other 2 C values on each fold reuse
    assert cache.cache_stats == {"hits": 6, "misses": 4}
    assert search.best_params_["C"] in (0.1, 1, 10)
    fresh = CvxSVOR(gamma=0.5, C=search.best_params_["C"]).fit(X, y)  # a hit, same result
    np.testing.assert_array_equal(fresh.thresholds_, search.best_estimator_.thresholds_)
    assert cache.cache_stats["hits"] == 7


def test_osqp_solver_close_to_clarabel():
    X, y = small_data(3)
    a = CvxSVOR(solver="OSQP", tol=1e-6).fit(X, y)
    b = CvxSVOR(tol=1e-6).fit(X, y)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-3)
    assert np.mean(a.predict(X) == b.predict(X)) >= 0.95


def test_pivoted_cholesky():
    rng = np.random.default_rng(4)
    B = rng.normal(size=(50, 3))
    L = factor.pivoted_cholesky(B @ B.T, 1e-10, 10)  # rank 3: three columns, exact
    assert L.shape == (50, 3)
    np.testing.assert_allclose(L @ L.T, B @ B.T, atol=1e-10)
    K = np.exp(-0.1 * ((B[:, None] - B[None]) ** 2).sum(-1))  # full rank, fast decay
    L = factor.pivoted_cholesky(K, 1e-6, 50)
    assert np.trace(K - L @ L.T) <= 1e-6 * np.trace(K) and L.shape[1] < 50
    assert factor.pivoted_cholesky(K, 1e-6, L.shape[1] - 1) is None  # more than max_rank columns
    assert factor.pivoted_cholesky(-np.eye(5), 1e-6, 5) is None  # not PSD


def both_forms(X, y, **params):
    """The fit with the automatic choice of form, and with the exact n × n form forced."""
    cache.clear_cache()
    auto = CvxSVOR(**params).fit(X, y)
    cache.clear_cache()
    with mock.patch.object(factor, "MAX_RANK", 0.0):
        exact = CvxSVOR(**params).fit(X, y)
    cache.clear_cache()
    return auto, exact


@pytest.mark.parametrize("constraints", ["implicit", "explicit"])
@pytest.mark.parametrize("params", [{"gamma": 0.1, "C": 1.0}, {"gamma": 0.1, "C": 10.0},
                                    {"kernel": "poly", "gamma": 0.2}])
def test_low_rank_factor_agrees_with_exact_form(constraints, params):
    """Where K ≈ LLᵀ has few columns (here 2 features: r = 47 of n = 400) the factored dual has the
    exact dual's optimum, thresholds and predictions."""
    X, y = small_data(5, n=400, d=2, k=5)
    factored, exact = both_forms(X, y, constraints=constraints, tol=1e-6, **params)
    assert exact.kernel_rank_ is None and factored.kernel_rank_ <= factor.MAX_RANK * len(X)
    assert factored.objective_ == pytest.approx(exact.objective_, rel=1e-6)
    np.testing.assert_allclose(factored.thresholds_, exact.thresholds_, atol=1e-3)
    np.testing.assert_allclose(factored.decision_function(X), exact.decision_function(X),
                               atol=1e-3)
    assert np.mean(factored.predict(X) == exact.predict(X)) >= 0.99


@pytest.mark.parametrize("params", [{"gamma": 1.0}, {"kernel": "perceptron"}])
def test_exact_form_where_the_factor_would_not_help(params):
    """A narrow Gaussian kernel on 8 features, or the perceptron kernel: the factor would need more
    than MAX_RANK·n columns, so the exact form is used."""
    X, y = small_data(6, n=200, d=8)
    auto, exact = both_forms(X, y, **params)
    assert auto.kernel_rank_ is None
    np.testing.assert_array_equal(auto.thresholds_, exact.thresholds_)


def ranked_data(seed, n, noise, k=6, d=5):
    """Gaussian features, ranks = quantiles of a non-linear score plus noise·its std."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    s = X @ rng.normal(size=d) + np.sin(X[:, 0])
    z = s + noise * s.std() * rng.normal(size=n)
    return X, 1 + np.searchsorted(np.quantile(z, np.linspace(0, 1, k + 1)[1:-1]), z)


def primal_value(model, X, y, C):
    """½βᵀKβ + C·Σ hinge at the fitted (β, b): the primal objective, −(dual optimum) at the optimum."""
    maps = svor.Maps(model.to_ranks(y), len(model.classes_), model.constraints)
    f, b, beta = model.decision_function(X), model.thresholds_, model.dual_coef_
    return 0.5 * beta @ f + C * np.maximum(0, 1 - maps.s * (f[maps.i] - b[maps.j - 1])).sum()


@pytest.mark.parametrize("constraints", ["implicit", "explicit"])
@pytest.mark.parametrize("noise", [0.2, 1.0])
def test_working_set_reaches_the_exact_optimum(constraints, noise):
    """The working-set solve (restricted problems, KKT-checked on every variable) has the full
    solve's objective, thresholds and predictions, after restricting the kernel block."""
    X, y = ranked_data(7, 250, noise)
    cache.clear_cache()
    exact = CvxSVOR(constraints, gamma=0.2, C=2.0, tol=1e-6).fit(X, y)
    with small_first_pass():
        ws = CvxSVOR(constraints, gamma=0.2, C=2.0, tol=1e-6, working_set=True).fit(X, y)
    assert exact.n_rounds_ == 0 and exact.working_set_size_ == len(X)
    assert ws.n_rounds_ >= 1 and ws.working_set_size_ < len(X)
    assert ws.objective_ == pytest.approx(exact.objective_, rel=1e-6)
    np.testing.assert_allclose(ws.thresholds_, exact.thresholds_, atol=1e-3)
    np.testing.assert_allclose(ws.decision_function(X), exact.decision_function(X), atol=1e-3)
    assert np.mean(ws.predict(X) == exact.predict(X)) >= 0.99
    # optimal on all n examples: (β, b) has the primal value ½βᵀKβ + C·Σ hinge = −dual optimum
    assert primal_value(ws, X, y, 2.0) == pytest.approx(-exact.objective_, rel=1e-5)


def test_implicit_working_set_with_its_default_sizes():
    """At the module's own WS_SAMPLE, WS_FIRST and WS_PAIRS (n = 700: the first pass on every
    second example), the same optimum as the full solve, on a kernel block far smaller than n."""
    X, y = ranked_data(12, 700, 0.5, k=10, d=8)
    cache.clear_cache()
    exact = CvxSVOR(gamma=0.1, tol=1e-4).fit(X, y)
    ws = CvxSVOR(gamma=0.1, tol=1e-4, working_set=True).fit(X, y)
    assert ws.n_rounds_ >= 2 and ws.working_set_size_ < len(X) / 2
    assert ws.objective_ == pytest.approx(exact.objective_, rel=1e-5)
    np.testing.assert_allclose(ws.thresholds_, exact.thresholds_, atol=1e-3)
    assert np.mean(ws.predict(X) == exact.predict(X)) >= 0.995


def test_working_set_gives_up_for_the_full_solve_when_it_grows_past_half_the_data(monkeypatch):
    """On heavily overlapping ranks the restricted problems grow towards n; past WS_MAX_SHARE of the
    examples (from WS_SHARE_MIN_N) the fit solves the full problem instead: n_rounds_ = 0, the
    full solve's optimum. Checked by lowering the thresholds (n = 300 instead of ≥ 1000)."""
    X, y = ranked_data(5, 300, 1.0, k=5, d=4)
    cache.clear_cache()
    grown = CvxSVOR(gamma=0.2, C=2.0, tol=1e-5, working_set=True).fit(X, y)
    assert grown.n_rounds_ >= 1 and grown.working_set_size_ > 0.2 * len(X)  # what the cap cuts
    monkeypatch.setattr(working_set, "WS_SHARE_MIN_N", 100)
    monkeypatch.setattr(working_set, "WS_MAX_SHARE", 0.2)
    cache.clear_cache()
    capped = CvxSVOR(gamma=0.2, C=2.0, tol=1e-5, working_set=True).fit(X, y)
    exact = CvxSVOR(gamma=0.2, C=2.0, tol=1e-5, working_set=False).fit(X, y)
    assert capped.n_rounds_ == 0 and capped.working_set_size_ == len(X)
    assert capped.objective_ == pytest.approx(exact.objective_, rel=1e-9)
    assert capped.objective_ == pytest.approx(grown.objective_, rel=1e-4)


@pytest.mark.parametrize("constraints", ["implicit", "explicit"])
def test_working_set_accurate_at_large_C(constraints):
    """At C = 100 an interior point at tol = 1e-3 leaves bound variables up to ~0.1 from their
    bound, where they pass for free ones: the working set re-solves tighter instead of stopping
    on violations inside V, and lands within a few tol of the exact optimum (before, on abalone,
    thresholds 0.86 off and 7 % of the predictions changed)."""
    X, y = ranked_data(13, 400, 0.5, k=8, d=6)
    cache.clear_cache()
    ref = CvxSVOR(constraints, C=100.0, gamma=0.05, tol=1e-7).fit(X, y)
    with small_first_pass():
        ws = CvxSVOR(constraints, C=100.0, gamma=0.05, tol=1e-3, working_set=True).fit(X, y)
    assert ws.n_rounds_ >= 1
    np.testing.assert_allclose(ws.thresholds_, ref.thresholds_, atol=5e-3)
    assert np.mean(ws.predict(X) == ref.predict(X)) >= 0.995


@pytest.mark.parametrize("constraints", ["implicit", "explicit"])
def test_clarabel_standard_form_is_the_cvxpy_restricted_problem(constraints):
    """The restricted problems handed to Clarabel in its standard form and the same problems
    written in cvxpy have the same solution, thresholds (multipliers) and ν, with fixed
    variables at 0 and, after one round, at C and in between."""
    X, y = ranked_data(3, 120, 0.5)
    K = kernel_matrix(X, None, "rbf", gamma=0.2)
    gram = svor.Gram(K, K, y, 6, constraints)
    opts = solver_options("CLARABEL", 1e-4, None)
    rng, g = np.random.default_rng(0), np.zeros(len(gram.maps.i))
    for share in (0.4, 0.2, 0.2):
        V = rng.random(len(g)) < share
        direct = working_set.restricted_solve(gram, g, V, 2.0, "CLARABEL", opts)
        with mock.patch.object(clarabel_qp, "clarabel_box_qp", clarabel_qp.cvxpy_box_qp):
            modelled = working_set.restricted_solve(gram, g, V, 2.0, "CLARABEL", opts)
        assert direct.status == modelled.status == "optimal"
        np.testing.assert_allclose(direct.g, modelled.g, atol=1e-6)
        np.testing.assert_allclose(direct.b, modelled.b, atol=1e-6)
        if constraints == "explicit":
            np.testing.assert_allclose(direct.nu, modelled.nu, atol=1e-6)
        assert direct.size == modelled.size == len(np.unique(gram.maps.i[V]))
        g = direct.g
    assert ((g > 0.01) & (g < 1.99)).any() and (g > 1.99).any()


def small_first_pass():
    """The implicit working-set solve's first pass on 50 examples (not all of a small sample)
    and a first working set of 100 variables, so that these small problems need rounds."""
    return mock.patch.multiple(working_set, WS_SAMPLE=50, WS_FIRST=100)


@pytest.mark.parametrize("constraints", ["implicit", "explicit"])
def test_working_set_kkt_verified_on_all_variables(constraints):
    """Fixing variables at wrong values is detected: allowed one round, a noisy problem that needs
    several falls back to the full solve, with the same result."""
    X, y = ranked_data(8, 200, 1.0)
    cache.clear_cache()
    with small_first_pass(), mock.patch.multiple(working_set, WS_MAX_ROUNDS=1,
                                                       WS_ROUNDS_PER_N=1 / 200):
        fallback = CvxSVOR(constraints, gamma=0.2, tol=1e-6, working_set=True).fit(X, y)
    exact = CvxSVOR(constraints, gamma=0.2, tol=1e-6).fit(X, y)
    assert fallback.n_rounds_ == 0  # gave up on the working set
    np.testing.assert_array_equal(fallback.thresholds_, exact.thresholds_)
    with small_first_pass():
        several = CvxSVOR(constraints, gamma=0.2, tol=1e-6, working_set=True).fit(X, y)
    assert several.n_rounds_ > 1


def test_implicit_working_set_checks_the_threshold_bounds():
    """threshold_bounds: lower ≤ upper at the optimum (to the solver's accuracy); a variable moved off its
    optimal bound opens its threshold's gap, and most_violating picks it."""
    X, y = ranked_data(11, 120, 0.5)
    cache.clear_cache()
    model = CvxSVOR(gamma=0.2, C=1.0, tol=1e-7).fit(X, y)
    maps = svor.Maps(model.to_ranks(y), len(model.classes_), "implicit")
    g = np.clip(next(iter(cache._cache.values())).g.value, 0, 1.0)
    f = model.decision_function(X)
    bounds = kkt.threshold_bounds(f, maps, g, 1.0)
    assert np.max(bounds[3] - bounds[4]) < 1e-4
    assert not kkt.most_violating(maps, *bounds, 1e-4, 10).any()
    # a variable at 0 whose example lies far on its right side: claim it is at C instead
    margin = maps.s * (f[maps.i] - model.thresholds_[maps.j - 1])
    wrong = np.flatnonzero((g < 1e-3) & (margin > 2))[0]
    g[wrong] = 1.0
    bounds = kkt.threshold_bounds(f, maps, g, 1.0)
    assert (bounds[3] - bounds[4])[maps.j[wrong] - 1] > 1
    assert kkt.most_violating(maps, *bounds, 1e-4, 10)[wrong]


def test_working_set_auto_by_size_and_variant():
    """The default "auto": the working set for implicit constraints from WS_MIN_N rows, never for
    explicit ones (slower than their full solve); True forces it for both."""
    X, y = ranked_data(9, 60, 0.2)
    assert SVOR().working_set == "auto"
    for constraints in ("implicit", "explicit"):
        with mock.patch.object(svor, "WS_MIN_N", 61):
            assert CvxSVOR(constraints).fit(X, y).n_rounds_ == 0
    with small_first_pass(), mock.patch.object(svor, "WS_MIN_N", 60):
        assert CvxSVOR().fit(X, y).n_rounds_ >= 1
        assert CvxSVOR(working_set=False).fit(X, y).n_rounds_ == 0
    with mock.patch.object(svor, "WS_MIN_N", 60):
        assert CvxSVOR("explicit").fit(X, y).n_rounds_ == 0
        assert CvxSVOR("explicit", working_set=True).fit(X, y).n_rounds_ >= 1
    with pytest.raises(ValueError, match="working_set"):
        CvxSVOR(working_set="sometimes").fit(X, y)


def test_make_feasible_balances_every_threshold():
    """A guess whose fixed variables no working variable can balance gets enough variables moved
    into the working set, nearest their margin first."""
    rng = np.random.default_rng(10)
    ranks = rng.integers(1, 5, size=80)
    maps = svor.Maps(ranks, 4, "implicit")
    g = np.where(maps.s > 0, 1.0, 0.0)  # every s = +1 at C: each sum Σ s g > 0
    margin = rng.normal(1, 1, size=len(g))
    V = working_set.make_feasible(maps, g, np.zeros(len(g), bool), margin, 1.0)
    for j in range(1, 4):
        at = maps.j == j
        rest = np.sum((maps.s * g)[at & ~V])
        assert -np.sum(at & V & (maps.s < 0)) <= -rest <= np.sum(at & V & (maps.s > 0))
        moved = np.flatnonzero(at & V)
        kept = np.flatnonzero(at & ~V & (maps.s > 0))
        if len(kept):  # nearest the margin moved first
            assert np.abs(margin[moved] - 1).max() <= np.abs(margin[kept] - 1).min()


def test_working_set_under_grid_search():
    """GridSearchCV's clones with the working set choose and refit like the full solve."""
    X, y = ranked_data(11, 120, 0.5)
    grid = {"C": [0.1, 1.0, 10.0]}
    ws = GridSearchCV(CvxSVOR(gamma=0.5, tol=1e-6, working_set=True), grid, cv=3).fit(X, y)
    exact = GridSearchCV(CvxSVOR(gamma=0.5, tol=1e-6), grid, cv=3).fit(X, y)
    assert ws.best_params_ == exact.best_params_
    np.testing.assert_allclose(ws.cv_results_["mean_test_score"],
                               exact.cv_results_["mean_test_score"], atol=1e-9)
    np.testing.assert_allclose(ws.best_estimator_.thresholds_, exact.best_estimator_.thresholds_,
                               atol=1e-4)
