"""LETOR's protocol (ordrank.protocols.query_folds): selection on validation, test rows, failures kept,
grids checked up front, and the same table byte for byte through the app."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator

from ordrank.algorithms.ranking import LeastSquaresRanker, RankingEstimator
from ordrank.app import run
from ordrank.datasets.letor import LetorData
from ordrank.metrics.scorers import ranking_metric
from ordrank.protocols.query_folds import LETOR_METRICS, QueryFolds

from conftest import make_cfg

N_FEATURES = 4


def write_subsets(root: Path, n_subsets=5, queries=4, docs=12, seed=0) -> Path:
    """A LETOR folder in the subsets layout (S1..Sn): grades from a noisy linear score of 4 features."""
    rng = np.random.default_rng(seed)
    w = np.array([1.0, -0.5, 0.25, 0.0])
    folder = root / "toy"
    folder.mkdir(parents=True)
    qid = 0
    for s in range(1, n_subsets + 1):
        lines = []
        for _ in range(queries):
            qid += 1
            X = rng.uniform(size=(docs, N_FEATURES))
            latent = X @ w + 0.1 * rng.normal(size=docs)
            grade = np.digitize(latent, np.quantile(latent, [0.5, 0.8]))
            for d in range(docs):
                features = " ".join(f"{j + 1}:{X[d, j]:.6f}" for j in range(N_FEATURES))
                lines.append(f"{grade[d]} qid:{qid} {features} #docid = {qid * 100 + d}")
        (folder / f"S{s}.txt").write_text("\n".join(lines) + "\n")
    return folder


@pytest.fixture
def toy(tmp_path) -> LetorData:
    return LetorData(path=str(write_subsets(tmp_path)), n_features=N_FEATURES)


class Fixed(RankingEstimator):
    """Scores = X @ w for a fixed w (no learning): model selection must pick the w that ranks best."""

    def __init__(self, w=(1.0, 0.0, 0.0, 0.0)):
        self.w = w

    def fit(self, X, y, qid=None):
        X, y, qid = self._validate_queries(X, y, qid)
        self.coef_ = np.asarray(self.w, dtype=float)
        return self

    def _scores(self, X):
        return X @ self.coef_


class Broken(Fixed):
    def fit(self, X, y, qid=None):
        raise RuntimeError("solver exploded")


def test_each_fold_reports_every_metric_of_the_model_best_on_validation(toy):
    good, bad = (1.0, -0.5, 0.25, 0.0), (-1.0, 0.5, -0.25, 0.0)
    protocol = QueryFolds(folds=[1, 3], grids={"Fixed": {"w": [bad, good]}})
    pieces = list(protocol.iter_run(toy, {"Fixed": Fixed(), "LS": LeastSquaresRanker()}))
    table = pd.concat(pieces)
    assert sorted(table["fold"].unique()) == [1, 3]
    assert set(table["metric"]) == set(LETOR_METRICS)
    assert (table["status"] == "ok").all()
    fixed = table[table["algorithm"] == "Fixed"]
    assert set(fixed["params"]) == {'{"w": [1.0, -0.5, 0.25, 0.0]}'}  # the good w wins on validation
    # the reported value is the metric of that model on the fold's test queries
    test = toy.fold(3).test
    expected = ranking_metric("letor_map")(test.y, test.X @ np.array(good), test.qid)
    got = fixed[(fixed["fold"] == 3) & (fixed["metric"] == "letor_map")]["value"].item()
    assert got == pytest.approx(expected, abs=1e-12)


def test_ties_in_selection_keep_the_first_grid_point(toy):
    same = (1.0, -0.5, 0.25, 0.0)
    scaled = (2.0, -1.0, 0.5, 0.0)  # the same ranking: the same validation MAP
    table = pd.concat(QueryFolds(folds=1, grids={"Fixed": {"w": [scaled, same]}}).iter_run(
        toy, {"Fixed": Fixed()}))
    assert set(table["params"]) == {'{"w": [2.0, -1.0, 0.5, 0.0]}'}


def test_a_failing_learner_is_recorded_and_the_others_go_on(toy):
    table = pd.concat(QueryFolds(folds=1).iter_run(toy, {"Broken": Broken(), "LS": LeastSquaresRanker()}))
    broken = table[table["algorithm"] == "Broken"]
    assert broken["value"].isna().all()
    assert broken["status"].str.contains("every grid point failed.*solver exploded").all()
    assert table[table["algorithm"] == "LS"]["value"].notna().all()


class PerClass(BaseEstimator):
    """An estimator whose decision_function has one column per class: it cannot rank."""

    def fit(self, X, y):
        return self

    def decision_function(self, X):
        return np.zeros((len(X), 3))


def test_a_learner_without_one_score_per_document_fails_with_a_clear_status(toy):
    table = pd.concat(QueryFolds(folds=1).iter_run(toy, {"PerClass": PerClass()}))
    assert table["status"].str.contains("not one score per document").all()


@pytest.mark.parametrize("kwargs, message", [
    ({"selection": "letor_mapp"}, "letor_mapp"),
    ({"metrics": ["ndcg@10", "ndcg@10"]}, "without repeats"),
    ({"grids": {"LS": {"alpha": []}}}, "non-empty lists"),
])
def test_bad_protocol_settings_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        QueryFolds(**kwargs)


def test_folds_and_grid_values_are_checked_before_any_work(toy):
    with pytest.raises(ValueError, match=r"fold 6 is not in 1\.\.5"):
        next(QueryFolds(folds=[6]).iter_run(toy, {"LS": LeastSquaresRanker()}))
    with pytest.raises(ValueError, match="lists a fold twice"):
        next(QueryFolds(folds=[1, 1]).iter_run(toy, {"LS": LeastSquaresRanker()}))
    with pytest.raises(ValueError, match=r"protocol.grids.LS: \{'alpha': -1.0\} is not valid"):
        next(QueryFolds(grids={"LS": {"alpha": [1.0, -1.0]}}).iter_run(toy, {"LS": LeastSquaresRanker()}))
    with pytest.raises(ValueError, match=r"names \['RankSVM'\], which are not among"):
        next(QueryFolds(grids={"RankSVM": {"C": [1.0]}}).iter_run(toy, {"LS": LeastSquaresRanker()}))


def test_the_app_writes_the_same_table_twice(tmp_path):
    folder = write_subsets(tmp_path / "data")
    overrides = ["dataset=letor", f"dataset.path={folder}", "protocol=query_folds", "features=none",
                 "protocol.folds=[1,2]",
                 "+algorithm@algorithms.Regression=least_squares_ranker",
                 "+algorithm@algorithms.LambdaMART=lightgbm_ranker",
                 "algorithms.LambdaMART.n_estimators=10", "algorithms.LambdaMART.min_child_samples=2",
                 "+protocol.grids.Regression.alpha=[1e-8,10.0]"]
    first = run(make_cfg(overrides), tmp_path / "a")
    second = run(make_cfg(overrides), tmp_path / "b")
    assert first.read_bytes() == second.read_bytes()
    table = pd.read_parquet(first)
    assert list(table.columns[:5]) == ["experiment", "dataset", "algorithm", "fold", "metric"]
    assert len(table) == 2 * 2 * len(LETOR_METRICS)
    assert table["value"].between(0, 1).all()
