"""The train/test partition protocol: selection by CV, refit, test, failures recorded, pipelines."""
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from ordrank.algorithms import PRank
from ordrank.metrics.ordinal import mean_absolute_error
from ordrank.protocols.partitions import TrainTestPartitions


class Partitioned:
    """Three partitions of a one-dimensional problem with ranks 1..3."""

    n_splits, n_ranks = 3, 3

    def split(self, i):
        rng = np.random.default_rng(i)
        x = rng.uniform(0, 3, size=(90, 1))
        y = np.minimum(x[:, 0].astype(np.int64) + 1, 3)
        return x[:60], y[:60], x[60:], y[60:]


class Shifted(ClassifierMixin, BaseEstimator):
    """Predicts rank(x) + shift: the grid over ``shift`` has one right answer (0)."""

    def __init__(self, shift=1):
        self.shift = shift

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.clip(np.asarray(X)[:, 0].astype(np.int64) + 1 + self.shift, 1, 3)


class Fails(Shifted):
    def fit(self, X, y):
        raise RuntimeError("solver status: infeasible")


def run(protocol, learners, dataset=None):
    tables = list(protocol.iter_run(dataset or Partitioned(), learners))
    return pd.concat(tables, ignore_index=True), tables


def test_cross_validation_picks_the_right_value_and_tests_it():
    protocol = TrainTestPartitions(grids={"S": {"shift": [2, -1, 0, 1]}})
    table, pieces = run(protocol, {"S": Shifted()})
    assert len(pieces) == 3  # one table per (learner, partition)
    assert set(table.metric) == {"mae", "zero_one", "fit_seconds", "cv_seconds"}
    assert table.split.tolist() == [0] * 4 + [1] * 4 + [2] * 4 and (table.bins == 3).all()
    assert set(table.params) == {json.dumps({"shift": 0})}
    errors = table[table.metric.isin(["mae", "zero_one"])]
    assert (errors.value == 0).all() and (table.status == "ok").all()


def test_without_a_grid_the_configured_values_are_used():
    table, _ = run(TrainTestPartitions(splits=[1]), {"S": Shifted(shift=1)})
    assert table.split.unique().tolist() == [1] and set(table.params) == {"{}"}
    assert table.set_index("metric").loc["cv_seconds", "value"] == 0.0
    assert table.set_index("metric").loc["mae", "value"] > 0.5


def test_a_failing_learner_is_recorded_and_the_others_go_on():
    table, _ = run(TrainTestPartitions(splits=0), {"F": Fails(), "S": Shifted(shift=0)})
    failed = table[table.algorithm == "F"]
    assert failed.status.str.startswith("failed: RuntimeError: solver status: infeasible").all()
    assert failed[failed.metric == "mae"].value.isna().all()
    assert (table[table.algorithm == "S"].status == "ok").all()


def test_grid_in_a_pipeline_and_status_of_the_final_step():
    learner = make_pipeline(StandardScaler(), PRank(n_epochs=3))
    protocol = TrainTestPartitions(splits=0, grids={"P": {"n_epochs": [1, 2]}})
    table, _ = run(protocol, {"P": learner})
    assert json.loads(table.params[0]) in ({"n_epochs": 1}, {"n_epochs": 2})
    assert table[table.metric == "mae"].value.between(0, 2).all()


@pytest.mark.parametrize("kwargs, message", [
    (dict(cv_folds=1), "cv_folds"),
    (dict(scoring="hinge"), "scoring"),
    (dict(grids={"S": {"shift": []}}), "non-empty"),
])
def test_bad_protocol_values(kwargs, message):
    with pytest.raises(ValueError, match=message):
        TrainTestPartitions(**kwargs)


def test_bad_grids_and_splits_are_named_before_any_work():
    with pytest.raises(ValueError, match=r"grids names \['X'\]"):
        list(TrainTestPartitions(grids={"X": {"C": [1]}}).iter_run(Partitioned(), {"S": Shifted()}))
    with pytest.raises(ValueError, match="'C' is not a parameter of Shifted"):
        list(TrainTestPartitions(grids={"S": {"C": [1]}}).iter_run(Partitioned(), {"S": Shifted()}))
    with pytest.raises(ValueError, match=r"partition 7 is not in 0..2"):
        list(TrainTestPartitions(splits=7).iter_run(Partitioned(), {"S": Shifted()}))


def test_labels_outside_the_ranks_are_named():
    class Bad(Partitioned):
        def split(self, i):
            X, y, Xt, yt = super().split(i)
            return X, y, Xt, yt + 5

    with pytest.raises(ValueError, match="test labels of partition 0 has rank"):
        list(TrainTestPartitions(splits=0).iter_run(Bad(), {"S": Shifted()}))


class Recorded(Shifted):
    """Shifted with two more grid parameters; every fit appends (sum of its inputs, C, gamma)."""

    fits: list = []

    def __init__(self, shift=1, C=1.0, gamma=1.0):
        super().__init__(shift)
        self.C, self.gamma = C, gamma

    def fit(self, X, y):
        if self.C == 10 and self.gamma == 0.5:
            raise RuntimeError("this grid point fails")
        Recorded.fits.append((float(np.sum(X)), self.C, self.gamma))
        return super().fit(X, y)

    def predict(self, X):  # the shift, and a cost that depends on C and gamma in some folds
        noisy = np.asarray(X)[:, 0] * 10 % 1 < 0.1 * self.C * self.gamma
        return np.clip(super().predict(X) + noisy, 1, 3)


def test_selection_goes_fold_by_fold_with_C_fastest():
    """Grid points sharing everything but C are fitted in a row (a learner's per-kernel cache
    serves them); on the old GridSearchCV order (each point on every fold) this fails."""
    Recorded.fits = []
    X, y, _, _ = Partitioned().split(0)
    protocol = TrainTestPartitions(cv_folds=3)
    folds = StratifiedKFold(3, shuffle=True, random_state=0)
    protocol.select(Recorded(), {"gamma": [0.5, 1.0], "C": [1, 10, 100]}, folds, X, y)
    firsts = [row for row, _, _ in Recorded.fits]
    assert firsts == sorted(firsts, key=firsts.index)  # each fold's fits together
    first_fold = [(C, gamma) for row, C, gamma in Recorded.fits if row == firsts[0]]
    assert first_fold == [(1, 0.5), (100, 0.5), (1, 1.0), (10, 1.0), (100, 1.0)]


@pytest.mark.parametrize("seed", range(4))
def test_selection_chooses_as_grid_search_did(seed):
    """The choice of scikit-learn's GridSearchCV (the former select), failed points included."""
    X, y, _, _ = Partitioned().split(seed)
    grid = {"C": [1, 10, 100], "gamma": [0.5, 1.0], "shift": [0, 1]}
    folds = StratifiedKFold(3, shuffle=True, random_state=seed)
    search = GridSearchCV(Recorded(), grid, cv=folds, refit=False, error_score=np.nan,
                          scoring=make_scorer(mean_absolute_error, greater_is_better=False))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search.fit(X, y)
    expected = search.cv_results_["params"][int(np.nanargmax(search.cv_results_["mean_test_score"]))]
    assert TrainTestPartitions(cv_folds=3).select(Recorded(), grid, folds, X, y) == expected


def test_selection_where_every_point_fails_names_the_error():
    X, y, _, _ = Partitioned().split(0)
    folds = StratifiedKFold(3, shuffle=True, random_state=0)
    with pytest.raises(RuntimeError, match="every grid point failed.*solver status: infeasible"):
        TrainTestPartitions(cv_folds=3).select(Fails(), {"shift": [0, 1]}, folds, X, y)
