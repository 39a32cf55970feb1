"""The Hydra job: compose → validate everything → run the protocol → write the tidy table.

Everything is instantiated (and so validated) before any data is generated or any learner runs; the
table is rewritten atomically after each algorithm, so a failure never loses finished work.
"""
from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pandas as pd
from hydra.errors import InstantiationException
from hydra.utils import instantiate as hydra_instantiate
from omegaconf import DictConfig, OmegaConf

from ordrank.results import finalize, write_table

log = logging.getLogger(__name__)
# left out of the config columns: where files are is not part of a result (so tables made on different
# machines compare equal), and `experiment` already has a column of its own
LOCATION_KEYS = {"hydra", "experiment", "data_dir", "path_or_data_dir", "table_name", "publish",
                 "results_dir"}


def _without(config, keys):
    """``config`` with every entry named in ``keys`` removed, at any depth."""
    if not isinstance(config, dict):
        return config
    return {k: _without(v, keys) for k, v in config.items() if k not in keys}


def instantiate(spec, **kwargs):
    """Hydra's instantiate, but a learner's or data set's own error surfaces as itself."""
    try:
        return hydra_instantiate(spec, **kwargs)
    except InstantiationException as error:
        if isinstance(error.__cause__, (ValueError, TypeError, FileNotFoundError)):
            raise error.__cause__ from None
        raise


def build(cfg: DictConfig) -> dict:
    """Instantiate dataset, protocol, features and learners from ``cfg``; raise on any bad value."""
    if not cfg.get("algorithms"):
        raise ValueError("no algorithms configured: add e.g. +algorithm@algorithms.PRank=prank "
                         "or use an experiment (+experiment=prank_synthetic)")
    if not isinstance(cfg.seed, int) or cfg.seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {cfg.seed!r}")
    learners = {}
    for name, spec in cfg.algorithms.items():
        learner = instantiate(spec)
        learner._validate_params()
        learners[str(name)] = learner
    dataset_spec = OmegaConf.to_container(cfg.dataset, resolve=True)
    dataset_spec.pop("name", None)
    return {
        "dataset": instantiate(dataset_spec, _convert_="all"),
        "protocol": instantiate(cfg.protocol, _convert_="all"),
        "features": instantiate(cfg.features) if cfg.get("features") else None,
        "learners": learners,
    }


def run(cfg: DictConfig, output_dir: str | Path) -> Path:
    """Run the experiment ``cfg`` and write ``<output_dir>/<cfg.table_name>``; return its path."""
    parts = build(cfg)
    config = _without(OmegaConf.to_container(cfg, resolve=True), LOCATION_KEYS)
    path = Path(output_dir) / cfg.table_name
    finished = []
    for table in parts["protocol"].iter_run(parts["dataset"], parts["learners"], parts["features"],
                                            seed=cfg.seed):
        finished.append(table)
        done = pd.concat(finished, ignore_index=True)
        write_table(finalize(done, cfg.experiment, cfg.dataset.name, config), path)
        log.info("%s: %s written to %s", cfg.experiment, table["algorithm"].iloc[0], path)
    if cfg.get("publish"):
        target = Path(cfg.results_dir) / cfg.experiment / f"{cfg.dataset.name}{path.suffix}"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        log.info("published %s", target)
    return path

