"""Web-scale learning to rank at a small scale: the MSLR-shaped generator, LETOR's query-level
normalization, float32 data through RankSVM, raw features, and the letor_web experiment end to end
(the full shapes run only in benchmarks/bench_web_scale.py)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ordrank.algorithms._ordinal import FitFailed
from ordrank.algorithms.ranking import RankBoost, RankNet, RankSVM
from ordrank.datasets.letor import LetorData
from ordrank.datasets.mslr_shaped import GRADE_SHARES, MslrShaped, mslr_shaped, write_letor_folder
from ordrank.features import QueryLevelNorm, query_level_norm
from ordrank.metrics.scorers import ranking_metric
from ordrank.protocols.query_folds import QueryFolds

SCALE = 0.02  # 200 queries, about 24,000 documents


@pytest.fixture(scope="module")
def parts():
    return mslr_shaped(SCALE, seed=0)


def test_generator_has_mslrs_shape(parts):
    train, vali, test = parts["train"], parts["vali"], parts["test"]
    assert [p.n_queries for p in (train, vali, test)] == [120, 40, 40]
    assert train.X.shape[1] == 136 and train.X.dtype == np.float32
    y = np.concatenate([p.y for p in parts.values()])
    assert np.allclose(np.bincount(y, minlength=5) / len(y), GRADE_SHARES, atol=0.01)
    sizes = np.diff(np.flatnonzero(np.r_[True, train.qid[1:] != train.qid[:-1], True]))
    assert 60 < sizes.mean() < 200 and sizes.max() <= 1250
    X = np.concatenate([p.X for p in parts.values()])
    top = np.abs(X).max(axis=0)
    assert top.max() >= 1e5 and top.min() <= 1.0       # raw scales spanning orders of magnitude
    assert (np.mean(X == 0, axis=0) > 0.5).sum() >= 10  # sparse columns
    assert len(set(np.unique(np.concatenate([p.qid for p in parts.values()])))) == 200  # disjoint parts


def test_generator_is_seeded():
    a, b, c = mslr_shaped(0.005, seed=1), mslr_shaped(0.005, seed=1), mslr_shaped(0.005, seed=2)
    assert all(np.array_equal(a[k].X, b[k].X) and np.array_equal(a[k].y, b[k].y) for k in a)
    assert not np.array_equal(a["train"].y, c["train"].y)


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), True, "1"])
def test_generator_refuses_a_bad_scale(bad):
    with pytest.raises(ValueError, match="dataset.scale"):
        MslrShaped(scale=bad)


def test_written_folder_reads_back_the_same(parts, tmp_path):
    small = mslr_shaped(0.003, seed=3)
    write_letor_folder(small, tmp_path / "mslr")
    fold = LetorData(tmp_path / "mslr", n_features=136, dtype="float32").fold(1)
    for name in ("train", "vali", "test"):
        got, want = getattr(fold, name), small[name]
        assert np.array_equal(got.X, want.X) and np.array_equal(got.y, want.y)
        assert np.array_equal(got.qid, want.qid)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=6), st.integers(0, 10_000))
def test_query_level_norm_rescales_each_query_to_unit_range(sizes, seed):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(len(sizes)), sizes)
    X = rng.normal(size=(len(qid), 3)) * 10.0 ** rng.integers(-3, 7, size=3)
    X[:, 0] = 5.0  # a constant column
    Z = query_level_norm(X, qid)
    for q in range(len(sizes)):
        rows = Z[qid == q]
        assert np.all(rows[:, 0] == 0)
        for j in (1, 2):
            expected = (X[qid == q, j] - X[qid == q, j].min()) / np.ptp(X[qid == q, j]) if sizes[q] > 1 else 0
            assert np.allclose(rows[:, j], expected)


def test_query_level_norm_in_chunks_equals_one_pass(parts, monkeypatch):
    import ordrank.features.query_norm as module

    train = parts["train"]
    whole = query_level_norm(train.X, train.qid)
    monkeypatch.setattr(module, "CHUNK_ROWS", 1000)
    assert np.array_equal(query_level_norm(train.X, train.qid), whole)
    assert whole.dtype == np.float32 and whole.min() >= 0 and whole.max() <= 1


def test_query_level_norm_needs_qid():
    with pytest.raises(ValueError, match="needs qid"):
        QueryLevelNorm().fit_transform(np.ones((3, 2)))


def test_ranksvm_on_float32_equals_float64(parts):
    train = parts["train"]
    X32 = query_level_norm(train.X, train.qid)[:6000]
    y, q = train.y[:6000], train.qid[:6000]
    a = RankSVM(C=1e-2, tol=1e-6).fit(X32, y, qid=q)
    b = RankSVM(C=1e-2, tol=1e-6).fit(X32.astype(np.float64), y, qid=q)
    assert np.allclose(a.coef_, b.coef_, rtol=1e-6, atol=1e-9)
    assert np.allclose(a.decision_function(X32), b.decision_function(X32.astype(np.float64)), rtol=1e-6)


def probe():
    """The issue's probe: 8 queries × 8 documents × 3 features, then X × 1e6."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(64, 3))
    y = np.clip(np.round(X @ [1.0, -2.0, 0.5] + rng.normal(0, 0.5, 64) + 1), 0, 3)
    return X, y, np.repeat(np.arange(8), 8)


def test_ranksvm_on_raw_scale_is_an_error_that_says_what_to_do():
    X, y, qid = probe()
    with pytest.raises(FitFailed, match=r"no progress from the all-zero model.*features=query_level_norm"):
        RankSVM(max_iter=200).fit(X * 1e6, y, qid=qid)


@pytest.mark.parametrize("model", [RankNet(), RankBoost()], ids=["RankNet", "RankBoost"])
def test_ranknet_and_rankboost_learn_on_raw_scale(model):
    X, y, qid = probe()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scores = model.fit(X * 1e6, y, qid=qid).decision_function(X * 1e6)
    assert np.corrcoef(scores, X @ [1.0, -2.0, 0.5])[0, 1] > 0.9


def test_protocol_normalizes_each_part_and_beats_chance(parts):
    class Small(MslrShaped):
        fresh_folds = False  # it hands out the module's arrays: the protocol must not rescale them in place

        def fold(self, k):
            from ordrank.datasets.letor import Fold
            return Fold("Fold1", parts["train"], parts["vali"], parts["test"], {})

    protocol = QueryFolds(selection="ndcg@10", metrics=["ndcg@10"], grids={"RankSVM": {"C": [1e-3, 1e-2]}})
    table = next(protocol.iter_run(Small(scale=SCALE), {"RankSVM": RankSVM(tol=1e-3)}, QueryLevelNorm()))
    assert table.status.iloc[0] == "ok"
    random = np.mean([ranking_metric("ndcg@10")(parts["test"].y, np.random.default_rng(s).random(len(parts["test"].y)),
                                                parts["test"].qid) for s in range(3)])
    assert table.value.iloc[0] > random + 0.1


def test_letor_web_experiment_end_to_end_is_deterministic(tmp_path):
    """Every learner of the experiment, at a tiny scale, twice: the same table byte for byte."""
    from conftest import make_cfg

    from ordrank.app import run

    tiny = ["+experiment=letor_web", "dataset.scale=0.004", "algorithms.LambdaMART-LightGBM.n_estimators=20",
            "algorithms.LambdaMART-LightGBM.n_jobs=1", "algorithms.XGBoost-ndcg.n_estimators=20",
            "algorithms.XGBoost-ndcg.n_jobs=1", "algorithms.RankNet-1hidden.max_iter=20",
            "algorithms.RankBoost.n_estimators=20"]
    first = run(make_cfg(tiny), tmp_path / "a")
    assert first.read_bytes() == run(make_cfg(tiny), tmp_path / "b").read_bytes()
    import pandas as pd

    table = pd.read_parquet(first)
    assert set(table.algorithm) == {"RankSVM", "RankNet-linear", "RankNet-1hidden", "RankBoost",
                                    "LambdaMART-LightGBM", "XGBoost-ndcg"}
    assert (table.status == "ok").all() and table.value.between(0, 1).all()
    assert set(table.metric) == {"ndcg@1", "ndcg@5", "ndcg@10", "map", "letor4_ndcg@1", "letor4_ndcg@5",
                                 "letor4_ndcg@10", "letor4_map"}


def test_rankers_on_raw_web_features_learn_or_say_what_to_do():
    """MSLR-like raw features (counts up to 1e6) without normalization: a useful model, and where the
    solver stops short, a warning that names the gap and the fix."""
    from sklearn.exceptions import ConvergenceWarning

    small = mslr_shaped(0.004, seed=5)
    train, test = small["train"], small["test"]
    chance = np.mean([ranking_metric("ndcg@10")(test.y, np.random.default_rng(s).random(len(test.y)), test.qid)
                      for s in range(3)])
    with pytest.warns(ConvergenceWarning, match=r"certified relative gap of .*features=query_level_norm"):
        svm = RankSVM(C=1e-3, max_iter=15).fit(train.X, train.y, qid=train.qid)
    for model in (svm, RankBoost(n_estimators=30).fit(train.X, train.y, qid=train.qid)):
        assert ranking_metric("ndcg@10")(test.y, model.decision_function(test.X), test.qid) > chance + 0.05


def test_query_level_norm_is_refused_outside_the_query_protocol():
    from conftest import make_cfg

    from ordrank.app import build

    with pytest.raises(ValueError, match=r"features: QueryLevelNorm rescales the documents of each query; only "
                                         r"a query protocol \(protocol=query_folds\)"):
        build(make_cfg(["+experiment=prank_synthetic", "features=query_level_norm"]))
