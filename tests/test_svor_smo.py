"""SVOR's SMO solver (``solver="SMO"``, :mod:`ordrank.algorithms.qp.smo`) against the interior-point
solve of the same dual, the authors' C code (skordinal) and the KKT conditions."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from ordrank.algorithms.batch.svor import SVOR
from test_svor import ORDINAL_SCORE, machine10, primal_value, ranked_data


@parametrize_with_checks([SVOR(solver="SMO"), SVOR("explicit", solver="SMO", kernel="linear")],
                         expected_failed_checks=lambda est: ORDINAL_SCORE)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def overlapping_middle(seed, n=200):
    """Ranks 1 and 3 drawn alike, 2 and 4 rare: SVOREX's ordering constraints become active."""
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 2)), rng.choice([1, 2, 3, 4, 5], size=n, p=[.4, .05, .4, .1, .05])


@pytest.mark.parametrize("solver", ["SMO", "IPM"])
@pytest.mark.parametrize("constraints", ["implicit", "explicit"])
@pytest.mark.parametrize("noise, C", [(0.2, 1.0), (1.0, 10.0), (1.0, 100.0)])
def test_smo_and_ipm_reach_the_clarabel_optimum(constraints, noise, C, solver):
    X, y = ranked_data(3, 300, noise)
    exact = SVOR(constraints, gamma=0.2, C=C, tol=1e-7, working_set=False,
                 solver="CLARABEL").fit(X, y)
    ours = SVOR(constraints, gamma=0.2, C=C, tol=1e-5, solver=solver).fit(X, y)
    assert ours.status_ == "optimal" and 0 < ours.n_iter_ and (solver == "SMO" or ours.n_iter_ <= 40)
    assert ours.objective_ == pytest.approx(exact.objective_, rel=1e-6)
    np.testing.assert_allclose(ours.thresholds_, exact.thresholds_, atol=2e-3)
    np.testing.assert_allclose(ours.decision_function(X), exact.decision_function(X), atol=2e-3)
    assert np.mean(ours.predict(X) == exact.predict(X)) >= 0.99
    assert primal_value(ours, X, y, C) == pytest.approx(-exact.objective_, rel=1e-5)


@pytest.mark.parametrize("solver", ["SMO", "IPM"])
@pytest.mark.parametrize("kernel, C", [("linear", 1.0), ("rbf", 10.0)])
def test_smo_and_ipm_with_active_ordering_constraints(kernel, C, solver):
    """SVOREX's ν > 0 ties thresholds (SMO moves pairs across thresholds while ν_j > 0); the
    solvers' ν is Clarabel's."""
    X, y = overlapping_middle(4)
    exact = SVOR("explicit", kernel=kernel, gamma=0.5, C=C, tol=1e-7, working_set=False,
                 solver="CLARABEL").fit(X, y)
    ours = SVOR("explicit", kernel=kernel, gamma=0.5, C=C, tol=1e-5, solver=solver).fit(X, y)
    assert ours.objective_ == pytest.approx(exact.objective_, rel=1e-6)
    np.testing.assert_allclose(ours.thresholds_, exact.thresholds_, atol=2e-3)
    tied = np.isclose(np.diff(ours.thresholds_), 0, atol=1e-9)
    assert tied.any()  # an active ordering constraint: two thresholds are one
    np.testing.assert_array_equal(tied, np.isclose(np.diff(exact.thresholds_), 0, atol=1e-6))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(4, 40), k=st.integers(2, 6),
       C=st.sampled_from([0.1, 1.0, 100.0]), constraints=st.sampled_from(["implicit", "explicit"]))
def test_smo_optimal_and_ordered(seed, n, k, C, constraints):
    """Any data (ranks possibly missing, duplicate rows): SMO's dual objective is no worse than
    the interior point's, its thresholds ordered."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 2)), 1)  # duplicates: pairs with η = 0
    y = rng.integers(1, k + 1, size=n)
    if len(np.unique(y)) < 2:
        y[0], y[-1] = 1, 2
    exact = SVOR(constraints, gamma=1.0, C=C, tol=1e-7, working_set=False,
                 solver="CLARABEL").fit(X, y)
    smo = SVOR(constraints, gamma=1.0, C=C, tol=1e-6, solver="SMO").fit(X, y)
    assert smo.objective_ <= exact.objective_ + 1e-5 * max(1.0, abs(exact.objective_))
    assert np.all(np.diff(smo.thresholds_) >= 0)


@pytest.mark.filterwarnings("ignore:.*KKT intervals of the thresholds are not ordered")
def test_smo_stopped_by_max_iter_warns():
    X, y = ranked_data(5, 100, 1.0)
    with pytest.warns(ConvergenceWarning, match="optimal_inaccurate"):
        model = SVOR(solver="SMO", C=10.0, max_iter=3).fit(X, y)
    assert model.status_ == "optimal_inaccurate" and model.n_iter_ == 3


@pytest.mark.parametrize("constraints", ["implicit", "explicit"])
def test_smo_predicts_like_skordinal_at_large_C(shared_data_dir, constraints):
    """machine10, partition 0, C = 100, γ = 1, the C code's 0.001 on the diagonal: the same
    problem as skordinal's (Chu & Keerthi's SMO in C), the same test predictions."""
    import skordinal.classifiers as skordinal
    (X, y), (X_test, _) = machine10(shared_data_dir)
    theirs = skordinal.SVOR(constraints=constraints, C=100.0, gamma=1.0, tol=1e-3).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        ours = SVOR(constraints, C=100.0, gamma=1.0, diagonal_jitter=0.001, solver="SMO").fit(X, y)
    np.testing.assert_allclose(ours.thresholds_, theirs.thresholds_, atol=5e-3)
    # both stop at the same tol = 1e-3 of the KKT gap: scores of size 5-10 within 0.01
    np.testing.assert_allclose(ours.decision_function(X_test), theirs.predict_projection(X_test),
                               atol=1e-2)
    assert np.mean(ours.predict(X_test) == theirs.predict(X_test)) == 1.0


@pytest.mark.parametrize("constraints", ["implicit", "explicit"])
def test_auto_is_smo_within_its_budget_else_the_interior_point(constraints):
    """The default ``solver="auto"``: at C = 0.1 SMO converges within its budget and auto's fit
    is SMO's, bit for bit; at C = 1000 SMO needs more steps than the budget (checked) and auto's
    fit is the IPM's, bit for bit."""
    from ordrank.algorithms.batch.svor_dual import smo_budget

    X, y = ranked_data(6, 400, 1.0)
    budget = smo_budget(len(X))
    assert SVOR().solver == "auto"
    for C, expected in ((0.1, "SMO"), (1000.0, "IPM")):
        auto = SVOR(constraints, gamma=0.2, C=C).fit(X, y)
        alone = SVOR(constraints, gamma=0.2, C=C, solver=expected).fit(X, y)
        smo = alone if expected == "SMO" else SVOR(constraints, gamma=0.2, C=C,
                                                   solver="SMO").fit(X, y)
        assert auto.solver_ == expected and auto.status_ == "optimal"
        assert (smo.n_iter_ <= budget) == (expected == "SMO")
        assert auto.n_iter_ == alone.n_iter_
        np.testing.assert_array_equal(auto.dual_coef_, alone.dual_coef_)
        np.testing.assert_array_equal(auto.thresholds_, alone.thresholds_)
