"""Ordered logit / probit against statsmodels' own fit, and the PRank paper's two baselines."""
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import norm
from sklearn.datasets import load_diabetes
from sklearn.dummy import DummyRegressor
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVC, SVR
from sklearn.utils.estimator_checks import parametrize_with_checks
from statsmodels.miscmodels.ordinal_model import OrderedModel

from ordrank.algorithms._ordinal import FitFailed
from ordrank.algorithms.batch.baselines import NominalClassification, RoundedRegression
from ordrank.algorithms.batch.ordered import OrderedRegression, independent_columns
from ordrank.algorithms.batch.separation import SeparationWarning, separating_direction
from conftest import UNORDERED_STRING_LABELS


def diabetes_ranks():
    """442 patients: BMI, blood pressure, s5 (serum); disease progression cut at its quartiles."""
    data = load_diabetes()
    X = data.data[:, [2, 3, 8]] * 20  # the bundled features are scaled to unit norm; undo roughly
    y = 1 + np.digitize(data.target, np.quantile(data.target, [0.25, 0.5, 0.75]))
    return X, y


@pytest.mark.parametrize("distr", ["logit", "probit"])
def test_matches_statsmodels(distr):
    X, y = diabetes_ranks()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not separated: no warning of any kind
        model = OrderedRegression(distr).fit(X, y)
    assert model.separating_direction_ is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = OrderedModel(y, X, distr=distr).fit(method="bfgs", disp=False)
    assert model.status_ == "converged" and model.converged_
    np.testing.assert_allclose(model.coef_, ref.params[:3], atol=1e-4)
    thresholds = ref.model.transform_threshold_params(ref.params)[1:-1]
    np.testing.assert_allclose(model.thresholds_, thresholds, atol=1e-4)
    assert np.all(np.diff(model.thresholds_) > 0)
    np.testing.assert_allclose(model.predict_proba(X), ref.predict(X), atol=1e-6)
    np.testing.assert_array_equal(model.predict(X), 1 + ref.predict(X).argmax(1))
    np.testing.assert_allclose(model.decision_function(X), X @ model.coef_)
    assert model.score(X, y) > -1  # better than a constant guess on quartiles (MAE 1)
    # independently of statsmodels' parametrization: (coef_, thresholds_) maximize the likelihood
    F = {"logit": lambda t: 1 / (1 + np.exp(-t)), "probit": lambda t: norm.cdf(t)}[distr]

    def loglike(theta):
        beta, cuts = theta[:3], np.concatenate([[-np.inf], theta[3:], [np.inf]])
        return np.sum(np.log(F(cuts[y] - X @ beta) - F(cuts[y - 1] - X @ beta)))

    theta = np.concatenate([model.coef_, model.thresholds_])
    assert loglike(theta) == pytest.approx(ref.llf, rel=1e-10)
    gradient = [(loglike(theta + h) - loglike(theta - h)) / 2e-6 for h in np.eye(6) * 1e-6]
    # statsmodels' BFGS stops once the gradient of the MEAN log-likelihood is below gtol = 1e-5
    np.testing.assert_allclose(gradient, 0, atol=2e-5 * len(y))


def test_constant_and_collinear_columns_are_dropped():
    X, y = diabetes_ranks()
    wide = np.column_stack([X, np.full(len(X), 3.0), X[:, 0] - 2 * X[:, 1] + 1.0, np.zeros(len(X))])
    keep = independent_columns(wide)  # one of columns 0, 1, 4 may go: any two of them suffice
    assert keep.sum() == 3 and not keep[[3, 5]].any() and keep[2]
    model = OrderedRegression().fit(wide, y)
    assert model.support_.sum() == 3 and model.coef_[~model.support_].tolist() == [0.0] * 3
    np.testing.assert_array_equal(model.predict(wide), OrderedRegression().fit(X, y).predict(X))
    assert OrderedRegression().fit(np.ones((6, 2)), [1, 2, 3, 1, 2, 3]).coef_.tolist() == [0, 0]


def test_non_convergence_and_failure_are_reported(monkeypatch):
    X, y = diabetes_ranks()
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        model = OrderedRegression(maxiter=1).fit(X, y)
    assert model.status_ == "not converged" and not model.converged_

    def broken(*args, **kwargs):
        raise np.linalg.LinAlgError("singular matrix")

    monkeypatch.setattr(OrderedModel, "fit", broken)
    with pytest.raises(FitFailed, match=r"OrderedRegression\(distr='probit'\).*singular"):
        OrderedRegression("probit").fit(X, y)


def test_labels_are_ranked_in_their_declared_order():
    """String labels rank in the order of an ordered Categorical (not alphabetically); unordered
    strings are refused (tests/test_bad_inputs.py)."""
    X, y = diabetes_ranks()
    names = ["low", "mid", "high", "top"]
    labels = pd.Categorical(np.array(names)[y - 1], categories=names, ordered=True)
    model = OrderedRegression().fit(X, labels)
    assert model.classes_.tolist() == names
    ranks = OrderedRegression().fit(X, y).predict(X)
    np.testing.assert_array_equal(model.predict(X), np.array(names)[ranks - 1])


def test_rounded_regression_rounds_half_up_and_clips():
    X = np.zeros((4, 1))
    assert RoundedRegression(DummyRegressor(strategy="constant", constant=2.5)).fit(
        X, [1, 2, 3, 4]).predict(X).tolist() == [3] * 4
    x = np.arange(8.0)[:, None]
    model = RoundedRegression(LinearRegression()).fit(x, [1, 1, 2, 2, 3, 3, 4, 4])
    assert model.predict([[-50.0], [50.0]]).tolist() == [1, 4]
    assert isinstance(model.estimator_, LinearRegression)


def test_grid_search_over_baselines():
    X, y = diabetes_ranks()
    for model, grid in [(RoundedRegression(SVR()), {"regressor__C": [0.1, 1.0]}),
                        (NominalClassification(SVC()), {"classifier__C": [0.1, 1.0]})]:
        search = GridSearchCV(model, grid, cv=3).fit(X, y)
        assert search.best_score_ > -1.2
        assert search.best_estimator_.estimator_.C in (0.1, 1.0)


LATENT_SCORE = {
    "check_classifiers_train": "decision_function is the latent score x·β, not a margin: with two "
    "ranks its sign is not the predicted class (that needs x·β > θ_1)",
    **UNORDERED_STRING_LABELS,
}


def expected_failures(estimator):
    return LATENT_SCORE if isinstance(estimator, OrderedRegression) else UNORDERED_STRING_LABELS


@parametrize_with_checks([OrderedRegression(), RoundedRegression(), NominalClassification()],
                         expected_failed_checks=expected_failures)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("distr", ["logit", "probit"])
@pytest.mark.parametrize("scale", [1e200, 1e20, 1e-200])
def test_the_fit_does_not_depend_on_the_inputs_scale(distr, scale):
    """X * 1e200 gave zero coefficients and rank 1 for everything (the column norms overflowed and
    every column was dropped); columns are now fitted rescaled by a power of two."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = np.digitize(X @ [1.0, 2.0, -1.0] + 0.5 * rng.normal(size=200), [-1, 0, 1]) + 1
    plain = OrderedRegression(distr).fit(X, y)
    scaled = OrderedRegression(distr).fit(X * scale, y)
    np.testing.assert_allclose(scaled.coef_ * scale, plain.coef_, rtol=1e-3)
    np.testing.assert_allclose(scaled.thresholds_, plain.thresholds_, rtol=1e-3, atol=1e-3)
    np.testing.assert_array_equal(scaled.predict(X * scale), plain.predict(X))


def separated_by_first_feature(n=200, seed=0):
    """Ranks 1..4 by thresholds on X[:, 0] alone (the other two columns are noise): the ordered logit's
    likelihood approaches its supremum 0 only as the coefficient of X[:, 0] grows without bound."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, 1 + np.digitize(X[:, 0], [-0.5, 0.0, 0.5])


@pytest.mark.parametrize("distr", ["logit", "probit"])
def test_separated_data_warn_and_say_so(distr):
    X, y = separated_by_first_feature()
    with pytest.warns(SeparationWarning, match=r"maximum-likelihood estimate does not exist.*alpha > 0"):
        model = OrderedRegression(distr).fit(X, y)
    assert issubclass(SeparationWarning, ConvergenceWarning)
    assert model.status_ == "separated" and not model.converged_
    assert np.abs(model.coef_[0]) > 10 * np.abs(model.coef_[1:]).max()  # BFGS went far along X[:, 0]
    assert np.abs(model.separating_direction_[0]) > 0.99
    # the likelihood keeps improving with the scale of (coef_, thresholds_): no maximum to stop at
    F = {"logit": lambda t: 1 / (1 + np.exp(-t)), "probit": norm.cdf}[distr]

    def loglike(scale):
        cuts = np.concatenate([[-np.inf], model.thresholds_, [np.inf]]) * scale
        beta = model.coef_ * scale
        return np.sum(np.log(F(cuts[y] - X @ beta) - F(cuts[y - 1] - X @ beta)))

    assert loglike(1) < loglike(1.2) <= 0  # (probit reaches 0 in floating point soon after)


def test_quasi_complete_separation_by_one_point():
    """One column non-zero on a single top-rank row: the likelihood grows with that column's coefficient
    (quasi-complete separation: every other row is untouched), so no maximum-likelihood estimate."""
    X, y = diabetes_ranks()
    lone = np.zeros(len(X))
    lone[np.flatnonzero(y == 4)[0]] = 1.0
    with pytest.warns(SeparationWarning):
        model = OrderedRegression().fit(np.column_stack([X, lone]), y)
    assert model.status_ == "separated" and np.argmax(np.abs(model.separating_direction_)) == 3


@pytest.mark.parametrize("distr", ["logit", "probit"])
def test_a_penalty_gives_finite_coefficients_without_warning(distr):
    X, y = separated_by_first_feature()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = OrderedRegression(distr, alpha=1.0).fit(X, y)
    assert model.status_ == "converged" and model.converged_ and model.separating_direction_ is None
    assert np.all(np.isfinite(model.coef_)) and np.abs(model.coef_).max() < 50
    assert np.mean(model.predict(X) == y) > 0.9
    # the penalized log-likelihood is stationary in the coefficients (inputs' units)
    F = {"logit": lambda t: 1 / (1 + np.exp(-t)), "probit": norm.cdf}[distr]

    def objective(beta):
        cuts = np.concatenate([[-np.inf], model.thresholds_, [np.inf]])
        return np.sum(np.log(F(cuts[y] - X @ beta) - F(cuts[y - 1] - X @ beta))) - 0.5 * beta @ beta

    gradient = [(objective(model.coef_ + h) - objective(model.coef_ - h)) / 2e-6 for h in np.eye(3) * 1e-6]
    np.testing.assert_allclose(gradient, 0, atol=2e-5 * len(y))
    weaker = OrderedRegression(distr, alpha=0.01).fit(X, y)  # less penalty, larger coefficient
    assert abs(weaker.coef_[0]) > abs(model.coef_[0])
    with pytest.raises(ValueError, match="alpha"):
        OrderedRegression(alpha=-1.0).fit(X, y)


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(8, 60), p=st.integers(1, 4), k=st.integers(2, 5))
def test_separation_is_decided_by_the_data_geometry(seed, n, p, k):
    """Ranks cut from a linear score: separated, along a direction that orders the ranks. The same rows
    observed at every rank besides: the maximum-likelihood estimate exists (no direction orders them)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    score = X @ rng.normal(size=p)
    cuts = np.quantile(score, np.linspace(0, 1, k + 1)[1:-1])
    ranks = 1 + np.searchsorted(cuts, score, side="left")
    ranks = np.searchsorted(np.unique(ranks), ranks) + 1  # ranks 1..K all present
    if ranks.max() < 2:
        return
    d = separating_direction(X, ranks)
    assert d is not None
    z = X @ d
    for r in range(1, ranks.max()):
        assert z[ranks == r].max() <= z[ranks > r].min() + 1e-6
    every = np.vstack([X] * k)
    assert separating_direction(every, np.repeat(np.arange(1, k + 1), n)) is None
