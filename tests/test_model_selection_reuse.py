"""Model selection reuses each training set's kernel work across C, with the same scores.

``TrainTestPartitions.select`` goes fold by fold, C fastest, inside ``qp.cache.reuse()``: SVOR's
compiled problem (one per fold and γ) serves every C, Reduction-SVM's extended Gram matrix too."""
from unittest import mock

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from ordrank.algorithms.batch import reduction
from ordrank.algorithms.batch.reduction import ReductionSVM
from ordrank.algorithms.batch.svor import SVOR
from ordrank.algorithms.qp import cache
from ordrank.protocols.partitions import TrainTestPartitions

GRID = {"C": [1.0, 10.0, 100.0], "gamma": [0.01, 0.1, 1.0]}  # 3 folds x 3 γ > the 8 cached problems


def ordinal(n=60, d=3, k=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    score = X @ rng.normal(size=d) + 0.5 * rng.normal(size=n)
    return X, 1 + np.searchsorted(np.quantile(score, np.linspace(0, 1, k + 1)[1:-1]), score)


def select(learner, grid=GRID):
    X, y = ordinal()
    folds = StratifiedKFold(3, shuffle=True, random_state=0)
    return TrainTestPartitions(cv_folds=3).select(learner, grid, folds, X, y)


def test_svor_compiles_one_problem_per_fold_and_gamma():
    cache.clear_cache()
    select(SVOR("explicit"))
    assert cache.cache_stats == {"hits": 18, "misses": 9}


def test_reduction_svm_builds_one_extended_gram_per_fold_and_gamma():
    with mock.patch.object(reduction, "extended_gram", wraps=reduction.extended_gram) as built:
        select(make_pipeline(StandardScaler(), ReductionSVM()))
    assert built.call_count == 9


@pytest.mark.parametrize("C", [0.1, 3.0, 100.0])
def test_a_reused_extended_gram_gives_the_same_fit(C):
    X, y = ordinal(seed=1)
    alone = ReductionSVM(C=C, gamma=0.5).fit(X, y)
    with cache.reuse():
        ReductionSVM(C=1.0, gamma=0.5).fit(X, y)  # builds the matrix the next fit reuses
        with mock.patch.object(reduction, "extended_gram", side_effect=AssertionError("rebuilt")):
            reused = ReductionSVM(C=C, gamma=0.5).fit(X, y)
    assert np.array_equal(alone.dual_coef_, reused.dual_coef_)
    assert np.array_equal(alone.thresholds_, reused.thresholds_)


def test_reuse_keeps_one_value_and_only_inside_its_scope():
    built = []

    def build(tag):
        built.append(tag)
        return [tag]

    a, b = np.arange(3), np.arange(3.0)  # the same values, another dtype: another key
    cache.reused((a,), ("k",), lambda: build("outside"))
    cache.reused((a,), ("k",), lambda: build("outside"))
    with cache.reuse():
        first = cache.reused((a,), ("k",), lambda: build("a"))
        assert cache.reused((a.copy(),), ("k",), lambda: build("again")) is first
        cache.reused((b,), ("k",), lambda: build("b"))
        cache.reused((a,), ("k",), lambda: build("a2"))  # only the last value is kept
    cache.reused((a,), ("k",), lambda: build("after"))
    assert built == ["outside", "outside", "a", "b", "a2", "after"]


# Boosting rounds: one fit with the most rounds answers the smaller counts by staged predictions.

def boosted(rounds=50, max_depth=1):
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    from ordrank.algorithms.batch.extended_binary import OrdinalReduction
    stump = DecisionTreeClassifier(max_depth=max_depth)
    return OrdinalReduction(AdaBoostClassifier(stump, n_estimators=rounds, random_state=0),
                            encoding="integer")


@pytest.mark.parametrize("max_depth", [1, None])  # None: a perfect first round stops the ensemble
def test_staged_predictions_equal_fits_with_fewer_rounds(max_depth):
    X, y = ordinal(n=90, seed=2)
    largest = boosted(40, max_depth).fit(X[:60], y[:60])
    staged = list(largest.staged_predict(X[60:]))
    for t in (1, 2, 7, 25, 40):
        alone = boosted(t, max_depth).fit(X[:60], y[:60]).predict(X[60:])
        assert np.array_equal(staged[min(t, len(staged)) - 1], alone)


def test_boosting_rounds_are_selected_from_one_fit_per_fold_with_the_same_scores():
    from ordrank.algorithms.batch.extended_binary import OrdinalReduction
    from ordrank.protocols import staged
    grid = {"estimator__n_estimators": [5, 20, 10], "cost": ["absolute", "classification"]}
    learner = make_pipeline(StandardScaler(), boosted())
    X, y = ordinal(n=90, seed=3)
    folds = StratifiedKFold(3, shuffle=True, random_state=0)
    protocol = TrainTestPartitions(cv_folds=3)
    with mock.patch.object(OrdinalReduction, "fit", autospec=True, side_effect=OrdinalReduction.fit) as fit:
        points, scores, errors = protocol.cv_scores(learner, grid, folds, X, y)
    assert fit.call_count == 3 * 2 and not errors  # one fit per fold and cost, with 20 rounds
    with mock.patch.object(staged, "staged_key", return_value=None):
        alone = protocol.cv_scores(learner, grid, folds, X, y)
    assert points == alone[0] and np.array_equal(scores, alone[1]) and np.isfinite(scores).all()


def test_a_failed_staged_fit_falls_back_to_one_fit_per_grid_point():
    from ordrank.algorithms.batch.extended_binary import OrdinalReduction
    real_fit = OrdinalReduction.fit

    def fails_above_10_rounds(self, X, y):
        if self.estimator.n_estimators > 10:
            raise RuntimeError("too many rounds")
        return real_fit(self, X, y)
    X, y = ordinal(n=90, seed=3)
    with mock.patch.object(OrdinalReduction, "fit", fails_above_10_rounds):
        points, scores, errors = TrainTestPartitions(cv_folds=3).cv_scores(
            boosted(), {"estimator__n_estimators": [5, 10, 20]},
            StratifiedKFold(3, shuffle=True, random_state=0), X, y)
    assert np.isfinite(scores[:2]).all() and np.isnan(scores[2]).all()
    assert errors == ["RuntimeError: too many rounds"] * 3
