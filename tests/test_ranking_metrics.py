"""Ranking metrics: oracles (ranx, pytrec_eval), LETOR's Eval-Score-3.0.pl on hand-computed queries,
invariants, and the scorer registry under GridSearchCV + GroupKFold with metadata routing."""
import math
from numbers import Real

import numpy as np
import pytest
import sklearn
from hypothesis import given
from hypothesis import strategies as st
from sklearn.model_selection import GridSearchCV, GroupKFold
from sklearn.utils._param_validation import Interval

from ordrank.algorithms.ranking._base import RankingEstimator
from ordrank.metrics import (average_precision, err_at_k, kendall_tau, letor, make_ranking_scorer,
                             mean_over_queries, ndcg_at_k, pairwise_accuracy, precision_at_k,
                             ranking_metric)

def random_run(seed, n_queries=12):
    """Graded labels 0..4, distinct continuous scores; one all-zero query and short queries."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 25, n_queries)
    sizes[:2] = [3, 6]  # shorter than most cut-offs
    y = rng.integers(0, 5, sizes.sum())
    y[: sizes[0]] = 0  # a query without a relevant document
    return y, rng.normal(size=sizes.sum()), np.repeat(np.arange(n_queries) * 7 + 3, sizes)


def as_dicts(y, s, qid, gain=lambda r: int(r)):
    qrels, run = {}, {}
    for i, (r, score, q) in enumerate(zip(y, s, qid)):
        qrels.setdefault(f"q{q}", {})[f"d{i}"] = gain(r)
        run.setdefault(f"q{q}", {})[f"d{i}"] = float(score)
    return qrels, run


CUTS = [1, 3, 5, 10, 20]


def ranx_per_query(y, s, qid, names):
    """ranx's values per query (queries in order of first appearance) of the metrics ``names``
    (``ndcg_burges[@k]``, ``precision@k``, ``map``), from ranx's own per-query kernels on the arrays
    its Qrels and Run hold: (doc, relevance) sorted by relevance and (doc, score) sorted by score,
    both descending, at ranx's default rel_lvl=1. ``ranx.evaluate`` computes the same through numba
    typed dicts and parallel wrappers, whose compilation cost a fresh environment about 50 s of CPU
    (110 s of test set-up under load); the kernels compile in a few seconds (numba caches them)."""
    from ranx.metrics.average_precision import _average_precision
    from ranx.metrics.ndcg import _ndcg
    from ranx.metrics.precision import _precision

    def kernel(name):
        metric, _, k = name.partition("@")
        k = int(k or 0)  # ranx: 0 = the whole list
        return {"ndcg_burges": lambda q, r: _ndcg(q, r, k, 1, False),  # jarvelin=False: 2^rel - 1
                "precision": lambda q, r: _precision(q, r, k, 1),
                "map": lambda q, r: _average_precision(q, r, k, 1)}[metric]

    kernels = {name: kernel(name) for name in names}
    values = {name: [] for name in names}
    for q in dict.fromkeys(qid):
        rows = np.flatnonzero(qid == q)
        judged = np.column_stack([rows, y[rows]]).astype(np.float64)[np.argsort(-y[rows], kind="stable")]
        ranked = np.column_stack([rows, s[rows]]).astype(np.float64)[np.argsort(-s[rows], kind="stable")]
        for name in names:
            values[name].append(kernels[name](judged, ranked))
    return {name: np.array(v) for name, v in values.items()}


@pytest.fixture(scope="module")
def oracle():
    """Per-query values of ranx and pytrec_eval on three random runs."""
    pytest.importorskip("ranx")  # the dev extra's oracles
    pytrec_eval = pytest.importorskip("pytrec_eval")
    runs = [random_run(seed) for seed in range(3)]
    out = []
    for y, s, qid in runs:
        qrels, run = as_dicts(y, s, qid)
        names = [f"ndcg_burges@{k}" for k in CUTS] + [f"precision@{k}" for k in CUTS] + ["map", "ndcg_burges"]
        rx = ranx_per_query(y, s, qid, names)
        trec = pytrec_eval.RelevanceEvaluator(qrels, {"map", *(f"P_{k}" for k in CUTS)}).evaluate(run)
        # trec_eval's ndcg uses the label as the gain: give it 2^rel - 1 to get Burges' gain
        gains = as_dicts(y, s, qid, gain=lambda r: 2 ** int(r) - 1)[0]
        trec_ndcg = pytrec_eval.RelevanceEvaluator(
            gains, {"ndcg", *(f"ndcg_cut_{k}" for k in CUTS)}).evaluate(run)
        order = [f"q{q}" for q in dict.fromkeys(qid)]
        for name, values in trec_ndcg.items():
            trec[name].update(values)
        out.append((y, s, qid, rx, {m: np.array([trec[q][m] for q in order]) for m in trec[order[0]]}))
    return out


@pytest.mark.parametrize("k", CUTS + [None])
def test_standard_ndcg_matches_ranx_and_trec_eval(oracle, k):
    for y, s, qid, rx, trec in oracle:
        ours = ndcg_at_k(y, s, qid, k=k)
        name = "ndcg_burges" if k is None else f"ndcg_burges@{k}"
        np.testing.assert_allclose(ours, rx[name], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(ours, trec["ndcg" if k is None else f"ndcg_cut_{k}"], atol=1e-12)
        assert ours[0] == 0.0  # no relevant document: 0, and it counts in the mean, as in both
        assert mean_over_queries(ours) == pytest.approx(np.mean(rx[name]), abs=1e-12)


@pytest.mark.parametrize("k", CUTS)
def test_standard_precision_and_map_match_ranx_and_trec_eval(oracle, k):
    for y, s, qid, rx, trec in oracle:
        ours = precision_at_k(y, s, qid, k=k)
        np.testing.assert_allclose(ours, rx[f"precision@{k}"], atol=1e-12)
        np.testing.assert_allclose(ours, trec[f"P_{k}"], atol=1e-12)
        ap = average_precision(y, s, qid)
        np.testing.assert_allclose(ap, rx["map"], atol=1e-12)
        np.testing.assert_allclose(ap, trec["map"], atol=1e-12)


# --- LETOR's Eval-Score-3.0.pl, by hand ------------------------------------------------------------
# query 5: labels 0 2 1 0, scores .5 .5 .9 .1 -> order (ties keep file order): rows 2 0 1 3, labels 1 0 2 0
# query 8: labels 0 0 (no relevant document);  query 9: one document of label 2
Y = np.array([0, 2, 1, 0, 0, 0, 2])
S = np.array([0.5, 0.5, 0.9, 0.1, 0.3, 0.7, -1.0])
Q = np.array([5, 5, 5, 5, 8, 8, 9])
L3 = 1.0 / math.log2(3)  # LETOR's weight at rank 3 (ranks 1 and 2 weigh 1)


@pytest.mark.parametrize("k, expected", [
    (1, [1 / 3, 0, 1]),             # DCG 1 (label 1 first) / ideal 3
    (2, [1 / 4, 0, 0]),             # rank 2 weighs 1: (1 + 0) / (3 + 1); query 9 has 1 < 2 documents
    (3, [(1 + 3 * L3) / 4, 0, 0]),  # label 2 at rank 3: 3 / log2(3); ideal 3 + 1 + 0
    (4, [(1 + 3 * L3) / 4, 0, 0]),
    (5, [0, 0, 0]),                 # beyond every query's length: 0
    (None, [(1 + 3 * L3) / 4, 0, 1]),
])
def test_letor_ndcg_by_hand(k, expected):
    np.testing.assert_allclose(letor.ndcg_at_k(Y, S, Q, k), expected, atol=1e-15)
    np.testing.assert_allclose(ndcg_at_k(Y, S, Q, k, convention="letor"), expected, atol=1e-15)


@pytest.mark.parametrize("k, expected", [(1, [1, 0, 1]), (2, [1 / 2, 0, 0]), (3, [2 / 3, 0, 0]),
                                         (4, [2 / 4, 0, 0]), (5, [0, 0, 0])])
def test_letor_precision_by_hand_counts_zero_beyond_the_query(k, expected):
    np.testing.assert_allclose(letor.precision_at_k(Y, S, Q, k), expected, atol=1e-15)
    np.testing.assert_allclose(precision_at_k(Y, S, Q, k, convention="letor"), expected, atol=1e-15)
    # the standard convention (trec_eval, ranx) divides by k whatever the query's length
    standard = [[1, 1 / 2, 2 / 3, 2 / 4, 2 / 5][k - 1], 0, 1 / k]
    np.testing.assert_allclose(precision_at_k(Y, S, Q, k), standard, atol=1e-15)


def test_letor_map_and_summary_by_hand():
    np.testing.assert_allclose(letor.average_precision(Y, S, Q), [(1 + 2 / 3) / 2, 0, 1])
    summary = letor.evaluate(Y, S, Q)
    assert list(summary)[:3] == ["P@1", "P@2", "P@3"] and list(summary)[10] == "MAP"
    assert summary["MAP"] == pytest.approx(((1 + 2 / 3) / 2 + 0 + 1) / 3)  # every query counts
    assert summary["NDCG@1"] == pytest.approx((1 / 3 + 0 + 1) / 3)
    assert summary["P@10"] == 0.0 and summary["NDCG@10"] == 0.0
    assert ranking_metric("letor_map")(Y, S, Q) == summary["MAP"]
    assert ranking_metric("letor_ndcg@3")(Y, S, Q) == summary["NDCG@3"]


def test_letor_and_standard_discounts_differ_at_rank_two():
    y, s = np.array([1, 2]), np.array([1.0, 0.0])  # the label-2 document second
    assert letor.ndcg_at_k(y, s, None, 2)[0] == 1.0  # ranks 1 and 2 both weigh 1: (1 + 3) / (3 + 1)
    assert ndcg_at_k(y, s, None, 2)[0] == pytest.approx((1 + 3 * L3) / (3 + L3))


def test_letor_ties_keep_file_order():
    y = np.array([0, 1, 2])
    assert letor.ndcg_at_k(y, np.zeros(3), None, 1)[0] == 0.0  # file order: label 0 first
    assert letor.ndcg_at_k(y[::-1], np.zeros(3), None, 1)[0] == 1.0
    assert letor.average_precision(y, np.zeros(3))[0] == pytest.approx((1 / 2 + 2 / 3) / 2)


# --- ERR, Kendall's tau, pairwise accuracy by hand -------------------------------------------------
def test_err_by_hand():
    # g_max = 2: R = (2^g - 1) / 4; ranking labels 1, 2, 0 -> 1/4 + (1/2)(3/4)(3/4)
    y, s = np.array([2, 1, 0]), np.array([0.5, 0.9, 0.1])
    assert err_at_k(y, s)[0] == pytest.approx(1 / 4 + 0.5 * (3 / 4) * (3 / 4))
    assert err_at_k(y, s, k=1)[0] == pytest.approx(1 / 4)
    assert err_at_k(y, s, max_grade=3)[0] == pytest.approx(1 / 8 + 0.5 * (3 / 8) * (7 / 8))
    two = err_at_k(np.r_[y, 0, 0], np.r_[s, 1, 2], np.array([1, 1, 1, 2, 2]))
    assert two[1] == 0.0 and two[0] == pytest.approx(1 / 4 + 0.5 * (3 / 4) * (3 / 4))


def test_kendall_tau_and_pairwise_accuracy_by_hand():
    y, s, qid = np.array([2, 1, 0, 1, 1, 0]), np.array([3.0, 1, 2, 5, 5, 9]), np.array([1, 1, 1, 2, 2, 3])
    # query 1: pairs (2>1: right) (2>0: right) (1>0: wrong) -> 2/3; query 2: labels tied; query 3: one doc
    np.testing.assert_allclose(pairwise_accuracy(y, s, qid), [2 / 3, np.nan, np.nan])
    np.testing.assert_allclose(kendall_tau(y, s, qid), [1 / 3, np.nan, np.nan])
    assert pairwise_accuracy([1, 0, 2], [0.0, 0.0, 0.0])[0] == 0.5  # ties in score count 1/2
    assert ranking_metric("pairwise_accuracy")(y, s, qid) == pytest.approx(2 / 3)  # defined queries


# --- invariants ----------------------------------------------------------------------------------
queries = st.lists(st.lists(st.tuples(st.integers(0, 3), st.integers(-20, 20)), min_size=1, max_size=9),
                   min_size=1, max_size=6)


def flat(data):
    y = np.array([r for query in data for r, _ in query])
    s = np.array([score for query in data for _, score in query], dtype=np.float64)
    return y, s, np.repeat(np.arange(len(data)), [len(query) for query in data])


@given(queries, st.sampled_from([1, 3, 10, None]), st.sampled_from(["standard", "letor"]))
def test_ndcg_in_unit_interval_and_one_for_the_ideal_ranking(data, k, convention):
    y, s, qid = flat(data)
    values = ndcg_at_k(y, s, qid, k, convention=convention)
    assert np.all((values >= 0) & (values <= 1 + 1e-12))
    ideal = ndcg_at_k(y, y + 0.0, qid, k, convention=convention)
    has_relevant = np.array([max(r for r, _ in query) > 0 for query in data])
    long_enough = np.array([convention == "standard" or k is None or len(query) >= k for query in data])
    np.testing.assert_array_equal(ideal, np.where(has_relevant & long_enough, 1.0, 0.0))


@given(queries)
def test_every_metric_depends_only_on_the_order_of_the_scores(data):
    y, s, qid = flat(data)
    transformed = np.exp(s / 2) + s ** 3  # strictly increasing: same order, same ties
    for name in ["ndcg@1", "ndcg@5", "ndcg", "p@3", "map", "err@10", "kendall_tau", "pairwise_accuracy",
                 "letor_ndcg@3", "letor_p@2", "letor_map"]:
        per = ranking_metric(name)
        assert per(y, s, qid) == per(y, transformed, qid) or (np.isnan(per(y, s, qid))
                                                              and np.isnan(per(y, transformed, qid)))
    for values in (err_at_k(y, s, qid), pairwise_accuracy(y, s, qid)):
        assert np.all(np.isnan(values) | ((values >= 0) & (values <= 1)))


# --- scorers -------------------------------------------------------------------------------------
def test_scorer_names():
    for name in ["ndcg@10", "letor_ndcg@10", "map", "letor_map", "p@5", "letor_p@5", "err@10",
                 "kendall_tau", "pairwise_accuracy", "mae", "zero_one", "ndcg"]:
        make_ranking_scorer(name)
    assert ranking_metric("mae")([1, 2, 3], [1, 3, 5]) == 1.0
    assert ranking_metric("zero_one")([1, 2, 3], [1, 3, 5]) == pytest.approx(2 / 3)
    for bad in ["ndcg@0", "letor_err@10", "NDCG@10", "auc", "p@", "ndcg@ 3"]:
        with pytest.raises(ValueError, match=r"unknown scorer .*valid names: ndcg@<k>, ndcg, p@<k>"):
            ranking_metric(bad)


class LeastSquaresRanker(RankingEstimator):
    """Ridge regression on the relevance, scores = X w (a test ranker)."""

    _parameter_constraints = {"alpha": [Interval(Real, 0, None, closed="left")]}

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def fit(self, X, y, qid=None):
        X, y, qid = self._validate_queries(X, y, qid)
        self.coef_ = np.linalg.solve(X.T @ X + self.alpha * np.eye(X.shape[1]), X.T @ y)
        return self

    def _scores(self, X):
        return X @ self.coef_


def ranking_data(seed=0, n_queries=20):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(4, 15, n_queries)
    X = rng.normal(size=(sizes.sum(), 5))
    y = np.clip(np.round(X @ [1.0, -0.5, 0.3, 0, 0] + rng.normal(scale=1.0, size=len(X))), 0, 2)
    return X, y.astype(int), np.repeat(np.arange(n_queries) + 100, sizes)


@pytest.mark.parametrize("name", ["letor_map", "ndcg@10", "mae"])
def test_grid_search_with_group_k_fold_routes_qid_to_the_scorer(name):
    X, y, qid = ranking_data()
    grid = {"alpha": [0.01, 100.0, 1e4]}
    cv = GroupKFold(n_splits=4)
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(LeastSquaresRanker(), grid, scoring=make_ranking_scorer(name), cv=cv)
        search.fit(X, y, qid=qid, groups=qid)
    metric, sign = ranking_metric(name), (-1 if name == "mae" else 1)
    for i, alpha in enumerate(grid["alpha"]):  # the same numbers by hand, fold by fold, per query
        folds = []
        for train, test in cv.split(X, y, groups=qid):
            model = LeastSquaresRanker(alpha=alpha).fit(X[train], y[train], qid=qid[train])
            folds.append(sign * metric(y[test], model.decision_function(X[test]), qid[test]))
        assert search.cv_results_["mean_test_score"][i] == pytest.approx(np.mean(folds), abs=1e-12)
    if name == "letor_map":  # one query per fold would give another number: qid really arrived
        whole = np.mean([metric(y[test], LeastSquaresRanker(alpha=0.01).fit(X[train], y[train]).predict(
            X[test]), None) for train, test in cv.split(X, y, groups=qid)])
        assert search.cv_results_["mean_test_score"][0] != pytest.approx(whole)


def test_ranking_scorer_without_qid_refuses():
    X, y, qid = ranking_data()
    model = LeastSquaresRanker().fit(X, y, qid=qid)
    with pytest.raises(ValueError, match=r"scorer 'ndcg@10' received no qid: .*enable_metadata_routing"):
        make_ranking_scorer("ndcg@10")(model, X, y)
    assert make_ranking_scorer("mae")(model, X, y) <= 0
