"""RankNet: gradients against finite differences, the pair kernel against the explicit pairs (and the
same with 1 and 2 threads), the linear case against LogisticRegression on the explicit pair
differences, a separable toy ranked perfectly, qid routed through GridSearchCV."""
import contextlib

import numba
import numpy as np
import pytest
import sklearn
from scipy.optimize import check_grad
from scipy.special import expit
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, GroupKFold
from sklearn.utils.estimator_checks import parametrize_with_checks

from ordrank.algorithms.ranking import RankNet
from ordrank.algorithms.ranking.ranknet import _PairCost
from ordrank.algorithms.ranking.ranknet_pairs import SPAN, label_order, pair_cost
from ordrank.queries import count_pairs, group_sizes, preference_pairs


def toy(seed=0, n_queries=8, d=4, levels=3):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), rng.integers(2, 15, n_queries))
    X = rng.normal(size=(len(qid), d))
    y = rng.integers(0, levels, len(qid)).astype(float)
    return X, y, qid


def tie_pairs(y, qid):
    firsts, seconds = [], []
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        a, b = np.triu_indices(len(rows), 1)
        tied = y[rows[a]] == y[rows[b]]
        firsts += list(rows[a][tied])
        seconds += list(rows[b][tied])
    return np.array(firsts, dtype=int), np.array(seconds, dtype=int)


def n_pairs(y, qid, ties):
    sizes = group_sizes(qid)
    return count_pairs(y, qid) if ties == "skip" else int(np.sum(sizes * (sizes - 1) // 2))


@contextlib.contextmanager
def threads(k):
    """numba's thread count k for a block (at most what numba started with), restored after it."""
    before = numba.get_num_threads()
    numba.set_num_threads(min(k, numba.config.NUMBA_NUM_THREADS))
    try:
        yield
    finally:
        numba.set_num_threads(before)


@pytest.mark.parametrize("hidden", [None, 3])
@pytest.mark.parametrize("ties", ["skip", "half"])
def test_gradient_matches_finite_differences(hidden, ties):
    X, y, qid = toy()
    model = RankNet(hidden, sigma=1.7, alpha=0.1, ties=ties, random_state=0)
    cost = _PairCost(y, qid, 1.7, ties, n_pairs(y, qid, ties))
    theta = model._initial(X.shape[1]) + np.random.default_rng(1).normal(size=model._initial(4).shape)
    assert check_grad(lambda t: model._objective(t, X, cost)[0],
                      lambda t: model._objective(t, X, cost)[1], theta) < 1e-5


@pytest.mark.parametrize("ties", ["skip", "half"])
def test_cost_equals_the_explicit_pairs(ties):
    X, y, qid = toy(2)
    s = np.random.default_rng(3).normal(size=len(y))
    i, j = preference_pairs(y, qid)
    expected = np.sum(np.logaddexp(0, -2.0 * (s[i] - s[j])))
    if ties == "half":
        a, b = tie_pairs(y, qid)
        expected += np.sum(np.logaddexp(0, 2.0 * (s[a] - s[b])) - (s[a] - s[b]))
    for k in (1, 2):
        with threads(k):
            value, _ = _PairCost(y, qid, 2.0, ties, n_pairs(y, qid, ties))(s)
        assert value == pytest.approx(expected / n_pairs(y, qid, ties), rel=1e-12)


def uneven(seed, spread):
    """Queries of 1 to 300 rows (singletons, one all tied, one large), 5 levels, ties. Scores: "small"
    (spread 1: every query on the kernel's exponential path), "wide" (the large query's spread 60:
    still that path, with |z| up to hundreds), "huge" (spread 1e3: every query beyond SPAN, on the
    direct path, |z| far beyond exp's range) or "mixed" (1, and 1e3 in two queries)."""
    rng = np.random.default_rng(seed)
    sizes = np.r_[1, 2, rng.integers(1, 40, 25), 300, 7, 1]
    qid = np.repeat(np.arange(len(sizes)), sizes)
    y = rng.integers(0, 5, len(qid)).astype(float)
    y[qid == len(sizes) - 2] = 2.0  # a query with every pair tied
    spreads = np.ones(len(sizes))
    if spread == "wide":
        spreads[len(sizes) - 3] = 60.0
    elif spread == "huge":
        spreads[:] = 1e3
    elif spread == "mixed":
        spreads[[5, len(sizes) - 3]] = 1e3
    return y, qid, rng.normal(size=len(qid)) * spreads[qid]


@pytest.mark.parametrize("ties", ["skip", "half"])
@pytest.mark.parametrize("spread", ["small", "wide", "huge", "mixed"])
def test_kernel_equals_direct_pairs_for_any_thread_count(ties, spread):
    """Σ C and λ of the kernel (unnormalized) against a direct numpy computation over the explicit
    preference and tie pairs, and bit for bit the same with 1 and 2 numba threads."""
    y, qid, s = uneven(7, spread)
    sigma = 1.3
    offsets = np.r_[0, np.cumsum(group_sizes(qid))]
    span = np.array([sigma * np.ptp(s[a:b]) for a, b in zip(offsets[:-1], offsets[1:])])
    assert {"small": span.max() < 20, "wide": 300 < span.max() <= SPAN,
            "huge": np.sum(span > SPAN) >= 25, "mixed": np.sum(span > SPAN) == 2}[spread]
    i, j = preference_pairs(y, qid)
    z = sigma * (s[i] - s[j])
    expected = np.sum(np.logaddexp(0.0, -z))
    g = sigma * expit(-z)  # σ(1 − P_ij)
    lam = np.bincount(j, g, len(s)) - np.bincount(i, g, len(s))
    if ties == "half":
        a, b = tie_pairs(y, qid)
        z = sigma * (s[a] - s[b])
        expected += np.sum(np.logaddexp(0.0, z) - 0.5 * z)
        g = sigma * (expit(z) - 0.5)  # σ(P − ½)
        lam += np.bincount(a, g, len(s)) - np.bincount(b, g, len(s))
    order = label_order(y, qid)
    results = []
    for k in (1, 2):
        with threads(k):
            results.append(pair_cost(s, *order, sigma, ties == "half"))
    (total, got), (total2, got2) = results
    assert total == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(got, lam, rtol=1e-12, atol=1e-12 * np.max(np.abs(lam)))
    assert total == total2
    np.testing.assert_array_equal(got, got2)


@pytest.mark.parametrize("ties", ["skip", "half"])
def test_linear_is_logistic_regression_on_pair_differences(ties):
    """(1/N) Σ C_p + (α/2)‖w‖², rows σd (label 1) and −σd (label 0) mirrored, doubles the loss:
    LogisticRegression's ½‖w‖² + C Σ logloss with C = 1/(2αN). A tie (P̄ = ½) is the rows (σd, 1) and
    (σd, 0), each carrying half its cost, so also doubled."""
    X, y, qid = toy(1)
    alpha, sigma = 0.05, 1.7
    model = RankNet(sigma=sigma, alpha=alpha, ties=ties, tol=1e-10).fit(X, y, qid)
    i, j = preference_pairs(y, qid)
    D = sigma * (X[i] - X[j])
    rows, labels = [D, -D], [np.ones(len(D)), np.zeros(len(D))]
    if ties == "half":
        a, b = tie_pairs(y, qid)
        T = sigma * (X[a] - X[b])
        rows, labels = rows + [T, T], labels + [np.ones(len(T)), np.zeros(len(T))]
    N = n_pairs(y, qid, ties)
    assert model.n_pairs_ == N
    oracle = LogisticRegression(fit_intercept=False, C=1 / (2 * alpha * N), tol=1e-12, max_iter=10_000)
    oracle.fit(np.vstack(rows), np.concatenate(labels))
    np.testing.assert_allclose(model.coef_, oracle.coef_.ravel(), rtol=1e-4, atol=1e-8)


@pytest.mark.parametrize("hidden", [None, 4])
def test_separable_toy_ranked_perfectly(hidden):
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(10), 12)
    X = rng.normal(size=(120, 3))
    y = np.digitize(X @ np.array([1.0, -2.0, 0.5]), [-1.0, 0.0, 1.0]).astype(float)
    model = RankNet(hidden, alpha=1e-6, random_state=0).fit(X, y, qid)
    s = model.decision_function(X)
    i, j = preference_pairs(y, qid)
    assert np.all(s[i] > s[j])
    assert model.score(X, y, qid) == pytest.approx(1.0)


def test_hidden_is_deterministic_given_random_state():
    X, y, qid = toy()
    a = RankNet(3, random_state=4, max_iter=20).fit(X, y, qid).decision_function(X)
    b = RankNet(3, random_state=4, max_iter=20).fit(X, y, qid).decision_function(X)
    np.testing.assert_array_equal(a, b)


def test_qid_is_routed_through_grid_search_with_group_kfold():
    """Each split's model equals a model fitted by hand on that split's rows with their qid; without
    qid (one query over the split) the fit differs, so a dropped qid fails."""
    X, y, qid = toy(5, n_queries=9)
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(RankNet(alpha=0.1), {"sigma": [1.0]}, cv=GroupKFold(n_splits=3),
                              refit=True)
        search.fit(X, y, qid=qid, groups=qid)
    by_hand = RankNet(alpha=0.1).fit(X, y, qid)
    np.testing.assert_allclose(search.best_estimator_.coef_, by_hand.coef_, rtol=1e-6)
    assert not np.allclose(RankNet(alpha=0.1).fit(X, y).coef_, by_hand.coef_, rtol=1e-3)
    scores = []
    for train, test in GroupKFold(n_splits=3).split(X, y, qid):
        model = RankNet(alpha=0.1).fit(X[train], y[train], qid[train])
        scores.append(model.score(X[test], y[test], qid[test]))
    np.testing.assert_allclose(search.cv_results_["split0_test_score"][0], scores[0], rtol=1e-9)
    np.testing.assert_allclose(search.cv_results_["mean_test_score"][0], np.mean(scores), rtol=1e-9)


@parametrize_with_checks([RankNet(), RankNet(3, random_state=0, max_iter=50)])
def test_sklearn_checks(estimator, check):
    check(estimator)
