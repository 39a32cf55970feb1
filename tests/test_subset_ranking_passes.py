"""Subset ranking: the passes interpretation (protocol.passes_mode), the batch rankers beside the Predtron, an
independent re-implementation of the Predtron against the protocol and the committed tables, and the
Figure 1 script on the committed tables."""

import importlib.util
from pathlib import Path

import pandas as pd
import pytest
from sklearn.base import clone

from ordrank.algorithms.ranking import LeastSquaresRanker
from ordrank.algorithms.structured import PredtronRanker
from ordrank.datasets.subset_ranking import GaussianSubsetRanking
from ordrank.protocols.subset_ranking import SubsetRankingProtocol, flat
from ordrank.results import collect, read_table

import predtron_by_hand as by_hand

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
TABLES = {"a": RESULTS / "predtron_subset_n" / "subset_ranking.parquet",
          "b": RESULTS / "predtron_subset_m" / "subset_ranking.parquet",
          "c": RESULTS / "predtron_l1_vs_l2" / "subset_ranking_sparse.parquet"}


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


figure1 = load(ROOT / "experiments" / "plot_figure1.py", "plot_figure1")


def protocol(**changes):
    settings = dict(n_repetitions=2, n_train=[4, 9], m=6, p=5, n_test=12, passes_mode=["until_separated", "one"])
    return SubsetRankingProtocol(**{**settings, **changes})


def run(protocol, learners, seed=0):
    return pd.concat(protocol.iter_run(GaussianSubsetRanking(), learners, seed=seed), ignore_index=True)


# --- the passes interpretation -------------------------------------------------------------------------
@pytest.mark.parametrize("vectorize", [True, False])
def test_one_pass_is_the_learner_with_one_epoch_copy_by_copy(vectorize):
    learner = PredtronRanker(f="power_1.1", n_epochs=7, stop_when_separated=True)
    both = run(protocol(vectorize=vectorize), {"P": learner}, seed=3)
    assert set(both.passes_mode) == {"until_separated", "one"}
    one = both[both.passes_mode == "one"].drop(columns="passes_mode").reset_index(drop=True)
    single = clone(learner).set_params(n_epochs=1, stop_when_separated=False)
    alone = run(protocol(passes_mode="until_separated"), {"P": single}, seed=3)
    pd.testing.assert_frame_equal(one, alone.drop(columns="passes_mode"), rtol=1e-12, atol=1e-15)
    assert (one.loc[one.metric == "passes", "value"] == 1).all()
    # the other interpretation is the learner as configured, and the learner itself is left as it was
    several = run(protocol(passes_mode="until_separated"), {"P": learner}, seed=3)
    pd.testing.assert_frame_equal(both[both.passes_mode == "until_separated"].reset_index(drop=True), several)
    assert learner.n_epochs == 7 and learner.stop_when_separated
    # by hand: repetition 1, n = 9, a single pass of the learner's own fit
    task_rng, test_rng, train_rng = protocol().streams(3, 1, 6, 5)
    task = GaussianSubsetRanking().task(task_rng, 6, 5)
    X_test, y_test = task.sample(test_rng, 12)
    model = clone(single).fit(*flat(*task.sample(train_rng, 9)))
    value = both.set_index(["passes_mode", "seed", "n_train", "metric"])["value"]
    expected = by_hand.test_loss(model.coef_, X_test, y_test)
    assert value["one", 1, 9, "test_ndcg_loss"] == pytest.approx(expected, abs=1e-15)


def test_batch_rankers_are_fitted_once_whatever_the_readings():
    table = run(protocol(), {"LS": LeastSquaresRanker(), "P": PredtronRanker(n_epochs=2)})
    modes = table.groupby("algorithm")["passes_mode"].unique().map(sorted).to_dict()
    assert modes == {"LS": ["batch"], "P": ["one", "until_separated"]}
    assert len(table[table.algorithm == "LS"]) == 2 * 2 * 2  # no passes metric for a batch ranker


@pytest.mark.parametrize("value, message", [("twice", "protocol.passes_mode must be one of"),
                                            ([], "protocol.passes_mode must be"),
                                            (["one", "one"], "a list of distinct"),
                                            ("batch", "protocol.passes_mode must be one of")])
def test_bad_passes_mode_is_named(value, message):
    with pytest.raises(ValueError, match=message):
        protocol(passes_mode=value)


def test_passes_mode_order_is_canonical():
    assert protocol(passes_mode=["one", "until_separated"]).passes_mode == ["until_separated", "one"]
    assert protocol(passes_mode="one").passes_mode == ["one"]


# --- the independent re-implementation ----------------------------------------------------------
@pytest.mark.parametrize("f", ["inverse", "power_1.1", "power_2"])
def test_reimplementation_agrees_with_the_protocol(f):
    """tests/predtron_by_hand.py (Algorithm 1 from the paper, no ordrank Predtron code)."""
    table = run(protocol(n_train=[4, 9]), {"P": PredtronRanker(f=f, n_epochs=50, stop_when_separated=True)},
                seed=2)
    value = table.set_index(["passes_mode", "seed", "n_train", "metric"])["value"]
    for mode in ("until_separated", "one"):
        for r in (0, 1):
            for n in (4, 9):
                loss, made = by_hand.grid_point(r, n, f, mode, m=6, p=5, seed=2, n_test=12, pool=9)
                assert made == value[mode, r, n, "passes"]
                assert loss == pytest.approx(value[mode, r, n, "test_ndcg_loss"], rel=1e-9, abs=1e-15)


def test_reimplementation_gives_the_committed_rows():
    table = read_table(TABLES["a"])
    value = table.set_index(["algorithm", "passes_mode", "seed", "n_train", "metric"])["value"]
    for algorithm, f in (("Predtron-inverse", "inverse"), ("Predtron-power_2", "power_2")):
        for mode in ("until_separated", "one"):
            loss, made = by_hand.grid_point(1, 10, f, mode)
            assert made == value[algorithm, mode, 1, 10, "passes"]
            assert loss == pytest.approx(value[algorithm, mode, 1, 10, "test_ndcg_loss"], rel=1e-9, abs=1e-15)


# --- the committed tables and the figure ----------------------------------------------------------
def test_committed_tables_have_both_readings_and_no_duplicates():
    table = collect(list(TABLES.values()))
    assert table.columns[2:8].tolist() == ["algorithm", "seed", "passes_mode", "n_train", "m", "p"]
    predtron = table[table.algorithm.str.startswith("Predtron")]
    assert set(predtron.passes_mode) == {"until_separated", "one"}
    counts = predtron.groupby(["experiment", "algorithm", "passes_mode"]).size()
    assert counts.groupby(level=["experiment", "algorithm"]).nunique().eq(1).all()  # as many rows each
    passes = predtron[predtron.metric == "passes"]
    assert (passes.loc[passes.passes_mode == "one", "value"] == 1).all()
    assert passes.loc[passes.passes_mode == "until_separated", "value"].between(1, 50).all()
    batch = table[~table.algorithm.str.startswith("Predtron")]
    assert set(batch.experiment) == {"predtron_subset_n"} and set(batch.passes_mode) == {"batch"}
    assert set(batch.algorithm) == {"RankSVM", "RankNet", "LambdaMART", "LeastSquares"}
    assert batch.groupby("algorithm").size().nunique() == 1 and "passes" not in set(batch.metric)


def test_figure_and_tables_from_the_committed_tables():
    tables = {letter: read_table(path) for letter, path in TABLES.items()}
    fig = figure1.figure(tables)
    lines = {ax.get_title().split(")")[0]: len(ax.get_lines()) for ax in fig.axes}
    assert lines == {"(a": 3 * 2 + 4, "(b": 3 * 2, "(c": 2 * 2}
    styles = {line.get_label(): line.get_linestyle() for line in fig.axes[0].get_lines()}
    assert styles["$f(i) = 1/i$"] == "-" and styles["$f(i) = 1/i$, one pass"] == "--"
    assert styles["RankSVM"] == ":"
    header = figure1.markdown(tables["a"], "a").splitlines()[0]
    assert header.startswith("| n | f(i) = 1/i | f(i) = −i^1.1 | f(i) = −i² | f(i) = 1/i, one pass |")
    assert header.count("|") == 12  # n, 6 Predtron interpretations, 4 batch rankers
