"""RankSVM (linear): the objective against LinearSVC on the explicit pair differences, the sweeps
against the explicit pairs, a separable toy, qid routed through GridSearchCV with GroupKFold."""
import warnings

import numpy as np
import pytest
import sklearn
from hypothesis import given
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, GroupKFold
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from ordrank.algorithms.ranking import RankSVM, ranksvm
from ordrank.algorithms.ranking._pairwise import MarginSweep, dense_ranks, margin_counts
from ordrank.queries import preference_pairs, query_index


def toy(seed=0, n_queries=8, d=4, levels=3):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), rng.integers(2, 20, n_queries))
    X = rng.normal(size=(len(qid), d))
    y = rng.integers(0, levels, len(qid)).astype(float)
    return X, y, qid


def explicit_objective(w, X, y, qid, C, loss):
    i, j = preference_pairs(y, qid)
    slack = np.maximum(1.0 - (X[i] - X[j]) @ w, 0.0)
    return 0.5 * w @ w + C * np.sum(slack if loss == "hinge" else slack ** 2)


def oracle_objective(X, y, qid, C, loss, max_iter=200_000):
    """The RankSVM objective at LinearSVC's optimum on the explicit pair differences: the rows d_p
    (+1) and −d_p (−1) count every pair twice, so LinearSVC's C' = C/2."""
    i, j = preference_pairs(y, qid)
    D = X[i] - X[j]
    oracle = LinearSVC(C=C / 2, loss=loss, fit_intercept=False, tol=1e-10, max_iter=max_iter)
    oracle.fit(np.vstack([D, -D]), np.r_[np.ones(len(D)), -np.ones(len(D))])
    return explicit_objective(oracle.coef_.ravel(), X, y, qid, C, loss)


@given(st.integers(0, 10_000), st.integers(1, 9), st.sampled_from([0.0, 0.5, 1.0]))
def test_sweep_counts_and_sums_equal_the_explicit_pairs(seed, levels, margin):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(4), rng.integers(1, 12, 4))
    n = len(qid)
    y = rng.integers(0, levels, n).astype(float)
    s = np.round(rng.normal(size=n), 1)  # ties between s_i and s_j + margin happen
    v = rng.normal(size=n)
    sweep = MarginSweep(s, margin, *dense_ranks(y), query_index(qid))
    i, j = preference_pairs(y, qid)
    active = s[i] < s[j] + margin
    below, above = sweep.partner_sums(v)
    np.testing.assert_allclose(below, np.bincount(j[active], v[i[active]], n), atol=1e-12)
    np.testing.assert_allclose(above, np.bincount(i[active], v[j[active]], n), atol=1e-12)
    np.testing.assert_array_equal(sweep.lower_count, np.bincount(j[active], minlength=n))
    np.testing.assert_array_equal(sweep.upper_count, np.bincount(i[active], minlength=n))
    lower, upper = margin_counts(s, margin, *dense_ranks(y), query_index(qid))
    np.testing.assert_array_equal(lower, np.bincount(j[active], minlength=n))
    np.testing.assert_array_equal(upper, np.bincount(i[active], minlength=n))


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("C", [0.01, 1.0])
@pytest.mark.parametrize("levels", [2, 5])
def test_objective_equals_linear_svc_on_pair_differences(loss, C, levels):
    """LinearSVC minimises ½‖w‖² + C' Σ ℓ(y_k w·x_k); the rows d_p (+1) and −d_p (−1) count every
    pair twice, so C' = C/2 gives the RankSVM objective."""
    X, y, qid = toy(levels, levels=levels)
    model = RankSVM(C=C, loss=loss, tol=1e-7).fit(X, y, qid)
    ours = explicit_objective(model.coef_, X, y, qid, C, loss)
    theirs = oracle_objective(X, y, qid, C, loss)
    assert ours == pytest.approx(model.objective_, rel=1e-10)
    assert ours == pytest.approx(theirs, rel=1e-4)
    assert ours <= theirs * (1 + 1e-6)  # not worse than the oracle beyond the certified gap
    assert model.n_pairs_ == len(preference_pairs(y, qid)[0])


@pytest.mark.parametrize("solver", ["cutting_plane", "smoothed_newton"])
@pytest.mark.parametrize("C", [0.01, 1.0, 100.0])
def test_hinge_gap_is_a_certified_bound(C, solver):
    """Either hinge solver's gap_ comes from a dual bound: the optimum (here LinearSVC's, solved to
    1e-10 on the explicit pairs) lies between F(w)·(1 − gap_) and F(w)."""
    X, y, qid = toy(5, levels=5)
    model = RankSVM(C=C, tol=1e-3, solver=solver).fit(X, y, qid)
    best = min(oracle_objective(X, y, qid, C, "hinge", max_iter=500_000), model.objective_)
    assert 0 <= model.gap_ <= 1e-3
    assert model.objective_ * (1 - model.gap_) <= best * (1 + 1e-9)


@pytest.mark.parametrize("loss, solver", [("hinge", "cutting_plane"), ("hinge", "smoothed_newton"),
                                          ("squared_hinge", "auto")])
def test_every_linear_solver_stopped_by_max_iter_warns_with_its_gap(loss, solver):
    """Stopped by max_iter, far from the optimum: the warning names the limit and the certified gap
    that remains (the optimum within it), and nothing says "optimal"."""
    X, y, qid = toy(5, levels=5)
    with pytest.warns(ConvergenceWarning, match=r"max_iter=3 reached with a certified relative gap of [\d.e+-]+ "):
        model = RankSVM(C=100.0, loss=loss, tol=1e-9, max_iter=3, solver=solver).fit(X, y, qid)
    assert model.gap_ > 1e-3
    best = RankSVM(C=100.0, loss=loss, tol=1e-7).fit(X, y, qid)  # the two brackets of F* overlap
    assert model.objective_ * (1 - model.gap_) <= best.objective_ and best.objective_ <= model.objective_
    assert "optimal" not in str(getattr(model, "status_", ""))


@pytest.mark.parametrize("C", [0.01, 1.0, 100.0])
def test_squared_hinge_gap_is_a_certified_bound(C):
    """The trust-region Newton stops on the gradient; its gap_ (dual point α_p = 2C max(0, z_p))
    bounds the optimum (LinearSVC's, on the explicit pairs) from below, and is small at its stop."""
    X, y, qid = toy(5, levels=5)
    model = RankSVM(C=C, loss="squared_hinge", tol=1e-5).fit(X, y, qid)
    best = min(oracle_objective(X, y, qid, C, "squared_hinge"), model.objective_)
    assert -1e-12 <= model.gap_ <= 1e-6
    assert model.objective_ * (1 - model.gap_) <= best * (1 + 1e-9)


@pytest.mark.parametrize("docs, levels, threshold, expected", [
    (40, 3, 100, "_smoothed_newton"),      # long queries (sweeps), from the threshold on
    (40, 3, 10**9, "_cutting_plane"),      # below it
    (6, 20, 100, "_cutting_plane"),        # small queries (the explicit pairs): whatever the count
])
def test_auto_rule(monkeypatch, docs, levels, threshold, expected):
    """solver="auto": the smoothed Newton from AUTO_NEWTON_PAIRS pairs where sweeps count them, else the
    cutting plane (benchmarks/bench_ranking.py --part solvers: faster on small queries up to 1e7 pairs)."""
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(30), docs)
    X = rng.normal(size=(len(qid), 4))
    y = rng.integers(0, levels, len(qid)).astype(float)
    monkeypatch.setattr(ranksvm, "AUTO_NEWTON_PAIRS", threshold)
    used = []
    for name in ("_smoothed_newton", "_cutting_plane"):
        solve = getattr(ranksvm, name)
        monkeypatch.setattr(ranksvm, name,
                            lambda *args, name=name, solve=solve, **kw: used.append(name) or solve(*args, **kw))
    model = RankSVM(C=0.1).fit(X, y, qid)
    assert used == [expected] and model.n_pairs_ > 100 and model.gap_ <= model.tol


def test_smoothed_newton_equals_linear_svc_on_pair_differences():
    """The large-data solver reaches the same optimum as the oracle (and as the cutting plane)."""
    X, y, qid = toy(5, levels=5)
    model = RankSVM(C=1.0, tol=1e-7, solver="smoothed_newton").fit(X, y, qid)
    theirs = oracle_objective(X, y, qid, 1.0, "hinge")
    assert model.objective_ == pytest.approx(theirs, rel=1e-4)
    assert model.objective_ <= theirs * (1 + 1e-6)
    plane = RankSVM(C=1.0, tol=1e-7, solver="cutting_plane").fit(X, y, qid)
    assert model.objective_ == pytest.approx(plane.objective_, rel=1e-6)


def test_no_qid_is_one_query_of_every_pair_with_different_labels():
    X, y, qid = toy(3)
    model = RankSVM(C=0.1).fit(X, y)
    assert model.n_pairs_ == len(preference_pairs(y)[0])
    assert model.objective_ == pytest.approx(
        explicit_objective(model.coef_, X, y, None, 0.1, "hinge"), rel=1e-10)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_separable_toy_ranked_perfectly(loss):
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(10), 12)
    X = rng.normal(size=(120, 3))
    y = np.digitize(X @ np.array([1.0, -2.0, 0.5]), [-1.0, 0.0, 1.0]).astype(float)
    model = RankSVM(C=100.0, loss=loss).fit(X, y, qid)
    s = model.decision_function(X)
    i, j = preference_pairs(y, qid)
    assert np.all(s[i] > s[j])
    assert model.score(X, y, qid) == pytest.approx(1.0)


def test_qid_is_routed_through_grid_search_with_group_kfold():
    """Every split's score equals a fit by hand on that split with its qid; the refit equals the fit
    on all rows with qid; without qid (one query) the fit differs, so a dropped qid fails."""
    X, y, qid = toy(5, n_queries=9)
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(RankSVM(tol=1e-8), {"C": [0.1, 1.0]}, cv=GroupKFold(n_splits=3))
        search.fit(X, y, qid=qid, groups=qid)
    for k, C in enumerate([0.1, 1.0]):
        scores = [RankSVM(C=C, tol=1e-8).fit(X[tr], y[tr], qid[tr]).score(X[te], y[te], qid[te])
                  for tr, te in GroupKFold(n_splits=3).split(X, y, qid)]
        np.testing.assert_allclose(search.cv_results_["mean_test_score"][k], np.mean(scores), rtol=1e-6)
    by_hand = RankSVM(C=search.best_params_["C"], tol=1e-8).fit(X, y, qid)
    np.testing.assert_allclose(search.best_estimator_.coef_, by_hand.coef_, rtol=1e-5, atol=1e-8)
    assert not np.allclose(RankSVM(C=search.best_params_["C"]).fit(X, y).coef_, by_hand.coef_,
                           rtol=1e-2)


@parametrize_with_checks([RankSVM(), RankSVM(loss="squared_hinge")])
def test_sklearn_checks(estimator, check):
    check(estimator)


def raw_scaled_queries(seed=0, n_queries=30, docs=60, d=8):
    """Long queries whose columns sit on scales from 1e-3 to 1e6 (raw web features)."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), docs)
    Z = rng.normal(size=(len(qid), d))
    y = np.digitize(Z @ rng.normal(size=d) + rng.normal(size=len(qid)), [-1.0, 0.0, 1.0]).astype(float)
    return Z * np.logspace(-3, 6, d), y, qid


def test_smoothed_newton_converges_on_raw_feature_scales(monkeypatch):
    """Diagonally preconditioned CG: the fit reaches its certified gap where plain CG stops at max_iter."""
    X, y, qid = raw_scaled_queries()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = RankSVM(C=1e-2, solver="smoothed_newton", tol=1e-4, max_iter=45).fit(X, y, qid)
    assert model.gap_ <= 1e-4 and model.n_iter_ < 45  # measured: 17 (plain: 84)
    assert explicit_objective(model.coef_, X, y, qid, 1e-2, "hinge") == pytest.approx(model.objective_, rel=1e-9)
    monkeypatch.setattr(ranksvm, "ILL_CONDITIONED", np.inf)  # no preconditioner: stalls
    with pytest.warns(ConvergenceWarning, match=r"max_iter=45 reached with a certified relative gap"):
        plain = RankSVM(C=1e-2, solver="smoothed_newton", tol=1e-4, max_iter=45).fit(X, y, qid)
    assert plain.gap_ > 1e-4 and model.objective_ < plain.objective_
