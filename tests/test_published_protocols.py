"""The papers' model selection as configs, and the published numbers kept beside the benchmark."""
import re

import numpy as np
import pandas as pd

from ordrank.app import build
from ordrank.protocols.partitions import TrainTestPartitions

from conftest import REPO, make_cfg

ORCA_GRID = [1e-3, 1e-2, 1e-1, 1.0, 1e1, 1e2, 1e3]  # ORCA: 10.^(-3:1:3)
KERNEL_LEARNERS = ["SVORIM", "SVOREX", "Reduction-SVM", "skordinal-SVORIM", "skordinal-SVOREX",
                   "skordinal-REDSVM"]
PUBLISHED = REPO / "docs" / "published" / "svor_benchmark.csv"


def grids(cfg):
    from omegaconf import OmegaConf
    return OmegaConf.to_container(cfg.protocol.grids, resolve=True)


def test_orca_review_experiment_is_the_reviews_model_selection(shared_data_dir):
    cfg = make_cfg(["+experiment=svor_benchmark/orca_review", f"data_dir={shared_data_dir}"])
    assert cfg.experiment == "svor_benchmark_orca_review"  # its own results folder
    assert (cfg.protocol.cv_folds, cfg.protocol.scoring) == (5, "mae")
    grid = grids(cfg)
    for name in KERNEL_LEARNERS:
        assert grid[name] == {"C": ORCA_GRID, "gamma": ORCA_GRID}, name
    assert grid["MC-SVM"] == {"classifier__C": ORCA_GRID, "classifier__gamma": ORCA_GRID}
    assert grid["SVR-round"] == {"regressor__C": ORCA_GRID, "regressor__gamma": ORCA_GRID,
                                 "regressor__epsilon": [1e-3, 1e-2, 1e-1, 1.0]}
    parts = build(cfg)
    assert isinstance(parts["protocol"], TrainTestPartitions)
    assert parts["protocol"].cv_folds == 5
    assert len(parts["learners"]) == len(cfg.algorithms)  # same learners as svor_benchmark


def test_the_quick_protocol_stays_the_default():
    cfg = make_cfg(["+experiment=svor_benchmark"])
    assert cfg.protocol.cv_folds == 3
    assert grids(cfg)["SVORIM"] == {"C": [1.0, 10.0, 100.0], "gamma": [0.01, 0.1, 1.0]}


def test_protocol_option_sets_five_folds_but_not_under_an_experiment_that_sets_its_own(shared_data_dir):
    """protocol=orca_review_2016 on its own gives 5-fold CV; an experiment's own `protocol.cv_folds`
    is merged after it, which is why the benchmark variant is an experiment (its config says so)."""
    alone = make_cfg(["+algorithm@algorithms.PRank=prank", "dataset=orca", "protocol=orca_review_2016",
                      f"data_dir={shared_data_dir}"])
    assert (alone.protocol.cv_folds, alone.protocol.scoring, dict(alone.protocol.grids)) == (5, "mae", {})
    build(alone)
    under = make_cfg(["+experiment=svor_benchmark", "protocol=orca_review_2016"])
    assert under.protocol.cv_folds == 3  # documented in conf/protocol/orca_review_2016.yaml


def test_published_table_is_tidy_and_every_source_is_described():
    table = pd.read_csv(PUBLISHED, comment="#")
    assert list(table.columns) == ["source_key", "paper", "table", "dataset", "bins", "train_size",
                                   "n_partitions", "method", "metric", "value", "sd",
                                   "ordrank_dataset", "ordrank_method", "ordrank_experiment"]
    assert np.isfinite(table.value).all() and (table.value >= 0).all()
    assert not table.duplicated(["source_key", "dataset", "method", "metric"]).any()
    readme = (REPO / "docs" / "published" / "README.md").read_text()
    for key in table.source_key.unique():
        assert re.search(rf"\*\*\[{key}\]\*\*", readme), f"source {key} is not described in the README"
    comparable = table.dropna(subset=["ordrank_method"])
    benchmark = make_cfg([f"+experiment={comparable.ordrank_experiment.iloc[0]}"])
    assert set(comparable.ordrank_method) <= set(benchmark.algorithms)
    assert set(comparable.ordrank_experiment) == {"svor_benchmark/orca_review"}
    assert set(comparable.ordrank_dataset) <= set(benchmark.report.datasets)
