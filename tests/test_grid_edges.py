"""Model-selection choices on a grid's edge: read from a table's params and grid columns (no table
changes), warned by the protocols at each fit."""
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ordrank.results.grid_edges import GRID_PREFIX, GridEdgeWarning, edges, grid_edges, warn_edges


@given(values=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=6, unique=True),
       pick=st.integers(0, 5))
def test_an_edge_is_exactly_the_grids_min_or_max(values, pick):
    chosen = values[pick % len(values)]
    found = edges({"C": chosen}, {"C": values})
    side = "smallest" if chosen == min(values) else "largest" if chosen == max(values) else None
    assert found == ([("C", chosen, side, values)] if side else [])


def test_categorical_single_and_missing_grids_have_no_edge():
    assert edges({"kernel": "rbf", "C": 1.0, "gamma": 0.1}, {"kernel": ["rbf", "linear"], "C": [1.0]}) == []
    assert edges({}, {"C": [1.0, 10.0]}) == []


def test_the_warning_names_parameter_value_and_grid():
    with pytest.warns(GridEdgeWarning, match=r"RankSVM on a fold.*C=0\.0001 is the smallest of its grid "
                                             r"\[0\.0001, 0\.001, 0\.01\].*widen the grid"):
        warn_edges("RankSVM", "a fold", json.dumps({"C": 0.0001}), {"C": [1e-4, 1e-3, 1e-2]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_edges("RankSVM", "a fold", json.dumps({"C": 0.001}), {"C": [1e-4, 1e-3, 1e-2]})


@pytest.mark.parametrize("shape", ["x1", "x3.15"])
def test_the_committed_web_tables_choices_are_inside_their_grids(shape):
    """results/letor_web at WEB10K's and WEB30K's shapes: every grid's choice is interior (with the grids
    of conf/experiment/letor_web.yaml, which grid_edges reads from the table's own grid column)."""
    table = pd.read_parquet(f"results/letor_web/mslr_shaped_{shape}.parquet")
    assert {"RankSVM", "RankNet-linear"} <= set(table.algorithm)
    assert any(column.startswith(GRID_PREFIX) for column in table.columns)  # the grids are in the table
    found = grid_edges(table, ["fold"])
    assert found.empty, found.to_dict("records")


def test_a_table_without_grids_has_no_edges():
    table = pd.DataFrame({"algorithm": ["A"], "fold": [1], "params": ['{"C": 1}'], "metric": ["m"],
                          "value": [np.nan]})
    assert grid_edges(table, ["fold"]).empty


def test_the_query_folds_protocol_warns_at_an_edge(monkeypatch):
    from ordrank.protocols import query_folds

    monkeypatch.setattr(query_folds.QueryFolds, "select", lambda self, learner, grid, parts: (None, {"C": 0.01}))
    monkeypatch.setattr(query_folds, "scores_of", lambda model, X: np.zeros(len(X)))

    class Part:
        X, y, qid = np.zeros((4, 1)), np.array([0, 1, 0, 1]), np.array([1, 1, 2, 2])

    class Parts:  # a FoldOnDisk's interface
        train = Part
        load = staticmethod(lambda part: Part)

    from ordrank.algorithms.ranking import RankSVM
    with pytest.warns(GridEdgeWarning, match=r"RankSVM on a fold.*C=0\.01 is the largest"):
        query_folds.QueryFolds(metrics=["ndcg@10"]).evaluate(RankSVM(), {"C": [1e-4, 1e-2]}, Parts)
