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
