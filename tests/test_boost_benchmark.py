"""The boosting comparison (seed 003): on svor_benchmark's data sets, partitions and model selection,
Reduction-boost and RankBoost tuned over the same rounds grid; the quick variant is smaller."""
from pathlib import Path

from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from ordrank.reports import ReportSpec

CONF = Path(__file__).resolve().parents[1] / "conf"


def composed(experiment, *overrides):
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        return compose("config", overrides=[f"+experiment={experiment}", *overrides, "data_dir=/nonexistent"],
                       return_hydra_config=True)


def test_same_data_partitions_protocol_as_svor_benchmark_and_same_rounds():
    boost, svor = composed("boost_benchmark"), composed("svor_benchmark")
    assert OmegaConf.to_container(boost.dataset) == OmegaConf.to_container(svor.dataset)
    assert boost.features == svor.features
    boost_sweep, svor_sweep = boost.hydra.sweeper.params, svor.hydra.sweeper.params
    # the papers' 9 sets at 10 bins: a subset of svor_benchmark's 12 sets x 5, 10 bins, same partitions
    assert set(boost_sweep["dataset.name"].split(",")) <= set(svor_sweep["dataset.name"].split(","))
    assert len(boost_sweep["dataset.name"].split(",")) == 9 and "dataset.bins" not in boost_sweep
    assert boost.dataset.bins == 10 and "10" in svor_sweep["dataset.bins"].split(",")
    assert boost_sweep["protocol.splits"] == svor_sweep["protocol.splits"]
    for key in ("_target_", "cv_folds", "scoring", "splits"):
        assert boost.protocol[key] == svor.protocol[key], key
    assert set(boost.algorithms) == {"Reduction-boost", "RankBoost", "skordinal-ORBoost"}
    assert boost.algorithms["RankBoost"]._target_.endswith("RankBoostOrdinal")
    assert boost.algorithms["skordinal-ORBoost"] == svor.algorithms["skordinal-ORBoost"]
    grids = boost.protocol.grids
    rounds = list(grids["Reduction-boost"]["estimator__n_estimators"])
    assert rounds == list(grids["RankBoost"]["n_estimators"]) and len(rounds) >= 2
    assert ReportSpec.for_experiment("boost_benchmark").reference == "RankBoost"


def test_quick_is_smaller():
    full, quick = composed("boost_benchmark"), composed("boost_benchmark", "+quick=boost_benchmark")
    assert quick.experiment == "boost_benchmark_quick"
    assert max(quick.grid.rounds) < min(full.grid.rounds)
    assert quick.protocol.grids["RankBoost"]["n_estimators"] == quick.grid.rounds
    assert len(quick.hydra.sweeper.params["dataset.name"].split(",")) < 9
    assert ReportSpec.for_experiment("boost_benchmark_quick") == ReportSpec.for_experiment("boost_benchmark")
