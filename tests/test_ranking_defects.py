"""Learning-to-rank defects, one test (or more) each: LETOR 4.0's P@k; kernel RankSVM; fits end
within max_iter on badly scaled data; overflow is an error naming the scale, every iterative learner
warns alike; no raw library errors; score without qid refuses; query ids beyond int64, grades from
1024 up; LETOR loader limits.
"""
import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, GroupKFold

from ordrank.algorithms import PRank
from ordrank.algorithms._ordinal import FitFailed
from ordrank.algorithms.ranking import (LeastSquaresRanker, LightGBMRanker, OrdinalRanker, RankBoost,
                                        RankNet, RankSVM, XGBoostRanker)
from ordrank.algorithms.ranking import _pairwise, ranksvm_primal
from ordrank.datasets.letor import LetorData, LetorFormatError, load_letor
from ordrank.metrics import err_at_k, letor, ndcg, ndcg_at_k, precision_at_k, ranking_metric
from ordrank.protocols.query_folds import LETOR_METRICS, QueryFolds
from ordrank.queries import check_qid
from ranking_oracle import cross_validated_ndcg, mean_ndcg


def queries(seed=0, n_queries=8, size=8, d=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_queries * size, d))
    y = rng.integers(0, 3, n_queries * size).astype(float)
    return X, y, np.repeat(np.arange(n_queries), size)


# --- 7: LETOR 4.0's P@k (Eval-Score-4.0.pl), by hand ---------------------------------------------
# query 5: labels 0 2 1 0, scores .5 .5 .9 .1 -> ranked labels 1 0 2 0; query 8: labels 0 0;
# query 9: one document of label 2 (shorter than every k > 1)
Y = np.array([0, 2, 1, 0, 0, 0, 2])
S = np.array([0.5, 0.5, 0.9, 0.1, 0.3, 0.7, -1.0])
Q = np.array([5, 5, 5, 5, 8, 8, 9])


@pytest.mark.parametrize("k, three, four", [
    (1, [1, 0, 1], [1, 0, 1]),
    (2, [1 / 2, 0, 0], [1 / 2, 0, 1 / 2]),       # query 9: 1 relevant of 1 document, over k = 2
    (3, [2 / 3, 0, 0], [2 / 3, 0, 1 / 3]),
    (5, [0, 0, 0], [2 / 5, 0, 1 / 5]),           # 3.0: 0 beyond the query; 4.0: relevant found / k
    (10, [0, 0, 0], [2 / 10, 0, 1 / 10]),
])
def test_letor4_precision_divides_what_is_found_by_k(k, three, four):
    np.testing.assert_allclose(letor.precision_at_k(Y, S, Q, k), three, atol=1e-15)
    np.testing.assert_allclose(letor.precision_at_k(Y, S, Q, k, version="4.0"), four, atol=1e-15)
    np.testing.assert_allclose(precision_at_k(Y, S, Q, k, convention="letor4"), four, atol=1e-15)
    assert ranking_metric(f"letor4_p@{k}")(Y, S, Q) == pytest.approx(np.mean(four), abs=1e-15)
    assert ranking_metric(f"letor_p@{k}")(Y, S, Q) == pytest.approx(np.mean(three), abs=1e-15)


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 10, None])
def test_letor4_ndcg_and_map_are_the_3_0_rules(k):
    """Eval-Score-4.0.pl's NDCG loop stops at the query's length: NDCG@k of a shorter query is 0."""
    np.testing.assert_array_equal(letor.ndcg_at_k(Y, S, Q, k, version="4.0"), letor.ndcg_at_k(Y, S, Q, k))
    np.testing.assert_array_equal(letor.average_precision(Y, S, Q, version="4.0"),
                                  letor.average_precision(Y, S, Q))
    summary = letor.evaluate(Y, S, Q, version="4.0")
    assert summary["P@10"] == pytest.approx((2 / 10 + 0 + 1 / 10) / 3)
    assert summary["NDCG@5"] == 0.0 and summary["MAP"] == letor.evaluate(Y, S, Q)["MAP"]
    with pytest.raises(ValueError, match=r"version must be one of \('3.0', '4.0'\)"):
        letor.precision_at_k(Y, S, Q, 3, version="4")


def write_fold_folder(root, queries_per_part=3, size=4):
    """A LETOR 4.0 layout: Fold1/{train,vali,test}.txt, queries of `size` documents and one of 2."""
    rng = np.random.default_rng(1)
    (root / "Fold1").mkdir(parents=True)
    qid = 1
    for part in ("train", "vali", "test"):
        text = []
        for q in range(queries_per_part):
            n = 2 if q == 0 else size  # a query shorter than k = 3..10
            for i in range(n):
                label = int(rng.integers(0, 3)) if i else 1
                text.append(f"{label} qid:{qid} 1:{rng.normal():.3f} 2:{rng.normal():.3f} #docid = d{qid}-{i}")
            qid += 1
        (root / "Fold1" / f"{part}.txt").write_text("\n".join(text) + "\n")


def test_letor4_folders_get_the_4_0_rule_and_the_table_says_so(tmp_path):
    write_fold_folder(tmp_path / "MQ2008")
    write_fold_folder(tmp_path / "OHSUMED")
    assert LetorData(str(tmp_path / "MQ2008")).evaluation == "4.0"
    assert LetorData(str(tmp_path / "OHSUMED")).evaluation == "3.0"
    assert LetorData(str(tmp_path / "MQ2008"), evaluation="3.0").evaluation == "3.0"
    with pytest.raises(ValueError, match="dataset.evaluation must be null or one of"):
        LetorData(str(tmp_path / "OHSUMED"), evaluation="5.0")
    protocol = QueryFolds()
    for folder, prefix, version in (("MQ2008", "letor4_", "4.0"), ("OHSUMED", "letor_", "3.0")):
        data = LetorData(str(tmp_path / folder))
        table = pd.concat(protocol.iter_run(data, {"Regression": LeastSquaresRanker()}))
        names = [m.replace("letor_", prefix) for m in LETOR_METRICS]
        assert table.metric.tolist() == names
        test = data.fold(1).test
        scores = LeastSquaresRanker().fit(data.fold(1).train.X, data.fold(1).train.y,
                                          qid=data.fold(1).train.qid).decision_function(test.X)
        p10 = table.set_index("metric").value[f"{prefix}p@10"]
        assert p10 == np.mean(letor.precision_at_k(test.y, scores, test.qid, 10, version=version))
        assert (p10 > 0) == (version == "4.0")  # every query is shorter than 10


def test_ohsumed_table_values_are_unchanged(shared_data_dir):
    """LETOR 3.0 OHSUMED keeps the 3.0 rule: Regression's committed rows are reproduced exactly."""
    table = pd.read_parquet("results/letor_ohsumed/letor_ohsumed.parquet")
    data = LetorData("letor3-ohsumed", data_dir=shared_data_dir, n_features=45)
    assert data.evaluation == "3.0"
    fold = data.fold(1)
    scores = LeastSquaresRanker().fit(fold.train.X, fold.train.y, qid=fold.train.qid).decision_function(fold.test.X)
    rows = table[(table.algorithm == "Regression") & (table.fold == 1)].set_index("metric").value
    for name in LETOR_METRICS:
        assert ranking_metric(name)(fold.test.y, scores, fold.test.qid) == rows[name], name


# --- 8: kernel RankSVM --------------------------------------------------------------------------
@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_kernel_ranksvm_fits_end_to_end(kernel):
    X, y, q = queries()
    model = RankSVM(kernel=kernel).fit(X, y, qid=q)
    assert model.dual_coef_.shape == (len(y),) and model.status_ == "optimal"
    # score(qid=q) is the mean NDCG@10 of the 8 queries, by hand (tests/ranking_oracle.py); as one
    # query of 64 documents it is another number (measured, training rows: rbf 0.975 per query,
    # 0.907 as one query; poly 0.977 and 0.948)
    scores = model.decision_function(X)
    assert model.score(X, y, qid=q) == pytest.approx(mean_ndcg(y, scores, q), rel=1e-12)
    assert model.score(X, y, qid=np.zeros(len(y))) == pytest.approx(
        mean_ndcg(y, scores, np.zeros(len(y))), rel=1e-12)
    assert mean_ndcg(y, scores, q) - mean_ndcg(y, scores, np.zeros(len(y))) > 0.02
    assert mean_ndcg(y, scores, q) > 0.95  # it fits the training queries (measured 0.975, 0.977)


def test_a_linear_poly_kernel_matches_the_linear_primal():
    X, y, q = queries(3)
    dual = RankSVM(kernel="poly", degree=1, gamma=1.0, coef0=0.0, tol=1e-8).fit(X, y, qid=q)
    primal = RankSVM(tol=1e-8).fit(X, y, qid=q)
    assert dual.objective_ == pytest.approx(primal.objective_, rel=1e-5)
    np.testing.assert_allclose(dual.decision_function(X), X @ primal.coef_, atol=1e-3)


# --- 9: a fit ends within max_iter, on badly scaled data too ----------------------------------------
def test_cutting_plane_model_stays_bounded_on_badly_scaled_data(monkeypatch):
    X, y, q = queries()
    sizes, solve = [], ranksvm_primal._simplex_qp
    monkeypatch.setattr(ranksvm_primal, "_simplex_qp", lambda G, b, *rest: sizes.append(len(b)) or solve(G, b, *rest))
    # raw scales: no headway from w = 0 in 150 rounds, an error saying what to do (never a silent zero model)
    with pytest.raises(FitFailed, match=r"no progress from the all-zero model in 150 iterations .*"
                                        r"features=query_level_norm"):
        RankSVM(max_iter=150).fit(X * 1e6, y, qid=q)
    # at most MAX_CUTS = 200 kept, plus one round's new cuts (~22); before: 400 and growing each round
    assert len(sizes) >= 150 and max(sizes) <= 230


@pytest.mark.parametrize("scale, C", [(1e6, 1.0), (1.0, 1e12)])
def test_smoothed_newton_stops_at_max_iter(monkeypatch, scale, C):
    """Every μ round counts as an iteration (a round whose Newton solve takes no step used not to
    count, so the loop could go on as μ shrinks to 0); a sweep budget would turn a hang into a
    failure. A guard: on the data probed, the old code also stopped at max_iter."""
    X, y, q = queries()
    calls, sweep = [0], _pairwise.MarginSweep.__init__

    def counted(self, *args):
        calls[0] += 1
        if calls[0] > 20_000:
            raise RuntimeError("the smoothed Newton did not stop")
        sweep(self, *args)
    monkeypatch.setattr(_pairwise.MarginSweep, "__init__", counted)
    with pytest.warns(ConvergenceWarning, match="max_iter=20 reached"):
        model = RankSVM(C=C, solver="smoothed_newton", max_iter=20).fit(X * scale, y, qid=q)
    assert model.n_iter_ <= 20


# --- 10: overflow is an error naming the scale; every iterative learner warns alike --------------
@pytest.mark.parametrize("model, scale, match", [
    (RankSVM(), 1e200, r"RankSVM: C · pairs · max\|x\| · √n_features .* is 1\.\d+e\+203, beyond 1e\+150"),
    (RankSVM(C=1e300), 1.0, r"RankSVM: C · pairs · max\|x\| · √n_features \(C=1e\+300"),
    (RankSVM(loss="squared_hinge"), 1e200, r"RankSVM: C · pairs .* overflow float64"),
    (RankSVM(solver="smoothed_newton"), 1e200, r"RankSVM: C · pairs .* overflow float64"),
    (RankSVM(kernel="poly"), 1e200, r"RankSVM: the poly kernel matrix overflows float64"),
    (RankSVM(kernel="rbf", C=1e300), 1.0, r"RankSVM: C · pairs · max\|K\|"),
    (RankNet(), 1e200, r"RankNet: σ · max\|x\| · √n_features \(sigma=1, max\|x\| = 3\.\d+e\+200\)"),
    (RankNet(sigma=1e300), 1.0, r"RankNet: σ · max\|x\| · √n_features \(sigma=1e\+300"),
    (RankNet(hidden=3, random_state=0), 1e200, r"RankNet: σ · max\|x\| .* overflow float64"),
    (LeastSquaresRanker(), 1e200, r"LeastSquaresRanker: max\(\|x\|, \|y\|\) .* overflow float64"),
    (XGBoostRanker(n_estimators=2), 1e200, r"XGBoostRanker: X\[0, 0\] = .* beyond float32's range"),
])
def test_overflow_is_an_error_naming_the_scale(model, scale, match):
    X, y, q = queries()
    with pytest.raises(ValueError, match=match):
        model.fit(X * scale, y, qid=q)


@pytest.mark.parametrize("model", [RankSVM(max_iter=3), RankSVM(loss="squared_hinge", max_iter=1),
                                   RankSVM(solver="smoothed_newton", max_iter=1), RankNet(max_iter=1),
                                   RankNet(hidden=3, max_iter=1, random_state=0)],
                         ids=["hinge", "squared_hinge", "smoothed_newton", "ranknet", "ranknet-net"])
def test_every_iterative_learner_warns_when_it_stops_short(model):
    X, y, q = queries()
    name = type(model).__name__
    with pytest.warns(ConvergenceWarning, match=rf"^{name}: max_iter={model.max_iter} reached .*; raise "
                                                r"max_iter or tol$"):
        model.fit(X, y, qid=q)


def test_converged_fits_do_not_warn():
    X, y, q = queries()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for model in (RankSVM(), RankSVM(loss="squared_hinge"), RankSVM(solver="smoothed_newton"),
                      RankNet(), RankSVM(kernel="rbf")):
            model.fit(X, y, qid=q)


# --- 11: no raw errors from inside the libraries -------------------------------------------------
@pytest.mark.parametrize("model", [RankSVM(), RankNet(), RankBoost(n_estimators=2), LeastSquaresRanker(),
                                   LightGBMRanker(n_estimators=2), XGBoostRanker(n_estimators=2),
                                   OrdinalRanker(PRank())], ids=lambda m: type(m).__name__)
def test_string_labels_are_refused_by_name(model):
    X, y, q = queries()
    labels = np.array(["low", "mid", "high"])[y.astype(int)]
    with pytest.raises(ValueError, match=rf"^{type(model).__name__}: y must hold numeric relevance grades .*; "
                                         rf"row 0 has '{labels[0]}' \(dtype <U4\)$"):
        model.fit(X, labels, qid=q)


def test_lightgbm_checks_grades_against_a_given_label_gain():
    X, y, q = queries()
    with pytest.raises(ValueError, match=r"LightGBMRanker: relevance label 2 at row \d+ is above 1, .* label_gain "
                                         r"a gain for every grade \(it has 2, for grades 0\.\.1\)"):
        LightGBMRanker(n_estimators=2, params={"label_gain": [0, 1]}).fit(X, y, qid=q)
    LightGBMRanker(n_estimators=2, params={"label_gain": [0, 1, 3]}).fit(X, y, qid=q)


def test_lightgbm_refuses_a_misspelled_parameter():
    X, y, q = queries()
    with pytest.raises(ValueError, match=r"LightGBMRanker: params has 'num_leavs', .*did you mean num_leaves"):
        LightGBMRanker(n_estimators=2, params={"num_leavs": 3}).fit(X, y, qid=q)
    # LightGBM's own names and aliases pass
    LightGBMRanker(n_estimators=2, params={"min_data_in_leaf": 2, "lambdarank_truncation_level": 5,
                                           "bagging_seed": 3}).fit(X, y, qid=q)


# --- 12: score without qid refuses ------------------------------------------------------------------
def test_score_without_qid_refuses():
    X, y, q = queries()
    model = RankSVM().fit(X, y, qid=q)
    with pytest.raises(ValueError, match=r"RankSVM.score received no qid, though fitted with one.*"
                                         r"qid=np.zeros\(len\(y\)\)"):
        model.score(X, y)
    # fitted without qid (one query, the ordinal use), scored the same way
    one = RankSVM().fit(X, y)
    assert one.score(X, y) == one.score(X, y, qid=np.zeros(len(y)))
    assert model.score(X, y, qid=np.zeros(len(y))) == pytest.approx(
        ndcg_at_k(y, model.decision_function(X), None, 10)[0])


def test_grid_search_without_routing_does_not_score_folds_as_one_query():
    X, y, q = queries(n_queries=9)
    search = GridSearchCV(RankSVM(), {"C": [0.01, 1]}, cv=GroupKFold(3), error_score="raise")
    with pytest.raises(ValueError, match="received no qid"):
        search.fit(X, y, qid=q, groups=q)
    with sklearn.config_context(enable_metadata_routing=True):  # routed: each fold scored per query
        search.fit(X, y, qid=q, groups=q)
    # each C's mean test score: the mean over the folds of the mean NDCG@10 of the fold's test
    # queries, by hand (tests/ranking_oracle.py); each test fold scored as one query would give other
    # numbers (measured: C = 0.01: 0.799 per query, 0.525 as one query; C = 1: 0.778 and 0.498)
    per_query, one_query = zip(*(cross_validated_ndcg(RankSVM(C=C), X, y, q, GroupKFold(3))
                                 for C in (0.01, 1)))
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], per_query, rtol=1e-12)
    assert search.best_score_ == pytest.approx(max(per_query), rel=1e-12)
    assert np.all(np.abs(np.subtract(per_query, one_query)) > 0.1)


# --- 13: query ids beyond int64, grades from 1024 up -----------------------------------------------
def test_float_query_ids_beyond_int64_stay_apart():
    # query 1e20: label 2 at rank 2, (3 / log2 3) / 3; query 2e20: label 1 first, 1
    np.testing.assert_allclose(ndcg_at_k([2, 0, 1, 0], [.1, .9, .5, .3], [1e20, 1e20, 2e20, 2e20]),
                               [(3 / math.log2(3)) / 3, 1.0])
    np.testing.assert_array_equal(check_qid([1e20, 1e20, 2e20, -3e19]), [1, 1, 2, 0])
    np.testing.assert_array_equal(check_qid(np.array([2 ** 64 - 1, 2 ** 64 - 1, 5], dtype=np.uint64)), [1, 1, 0])
    with pytest.raises(ValueError, match="the rows of query 1e\\+20 are not contiguous"):
        check_qid([1e20, 2e20, 1e20])


def exact_ndcg(labels, order, k=None):
    """NDCG with gains 2^g − 1 and discounts 1/log2(1 + rank), in exact integers then one division."""
    k = len(labels) if k is None else k
    gains = [2 ** int(labels[i]) - 1 for i in order][:k]
    ideal = sorted((2 ** int(g) - 1 for g in labels), reverse=True)[:k]
    top = max(ideal)
    dcg = sum(float(Fraction(g, top)) / math.log2(r + 2) for r, g in enumerate(gains))
    return dcg / sum(float(Fraction(g, top)) / math.log2(r + 2) for r, g in enumerate(ideal))


@pytest.mark.parametrize("labels", [[1030, 0, 1024, 1], [2000, 1999, 0], [1100, 1100, 3]])
def test_grades_from_1024_up_give_finite_ndcg_and_err(labels):
    scores = np.linspace(0, 1, len(labels))  # the last row ranked first
    order = list(range(len(labels)))[::-1]
    assert ndcg_at_k(labels, scores, None, None)[0] == pytest.approx(exact_ndcg(labels, order), rel=1e-12)
    assert ndcg([np.argsort(order) + 1], [labels])[0] == pytest.approx(exact_ndcg(labels, order), rel=1e-12)
    # LETOR's NDCG@2: ranks 1 and 2 both weigh 1, so it is the ratio of the two gain sums, exactly
    gains, ideal = [2 ** labels[i] - 1 for i in order], sorted((2 ** g - 1 for g in labels), reverse=True)
    assert letor.ndcg_at_k(labels, scores, None, 2)[0] == pytest.approx(
        float(Fraction(sum(gains[:2]), sum(ideal[:2]))), rel=1e-12)
    top = max(labels)
    stop = [float(Fraction(2 ** labels[i] - 1, 2 ** top)) for i in order]
    expected = sum(s / (r + 1) * math.prod(1 - t for t in stop[:r]) for r, s in enumerate(stop))
    assert err_at_k(labels, scores, None, None)[0] == pytest.approx(expected, rel=1e-12)


def test_err_with_a_grade_from_53_up_is_not_nan():
    """2^g − 1 rounds to 2^g from g = 53: the top grade's stop probability is exactly 1."""
    assert err_at_k([60, 0, 60], [1, 0, 0.5])[0] == 1.0
    np.testing.assert_allclose(err_at_k([60, 0, 2, 1], [0, 1, 0.5, 2], [1, 1, 2, 2]),
                               [0.5, err_at_k([2, 1], [0.5, 2], max_grade=60)[0]], rtol=1e-15)


# --- 14: LETOR loader limits ---------------------------------------------------------------------------
@pytest.mark.parametrize("text, match", [
    ("1 qid:12345678901234567890123 1:0.5\n", r"line 1: query id 12345678901234567890123 is beyond the 64-bit"),
    ("1 qid:1 1:0.5\n0 qid:1 2147483648:1\n", r"line 2: feature index 2147483648 is beyond 2147483647"),
    ("1 qid:1 1:0.5\n0 qid:1 2:1\n1 qid:2 1000000000:1\n0 qid:2 1:1\n",
     r"line 3: X would take 29\.8 GiB dense \(4 rows x 1000000000 features, the largest index 1000000000"),
])
def test_loader_names_the_line_of_an_index_or_qid_too_large(tmp_path, text, match, monkeypatch):
    import ordrank.datasets.letor_file as letor_file

    monkeypatch.setattr(letor_file, "available_memory", lambda: 8 * 2 ** 30)  # any machine: 8 GiB free
    path = tmp_path / "part.txt"
    path.write_text(text)
    with pytest.raises(LetorFormatError, match=f"^{path}, {match}"):
        load_letor(path)


@pytest.mark.parametrize("ending", ["\r", "\r\n", "\n"])
def test_loader_reads_cr_only_line_endings(tmp_path, ending):
    path = tmp_path / "part.txt"
    path.write_bytes(ending.join(["1 qid:1 1:0.5 #docid = a", "0 qid:1 1:0.1 #docid = b",
                                  "2 qid:2 2:0.3 #docid = c", ""]).encode())
    data = load_letor(path)
    assert data.qid.tolist() == [1, 1, 2] and data.y.tolist() == [1, 0, 2]
    assert data.docid.tolist() == ["a", "b", "c"] and data.X.tolist() == [[0.5, 0], [0.1, 0], [0, 0.3]]
