"""The Predtron paper's subset-ranking data (Section 6), its protocol and the Figure 1 experiments."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.base import clone

from ordrank.algorithms.structured import PredtronRanker
from ordrank.app import build, run
from ordrank.datasets.subset_ranking import (GaussianSubsetRanking, SparseSubsetRanking,
                                             pooled_levels, relevance, thresholds)
from ordrank.datasets.synthetic import CrammerSinger
from ordrank.metrics import ndcg_loss
from ordrank.protocols.subset_ranking import METRICS, SubsetRankingProtocol, flat, positions_of

from conftest import make_cfg


# --- the generator -------------------------------------------------------------------------------
def zeta(j: int, m: int) -> float:
    """The paper's thresholds: ζ_1 = +∞, ζ_j = 1/j for 2 ≤ j ≤ m, ζ_{m+1} = −∞."""
    return np.inf if j == 1 else (-np.inf if j == m + 1 else 1.0 / j)


@given(m=st.integers(2, 40), s=st.floats(-2.0, 2.0, allow_nan=False))
def test_relevance_is_m_minus_j_for_the_band_holding_the_score(m, s):
    y = int(relevance(np.array([s]), m)[0])
    j = m - y
    assert 0 <= y <= m - 1
    assert zeta(j + 1, m) <= s <= zeta(j, m)
    if s not in (zeta(j, m), zeta(j + 1, m)):  # off the thresholds the band is unique
        assert not any(zeta(k + 1, m) <= s <= zeta(k, m) for k in range(1, m + 1) if k != j)


@pytest.mark.parametrize("m", [2, 5, 20])
def test_relevance_on_the_thresholds_takes_the_higher_level(m):
    assert thresholds(m).tolist() == [1.0 / j for j in range(m, 1, -1)]
    for j in range(2, m + 1):  # s = ζ_j lies in the bands of j − 1 and of j: the higher level m − j + 1
        assert relevance(np.array([1.0 / j]), m)[0] == m - j + 1
    assert relevance(np.array([0.5 + 1e-9, 1e9, 1.0 / m - 1e-9, -3.0]), m).tolist() == [m - 1, m - 1, 0, 0]


@pytest.mark.parametrize("generator, p", [(GaussianSubsetRanking(), 7),
                                          (SparseSubsetRanking(n_nonzero=3), 9)])
def test_shapes_levels_and_seeds(generator, p):
    task = generator.task(np.random.default_rng(1), 6, p)
    X, y = task.sample(np.random.default_rng(2), 11)
    assert X.shape == (11, 6, p) and y.shape == (11, 6) and y.dtype.kind == "i"
    assert y.min() >= 0 and y.max() <= 5
    np.testing.assert_array_equal(y, relevance(X @ task.w_star, 6))
    again = generator.task(np.random.default_rng(1), 6, p)
    X2, y2 = again.sample(np.random.default_rng(2), 11)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    X3, _ = again.sample(np.random.default_rng(3), 11)
    assert not np.array_equal(X, X3)
    X4, _ = again.sample(np.random.default_rng(2), 30)  # a larger draw starts with the smaller one
    np.testing.assert_array_equal(X4[:11], X)
    assert task.sample(np.random.default_rng(0), 0)[0].shape == (0, 6, p)


def test_gaussian_rows_centred_on_their_mu_with_unit_w_star():
    generator = GaussianSubsetRanking(center_scale=0.5, noise_scale=0.3)
    task = generator.task(np.random.default_rng(0), 4, 5)
    assert np.linalg.norm(task.w_star) == pytest.approx(1.0)
    X, _ = task.sample(np.random.default_rng(1), 20_000)
    np.testing.assert_allclose(X.mean(0), task.centers, atol=0.02)  # se 0.3/√20000 = 0.002
    np.testing.assert_allclose(X.std(0), 0.3, rtol=0.03)
    assert not np.allclose(task.centers[0], task.centers[1])  # one centre per document position


def test_sparse_w_star_has_s_nonzeros_and_x_in_the_cube():
    task = SparseSubsetRanking(n_nonzero=50, w_norm=0.5).task(np.random.default_rng(0), 20, 500)
    assert np.count_nonzero(task.w_star) == 50
    assert np.linalg.norm(task.w_star) == pytest.approx(0.5)
    X, _ = task.sample(np.random.default_rng(1), 10)
    assert X.min() >= -1 and X.max() <= 1 and X.min() < -0.99 and X.max() > 0.99


@pytest.mark.parametrize("generator, p", [(GaussianSubsetRanking(), 30), (SparseSubsetRanking(), 500)])
def test_default_levels_are_spread(generator, p):
    """At the paper's sizes no level takes nearly all documents and the middle levels are used."""
    shares = pooled_levels(generator, np.random.default_rng(0), 20, p, 40, 50)
    assert shares.sum() == pytest.approx(1.0)
    assert 0.45 < shares[0] < 0.65 and 0.02 < shares[19] < 0.08
    assert shares[1:19].sum() > 0.3 and (shares[1:19] > 0.002).all()


def test_unit_scales_would_crowd_the_top_level():
    """The reason for the default scale: with tau = sigma = 1 a third of documents tie at the top."""
    shares = pooled_levels(GaussianSubsetRanking(1.0, 1.0), np.random.default_rng(0), 20, 30, 40, 50)
    assert shares[19] > 0.25 and shares[1:19].sum() < 0.2


@pytest.mark.parametrize("make, message", [
    (lambda: GaussianSubsetRanking(noise_scale=0.0), "dataset.noise_scale"),
    (lambda: GaussianSubsetRanking(center_scale=-1.0), "dataset.center_scale"),
    (lambda: GaussianSubsetRanking(center_scale=float("nan")), "dataset.center_scale"),
    (lambda: SparseSubsetRanking(n_nonzero=0), "dataset.n_nonzero"),
    (lambda: SparseSubsetRanking(w_norm=0), "dataset.w_norm"),
    (lambda: SparseSubsetRanking(n_nonzero=50).task(np.random.default_rng(0), 20, 10),
     "n_nonzero=50 exceeds p=10"),
    (lambda: GaussianSubsetRanking().task(np.random.default_rng(0), 1, 10), "m .* >= 2, got 1"),
    (lambda: GaussianSubsetRanking().task(np.random.default_rng(0), 5, 0), "p .* positive integer, got 0"),
])
def test_bad_generator_values_are_named(make, message):
    with pytest.raises(ValueError, match=message):
        make()


# --- the protocol ------------------------------------------------------------------------------
EXPERIMENTS = ["predtron_subset_n", "predtron_subset_m", "predtron_l1_vs_l2"]
TINY = ["protocol.n_repetitions=2", "protocol.n_test=15"]


def tiny_protocol(**changes):
    settings = dict(n_repetitions=3, n_train=[4, 9], m=6, p=5, n_test=12)
    return SubsetRankingProtocol(**{**settings, **changes})


def positions(model, X, y):
    """A fitted ranker's positions 1..m on dense queries X (n, m, p)."""
    return positions_of(model.decision_function(flat(X, y)[0]).reshape(y.shape))


def run_protocol(protocol, learners, dataset=None, seed=0):
    return pd.concat(protocol.iter_run(dataset or GaussianSubsetRanking(), learners, seed=seed),
                     ignore_index=True)


def test_positions_sort_scores_decreasingly_ties_by_document():
    t = np.array([[0.5, 2.0, 0.5, -1.0]])
    assert positions_of(t).tolist() == [[2, 1, 3, 4]]


def test_protocol_rows_and_values():
    learner = PredtronRanker(f="power_2", n_epochs=4, stop_when_separated=True)
    table = run_protocol(tiny_protocol(), {"P": learner})
    assert list(table.columns) == ["algorithm", "seed", "passes_mode", "n_train", "m", "p", "metric", "value"]
    assert set(table.passes_mode) == {"until_separated"}  # the dataclass's default: one interpretation
    assert len(table) == 3 * 2 * len(METRICS)
    wide = table.pivot_table(index=["seed", "n_train"], columns="metric", values="value")
    assert wide["test_ndcg_loss"].between(0, 1).all() and wide["train_ndcg_loss"].between(0, 1).all()
    assert wide["passes"].between(1, 4).all()
    # a copy stops early only after a pass without a mistake, which leaves every training query ideal
    assert (wide.loc[wide["passes"] < 4, "train_ndcg_loss"] == 0).all()


def test_protocol_matches_fit_and_predict_copy_by_copy():
    """The batched engine gives the numbers of each copy's own fit (and a by-hand recomputation)."""
    protocol = tiny_protocol()
    learners = {"inverse": PredtronRanker(n_epochs=6, stop_when_separated=True),
                "L1": PredtronRanker(margin="l1", f="power_1.1", n_epochs=3)}
    batched = run_protocol(protocol, learners, seed=5)
    protocol.vectorize = False
    one_by_one = run_protocol(protocol, learners, seed=5)
    pd.testing.assert_frame_equal(batched, one_by_one, check_exact=False, rtol=1e-12, atol=1e-15)
    # by hand, repetition 1 and n = 9 of "inverse"
    task_rng, test_rng, train_rng = protocol.streams(5, 1, 6, 5)
    task = GaussianSubsetRanking().task(task_rng, 6, 5)
    X_test, y_test = task.sample(test_rng, 12)
    X, y = task.sample(train_rng, 9)
    model = clone(learners["inverse"]).fit(*flat(X, y))
    row = batched.set_index(["algorithm", "seed", "n_train", "metric"])["value"]
    expected = ndcg_loss(positions(model, X_test, y_test), y_test).mean()
    assert row["inverse", 1, 9, "test_ndcg_loss"] == pytest.approx(expected)
    assert row["inverse", 1, 9, "passes"] == model.n_epochs_


def test_shuffling_learner_is_fitted_copy_by_copy():
    learner = PredtronRanker(n_epochs=3, shuffle=True, random_state=0)
    table = run_protocol(tiny_protocol(n_repetitions=1, n_train=[7]), {"S": learner})
    task_rng, test_rng, train_rng = tiny_protocol().streams(0, 0, 6, 5)
    task = GaussianSubsetRanking().task(task_rng, 6, 5)
    X_test, y_test = task.sample(test_rng, 12)
    model = clone(learner).fit(*flat(*task.sample(train_rng, 7)))
    value = table.set_index("metric")["value"]
    assert value["test_ndcg_loss"] == pytest.approx(ndcg_loss(positions(model, X_test, y_test), y_test).mean())
    assert value["passes"] == 3


def test_rows_do_not_depend_on_the_grid_or_the_number_of_repetitions():
    learner = {"P": PredtronRanker(n_epochs=3)}
    full = run_protocol(tiny_protocol(n_repetitions=3, n_train=[4, 9], p=[5, 8]), learner)
    part = run_protocol(tiny_protocol(n_repetitions=2, n_train=[9], p=8), learner)
    keys = ["algorithm", "seed", "n_train", "m", "p", "metric"]
    sub = full[(full.seed < 2) & (full.n_train == 9) & (full.p == 8)]
    pd.testing.assert_frame_equal(sub.sort_values(keys).reset_index(drop=True),
                                  part.sort_values(keys).reset_index(drop=True))


def test_batches_of_repetitions_give_the_same_rows(monkeypatch):
    import ordrank.protocols.subset_ranking as module

    learner = {"P": PredtronRanker(n_epochs=3)}
    whole = run_protocol(tiny_protocol(), learner)
    monkeypatch.setattr(module, "MAX_POOL_BYTES", 9 * 6 * 5 * 8)  # one repetition per batch
    assert len(tiny_protocol().chunks(6, 5)) == 3
    pd.testing.assert_frame_equal(whole, run_protocol(tiny_protocol(), learner))


@pytest.mark.parametrize("changes, message", [
    ({"m": 1}, r"protocol.m must be an integer >= 2"),
    ({"n_train": [10, 10]}, r"protocol.n_train lists a value twice"),
    ({"n_train": []}, r"protocol.n_train must be"),
    ({"p": [5, "a"]}, r"protocol.p must be"),
    ({"n_repetitions": 0}, r"protocol.n_repetitions must be a positive integer"),
    ({"vectorize": "yes"}, r"protocol.vectorize must be true or false"),
])
def test_bad_protocol_values_are_named(changes, message):
    with pytest.raises(ValueError, match=message):
        tiny_protocol(**changes)


def test_protocol_refuses_features_other_data_and_non_rankers():
    protocol, learner = tiny_protocol(), {"P": PredtronRanker()}
    with pytest.raises(ValueError, match="features=none"):
        next(protocol.iter_run(GaussianSubsetRanking(), learner, features=object()))
    with pytest.raises(ValueError, match="CrammerSinger has no task"):
        next(protocol.iter_run(CrammerSinger(), learner))
    with pytest.raises(ValueError, match="algorithms.X .* is not a ranker"):
        next(protocol.iter_run(GaussianSubsetRanking(), {"X": object()}))


# --- configs and the app -------------------------------------------------------------------------
@pytest.mark.parametrize("experiment", EXPERIMENTS)
def test_experiments_compose_with_the_papers_settings(experiment):
    cfg = make_cfg([f"+experiment={experiment}"])
    parts = build(cfg)
    protocol = parts["protocol"]
    assert parts["features"] is None and protocol.n_repetitions >= 20 and protocol.n_test == 200
    learners = parts["learners"]
    assert protocol.passes_mode == ["until_separated", "one"]
    if experiment == "predtron_subset_n":  # the batch rankers beside the Predtron
        batch = {name: type(r).__name__ for name, r in learners.items() if not isinstance(r, PredtronRanker)}
        assert batch == {"RankSVM": "RankSVM", "RankNet": "RankNet", "LambdaMART": "LightGBMRanker",
                         "LeastSquares": "LeastSquaresRanker"}
        assert learners["RankNet"].hidden is None and learners["RankSVM"].kernel == "linear"
        learners = {name: r for name, r in learners.items() if name not in batch}
    assert all(isinstance(r, PredtronRanker) and r.eta == 1.0 and r.stop_when_separated
               for r in learners.values())
    if experiment == "predtron_l1_vs_l2":
        assert {name: r.margin for name, r in learners.items()} == {"Predtron-L1": "l1", "Predtron-L2": "l2"}
        assert isinstance(parts["dataset"], SparseSubsetRanking) and parts["dataset"].n_nonzero == 50
        assert (protocol.n_train, protocol.m, protocol.p) == ([50], [20], [500, 1000, 1500, 2000, 2500])
        return
    assert sorted(r.f for r in learners.values()) == ["inverse", "power_1.1", "power_2"]
    assert isinstance(parts["dataset"], GaussianSubsetRanking)
    if experiment == "predtron_subset_n":
        assert (protocol.m, protocol.p, max(protocol.n_train)) == ([20], [30], 100)
    else:
        assert (protocol.n_train, protocol.p) == ([30], [30]) and len(protocol.m) > 3


def test_app_runs_a_tiny_experiment_byte_for_byte(tmp_path):
    overrides = ["+experiment=predtron_subset_m", *TINY, "protocol.m=[5,8]"]
    first = run(make_cfg(overrides), tmp_path / "a")
    table = pd.read_parquet(first)
    assert table.columns[:10].tolist() == ["experiment", "dataset", "algorithm", "seed", "passes_mode", "n_train",
                                           "m", "p", "metric", "value"]
    assert len(table) == 3 * 2 * 2 * 2 * len(METRICS)  # 3 f, 2 interpretations, 2 repetitions, 2 m
    assert set(table.experiment) == {"predtron_subset_m"} and set(table.dataset) == {"subset_ranking"}
    assert (table["config.algorithms.Predtron-power_2.f"] == "power_2").all()
    assert first.read_bytes() == run(make_cfg(overrides), tmp_path / "b").read_bytes()
    other = run(make_cfg([*overrides, "seed=1"]), tmp_path / "c")
    assert first.read_bytes() != other.read_bytes()


def test_app_refuses_a_feature_map(tmp_path):
    with pytest.raises(ValueError, match="features=none"):
        run(make_cfg(["+experiment=predtron_subset_n", *TINY, "features=poly2"]), tmp_path)


@pytest.mark.slow
def test_l1_degrades_more_slowly_with_p_than_l2(tmp_path):
    """Figure 1 (c) at reduced size (4 repetitions, 50 test queries): the paper's trend."""
    cfg = make_cfg(["+experiment=predtron_l1_vs_l2", "protocol.n_repetitions=4", "protocol.n_test=50",
                    "protocol.p=[500,2500]", "protocol.passes_mode=[until_separated]"])
    table = pd.read_parquet(run(cfg, tmp_path))
    loss = table[table.metric == "test_ndcg_loss"].groupby(["algorithm", "p"])["value"].mean()
    assert loss["Predtron-L1", 500] < loss["Predtron-L2", 500]
    assert loss["Predtron-L1", 2500] < loss["Predtron-L2", 2500] / 3
    assert loss["Predtron-L2", 2500] - loss["Predtron-L2", 500] > \
        3 * (loss["Predtron-L1", 2500] - loss["Predtron-L1", 500])


def test_sweep_tables_of_the_protocol_collect(tmp_path):
    """Rows that differ only in n_train, m or p are distinct rows for the sweep collector."""
    from ordrank.results import collect, key_columns

    overrides = ["+experiment=predtron_subset_m", *TINY, "protocol.m=[5,8]", "protocol.n_train=[3,6]"]
    paths = [run(make_cfg([*overrides, f"seed={seed}"]), tmp_path / str(seed)) for seed in (0, 1)]
    table = collect(paths)
    assert key_columns(table)[3:8] == ["seed", "passes_mode", "n_train", "m", "p"]
    assert len(table) == 2 * 3 * 2 * 2 * 2 * 2 * len(METRICS)


class LeastSquaresRanker:
    """A ranker that is no online rule: least squares on the rows (qid accepted, unused)."""

    def get_params(self, deep=True):
        return {}

    def set_params(self, **params):
        return self

    def fit(self, X, y, qid=None):
        assert X.ndim == 2 and len(qid) == len(y) and np.all(np.diff(qid) >= 0)
        self.coef_ = np.linalg.lstsq(X, y.astype(float), rcond=None)[0]
        return self

    def decision_function(self, X):
        return X @ self.coef_


def test_protocol_fits_any_qid_ranker_on_rows():
    protocol = tiny_protocol(n_repetitions=1, n_train=[9])
    table = run_protocol(protocol, {"LS": LeastSquaresRanker()}).set_index("metric")["value"]
    task_rng, test_rng, train_rng = protocol.streams(0, 0, 6, 5)
    task = GaussianSubsetRanking().task(task_rng, 6, 5)
    X_test, y_test = task.sample(test_rng, 12)
    model = LeastSquaresRanker().fit(*flat(*task.sample(train_rng, 9)))
    assert table["test_ndcg_loss"] == pytest.approx(ndcg_loss(positions(model, X_test, y_test), y_test).mean())
    assert "passes" not in table.index  # not an online learner: no passes recorded
