"""The Hydra job: compose → validate everything → run the protocol → write the tidy table.

Everything is instantiated (and so validated) before any data is generated or any learner runs; the
finished pieces the protocol yields (an algorithm on a partition, a batch of targets) are kept in a
partial table until the run is done, so a failure or a Ctrl-C never loses finished work (see run).
For a train/test protocol the feature map becomes the first step of each learner's pipeline, so it
is fitted on training data only.
"""
from __future__ import annotations

import hashlib
import json
import logging
import signal
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
from hydra.errors import InstantiationException
from hydra.utils import instantiate as hydra_instantiate
from omegaconf import DictConfig, OmegaConf
from sklearn.base import clone
from sklearn.pipeline import make_pipeline
from tqdm.contrib.logging import logging_redirect_tqdm

from ordrank.config_columns import check_algorithms, run_config
from ordrank.datasets import naming
from ordrank.results import external_cache
from ordrank.resume import reusable_pieces
from ordrank.settings import check_settings
from ordrank.results.tables import ERROR, FINISHED, finalize
from ordrank.results.files import (atomic_path, partial_path, publish, split_timings, timings_path, write_error,
                                   write_table)

log = logging.getLogger(__name__)


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
    if not names:
        raise ValueError(f"only=[] names no algorithm: give one or more of {list(algorithms)}, or leave "
                         "only unset (null) to run them all")
    unknown = [name for name in names if name not in algorithms]
    if unknown:
        raise ValueError(f"only={unknown} names no configured algorithm; choose from {list(algorithms)}")
    return {name: algorithms[name] for name in names}


def _prefixed(error: Exception, key: str) -> Exception:
    """``error`` again, of the same type when possible, its message prefixed with the config key."""
    try:
        return type(error)(f"{key}: {error}")
    except Exception:  # noqa: BLE001 - an exception type with another signature
        return ValueError(f"{key}: {error}")


def build(cfg: DictConfig) -> dict:
    """Check the settings, then instantiate learners, protocol, features and dataset from ``cfg``;
    raise on any bad value (a learner's error is prefixed with its key ``algorithms.NAME``)."""
    check_settings(cfg)
    if not cfg.get("algorithms"):
        raise ValueError("no algorithms configured: add e.g. +algorithm@algorithms.PRank=prank "
                         "or use an experiment (+experiment=prank_synthetic)")
    chosen = chosen_algorithms(cfg)
    check_algorithms(cfg, list(chosen))  # every key a parameter of its estimator (conf/config.yaml opens them)
    learners = {}
    for name, spec in chosen.items():
        try:
            learner = instantiate(spec)
            if hasattr(learner, "_parameter_constraints"):  # external learners from other libraries may lack them
                learner._validate_params()
        except (ValueError, TypeError) as error:
            raise _prefixed(error, f"algorithms.{name}") from error
        learners[str(name)] = learner
    dataset_spec = naming.dataset_spec(cfg.dataset)  # a path given to a named data set is refused
    protocol_spec = OmegaConf.to_container(cfg.protocol, resolve=True)
    if protocol_spec.get("grids"):  # grids of configured algorithms that `only` leaves out
        protocol_spec["grids"] = {name: grid for name, grid in protocol_spec["grids"].items()
                                  if name in learners or name not in cfg.algorithms}
    protocol = instantiate(protocol_spec, _convert_="all")
    if hasattr(protocol, "check_learners"):  # grids: every value validated before any work
        protocol.check_learners(learners)
    features = instantiate(cfg.features) if cfg.get("features") else None
    if features is not None and getattr(features, "per_query", False):  # e.g. QueryLevelNorm: the protocol
        if not getattr(protocol, "per_query_features", False):            # applies it to each part
            raise ValueError(f"features: {type(features).__name__} rescales the documents of each query; "
                             f"only a query protocol (protocol=query_folds) takes it, not "
                             f"{type(protocol).__name__}")
    elif features is not None and getattr(protocol, "splits_data", False):
        learners = {name: make_pipeline(clone(features), learner) for name, learner in learners.items()}
        features = None
    dataset = instantiate(dataset_spec, _convert_="all")
    naming.check_name(cfg.dataset)  # a user's folder under another data set's name is refused
    return {
        "dataset": dataset,
        "protocol": protocol,
        "features": features,
        "learners": learners,
    }


def config_hash(config: dict) -> str:
    """A digest of a job's resolved configuration (what decides its results)."""
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()


def job_key(cfg: DictConfig, config: dict | None = None) -> str:
    """The config hash a finished job writes to FINISHED: of its config columns (``config``, default
    :func:`ordrank.config_columns.run_config`), and of ``only`` when it is set (it picks the rows)."""
    config = run_config(cfg) if config is None else config
    only = OmegaConf.to_container(cfg, resolve=True).get("only")  # not a column, but it picks the rows
    return config_hash(config if only is None else {**config, "only": only})


CHECKPOINT_SECONDS = 5.0  # the partial table is rewritten at most this often while a run goes on


@contextmanager
def stop_signals_raise():
    """While a run goes on, SIGTERM raises KeyboardInterrupt as SIGINT (Ctrl-C) does, so both unwind
    through :func:`run` and leave the finished pieces on disk. Main thread only; restored after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise KeyboardInterrupt(f"stopped by {signal.Signals(signum).name}")

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def job_overrides() -> list[str] | None:
    """The running Hydra job's overrides (``None`` outside a Hydra job)."""
    from hydra.core.hydra_config import HydraConfig

    return list(HydraConfig.get().overrides.task) if HydraConfig.initialized() else None


def run(cfg: DictConfig, output_dir: str | Path) -> Path:
    """Run the experiment ``cfg`` and write ``<output_dir>/<cfg.table_name>``; return its path.

    While the protocol yields finished pieces (an algorithm on a partition, a batch of EachMovie
    targets of one algorithm), they are written to ``<table stem>.partial<suffix>`` (after the first
    piece, then at most every ``CHECKPOINT_SECONDS``, and always when the run fails or is stopped by
    SIGINT/SIGTERM). When every piece is done the table is written (the rows of the protocol's
    ``timing_metrics``, measured seconds, go to ``<table stem>.timings<suffix>`` beside it, so a
    rerun's results table is byte for byte the same), ``FINISHED`` records the configuration's
    config hash, the partial table is removed. A failure writes ``<output_dir>/ERROR`` (the one-line
    error, the job's overrides, the traceback) and re-raises; a failure after the settings were
    checked carries a note (``add_note``) saying what was kept and where ERROR is; it is logged at
    ERROR level in a sweep's job only (a single run's caller reports it). A later success removes a
    stale ``ERROR``. With ``resume=true`` a job whose folder holds a finished table of the same
    configuration is skipped, so a sweep started again runs only what is missing.
    """
    output_dir = Path(output_dir)
    kept = {}  # what this attempt wrote to the partial table, for the ERROR file
    try:
        with stop_signals_raise(), logging_redirect_tqdm():  # log lines above the bars, not through them
            path = _run(cfg, output_dir, kept)
    except (Exception, KeyboardInterrupt) as error:
        note = f"kept: {kept['rows']} rows of {kept['pieces']} finished pieces in {kept['path'].name}" \
            if "path" in kept else "kept: nothing (no piece had finished)"
        write_error(output_dir, error, job_overrides(), note)
        if kept.get("checked") or isinstance(error, KeyboardInterrupt):  # say what was kept, wherever shown
            error.add_note(f"{note}; see {output_dir / ERROR}")
        if isinstance(error, KeyboardInterrupt) and "path" in kept and not _multirun():
            error.add_note(f"to reuse them: the same command with resume=true hydra.run.dir={output_dir}")
        # a single run's caller reports the error (run.py prints one line); a sweep's jobs log it
        log.log(logging.ERROR if _multirun() else logging.DEBUG, "%s failed (%s: %s); %s; see %s",
                cfg.get("experiment"), type(error).__name__, error, note, output_dir / ERROR)
        raise
    (output_dir / ERROR).unlink(missing_ok=True)
    return path


def _multirun() -> bool:
    """True inside a job of a Hydra sweep (``-m``)."""
    from hydra.core.hydra_config import HydraConfig

    return HydraConfig.initialized() and HydraConfig.get().mode.name == "MULTIRUN"


def _run(cfg: DictConfig, output_dir: Path, kept: dict) -> Path:
    parts = build(cfg)
    external = external_cache.attach(cfg, parts["protocol"], output_dir)  # where the external learners' rows come from
    kept["checked"] = True  # every setting is valid; from here on the run computes
    config = run_config(cfg)  # the config columns (ordrank.config_columns: what is left out, and why)
    key = job_key(cfg, config)
    path = output_dir / cfg.table_name
    partial = partial_path(path)
    marker = output_dir / FINISHED
    if cfg.get("resume") and path.is_file() and marker.is_file() and marker.read_text().strip() == key:
        log.info("%s: finished table %s kept (resume=true)", cfg.experiment, path)
        return path
    marker.unlink(missing_ok=True)
    reused, skip = reusable_pieces(partial, config, parts["protocol"]) if cfg.get("resume") else (None, set())
    if reused is None:
        partial.unlink(missing_ok=True)  # an earlier attempt's pieces: this one redoes them
    else:
        log.info("%s: %d finished pieces (%d rows) of an earlier attempt kept from %s (resume=true)",
                 cfg.experiment, len(skip), len(reused), partial)
    finished, written, last, n_reused = ([] if reused is None else [reused]), 0, -float("inf"), len(skip)
    if reused is not None:  # on disk already: what a failure before the next checkpoint still keeps
        kept.update(path=partial, pieces=n_reused, rows=len(reused))

    def table():
        return finalize(pd.concat(finished, ignore_index=True), cfg.experiment, cfg.dataset.name,
                        config, keys=parts["protocol"].keys)

    def checkpoint():
        nonlocal written, last
        write_table(table(), partial)
        written, last = len(finished), time.monotonic()
        kept.update(path=partial, pieces=written - (reused is not None) + n_reused, rows=sum(map(len, finished)))

    resume = {"skip": skip} if skip else {}
    try:
        for piece in parts["protocol"].iter_run(parts["dataset"], parts["learners"], parts["features"],
                                                seed=cfg.seed, **resume):
            finished.append(piece)
            log.info("%s: piece %d finished (%s, %d rows)", cfg.experiment,
                     len(finished) - (reused is not None) + n_reused, piece["algorithm"].iloc[0], len(piece))
            if time.monotonic() - last >= CHECKPOINT_SECONDS:
                checkpoint()
    except BaseException:
        if len(finished) > written:
            try:
                checkpoint()
            except Exception:  # the original error matters more
                log.exception("could not write the partial table %s", partial)
        raise
    results, timings = split_timings(table(), getattr(parts["protocol"], "timing_metrics", ()))
    if len(timings):  # measured seconds: their own table, so a rerun's results table is the same
        write_table(timings, timings_path(path))
    else:
        timings_path(path).unlink(missing_ok=True)
    external.write(cfg.experiment)  # its external learners' pieces (ordrank.results.external_cache), for the collector
    write_table(results, path)
    with atomic_path(marker) as tmp:  # a kill mid-write leaves no empty marker (a job not done)
        Path(tmp).write_text(key + "\n")
    partial.unlink(missing_ok=True)
    log.info("%s: table (%d finished pieces) written to %s", cfg.experiment, len(finished), path)
    if cfg.get("publish"):
        log.info("published %s", publish(path, cfg.results_dir, cfg.experiment, cfg.dataset.name))
    return path
