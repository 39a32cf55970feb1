"""The Hydra job: compose → validate everything → run the protocol → write the tidy table.

Everything is instantiated (and so validated) before any data is generated or any learner runs; the
table is rewritten atomically after each finished piece the protocol yields (an algorithm, or an
algorithm on one partition), so a failure never loses finished work. For a train/test protocol
the feature map becomes the first step of each learner's pipeline, so it is fitted on training
data only.
"""
from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

import numpy as np
import pandas as pd
from hydra.errors import InstantiationException
from hydra.utils import instantiate as hydra_instantiate
from omegaconf import DictConfig, OmegaConf
from sklearn.base import clone
from sklearn.pipeline import make_pipeline

from ordrank.results import finalize, publish, write_table

log = logging.getLogger(__name__)
# left out of the config columns: where files are is not part of a result (so tables made on different
# machines compare equal), and `experiment` already has a column of its own
LOCATION_KEYS = {"hydra", "experiment", "data_dir", "path_or_data_dir", "table_name", "publish",
                 "results_dir", "only", "resume"}


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


def logspace(start, stop, num) -> list[float]:
    """``${logspace:-1,2,4}`` in a config: [0.1, 1.0, 10.0, 100.0] (num values, 10^start..10^stop)."""
    return [float(f"{v:.6g}") for v in np.logspace(float(start), float(stop), int(num))]


if not OmegaConf.has_resolver("logspace"):
    OmegaConf.register_new_resolver("logspace", logspace)


def chosen_algorithms(cfg: DictConfig) -> dict:
    """``cfg.algorithms``, restricted to ``cfg.only`` (a name or a list of names) when it is set."""
    algorithms = cfg.get("algorithms") or {}
    only = cfg.get("only")
    if only is None:
        return dict(algorithms.items())
    names = [only] if isinstance(only, str) else list(only)
    unknown = [name for name in names if name not in algorithms]
    if unknown:
        raise ValueError(f"only={unknown} names no configured algorithm; choose from {list(algorithms)}")
    return {name: algorithms[name] for name in names}


def build(cfg: DictConfig) -> dict:
    """Instantiate dataset, protocol, features and learners from ``cfg``; raise on any bad value."""
    if not cfg.get("algorithms"):
        raise ValueError("no algorithms configured: add e.g. +algorithm@algorithms.PRank=prank "
                         "or use an experiment (+experiment=prank_synthetic)")
    if not isinstance(cfg.seed, int) or cfg.seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {cfg.seed!r}")
    learners = {}
    for name, spec in chosen_algorithms(cfg).items():
        learner = instantiate(spec)
        if hasattr(learner, "_parameter_constraints"):  # peers from other libraries may lack them
            learner._validate_params()
        learners[str(name)] = learner
    dataset_spec = OmegaConf.to_container(cfg.dataset, resolve=True)
    dataset_spec.pop("name", None)
    protocol_spec = OmegaConf.to_container(cfg.protocol, resolve=True)
    if protocol_spec.get("grids"):  # grids of configured algorithms that `only` leaves out
        protocol_spec["grids"] = {name: grid for name, grid in protocol_spec["grids"].items()
                                  if name in learners or name not in cfg.algorithms}
    protocol = instantiate(protocol_spec, _convert_="all")
    features = instantiate(cfg.features) if cfg.get("features") else None
    if features is not None and getattr(protocol, "splits_data", False):
        learners = {name: make_pipeline(clone(features), learner) for name, learner in learners.items()}
        features = None
    return {
        "dataset": instantiate(dataset_spec, _convert_="all"),
        "protocol": protocol,
        "features": features,
        "learners": learners,
    }


def fingerprint(config: dict) -> str:
    """A digest of a job's resolved configuration (what decides its results)."""
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()


def run(cfg: DictConfig, output_dir: str | Path) -> Path:
    """Run the experiment ``cfg`` and write ``<output_dir>/<cfg.table_name>``; return its path.

    When the job finishes, ``<output_dir>/FINISHED`` records its configuration's fingerprint; with
    ``resume=true`` a job whose folder holds a finished table of the same configuration is skipped,
    so a killed sweep started again runs only what is missing.
    """
    parts = build(cfg)
    config = _without(OmegaConf.to_container(cfg, resolve=True), LOCATION_KEYS)
    path = Path(output_dir) / cfg.table_name
    marker = Path(output_dir) / "FINISHED"
    if cfg.get("resume") and path.is_file() and marker.is_file() \
            and marker.read_text().strip() == fingerprint(config):
        log.info("%s: finished table %s kept (resume=true)", cfg.experiment, path)
        return path
    marker.unlink(missing_ok=True)
    finished = []
    for table in parts["protocol"].iter_run(parts["dataset"], parts["learners"], parts["features"],
                                            seed=cfg.seed):
        finished.append(table)
        done = pd.concat(finished, ignore_index=True)
        write_table(finalize(done, cfg.experiment, cfg.dataset.name, config,
                             keys=parts["protocol"].keys), path)
        log.info("%s: %s written to %s", cfg.experiment, table["algorithm"].iloc[0], path)
    marker.write_text(fingerprint(config) + "\n")
    if cfg.get("publish"):
        log.info("published %s", publish(path, cfg.results_dir, cfg.experiment, cfg.dataset.name))
    return path

