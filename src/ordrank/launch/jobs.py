"""The jobs of a sweep: one sweep point x one learner, each with its resolved configuration, and which
of them a results table already holds.

A job's rows in a table are the rows of its learner (``algorithm``) whose swept keys' config columns
(``config.<key>``) hold the job's values. The table holds the job when those rows exist and every
``config.*`` column of theirs equals the job's own configuration; rows that exist with another
configuration are **stale**: the job runs again and its new rows replace them.
"""
from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from omegaconf import DictConfig, OmegaConf

from ordrank.app import chosen_algorithms
from ordrank.config_columns import NOT_CONFIG_COLUMNS, without
from ordrank.results.tables import flatten_config


@dataclass(frozen=True)
class Job:
    """One job: its swept values (``(("dataset.name", "bank2"), ...)``, as typed in the sweep), its
    learner, its configuration as composed (what a worker runs, ``only`` set to the learner) and the
    ``config.*`` columns its rows carry (resolved: what :func:`table_state` compares)."""

    values: tuple            # ((key, value as typed), ...) in the sweep's axis order
    learner: str
    config: dict = field(repr=False, compare=False, hash=False)   # as composed, interpolations kept
    columns: dict = field(repr=False, compare=False, hash=False)  # its config.* columns, resolved

    @property
    def name(self) -> str:
        """``dataset.name=bank2 dataset.bins=5 protocol.splits=0 only=SVORIM``: the job's overrides."""
        return " ".join([*(f"{k}={v}" for k, v in self.values), f"only={self.learner}"])


def sweep_axes(cfg: DictConfig, overrides=()) -> dict[str, list[str]]:
    """The sweep's axes: a composed config's ``hydra.sweeper.params`` (composed with
    ``return_hydra_config``), then ``overrides`` that sweep (``k=a,b``, ``k=range(3)``) or set a swept
    key (``dataset.name=bank2``), as on ``run.py -m``'s command line: ``{key: [value as typed, ...]}``
    in the order Hydra's basic sweeper expands them."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    params = [f"{k}={v}" for k, v in (cfg.hydra.sweeper.params or {}).items()]
    axes = {}
    for o in OverridesParser.create().parse_overrides([*params, *overrides]):
        if o.is_sweep_override() or o.key_or_group in axes or o.input_line in params:
            axes[o.key_or_group] = ([str(v) for v in o.sweep_iterator()] if o.is_sweep_override()
                                    else [o.get_value_element_as_str()])
    return axes


def split_overrides(cfg: DictConfig, overrides) -> tuple[list[str], list[str]]:
    """``overrides`` as (those that make or set a sweep axis, the others: plain settings to compose)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    swept = {str(k) for k in (cfg.hydra.sweeper.params or {})}
    parsed = OverridesParser.create().parse_overrides(list(overrides))
    axes = [o.input_line for o in parsed if o.is_sweep_override() or o.key_or_group in swept]
    return axes, [o.input_line for o in parsed if o.input_line not in axes]


def _resolved(base: DictConfig, values: dict, resolve: bool = True) -> dict:
    cfg = base.copy()
    for key, value in values.items():
        OmegaConf.update(cfg, key, _typed(value), merge=False)
    return OmegaConf.to_container(cfg, resolve=resolve)


def _columns(resolved: dict) -> dict:
    return flatten_config(without(resolved, NOT_CONFIG_COLUMNS))


def _typed(value: str):
    """A swept value as typed (``5``, ``bank2``, ``1e-3``) as Hydra gives it to the config."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    return OverridesParser.create().parse_override(f"k={value}").value()


def _set(config: dict, key: str, value) -> dict:
    node = config
    *path, last = key.split(".")
    for part in path:
        node = node[part]
    node[last] = value
    return config


def expand(cfg: DictConfig, axes: dict[str, list[str]] | None = None) -> list[Job]:
    """Every job of the sweep composed in ``cfg`` (with its Hydra config): sweep points in Hydra's
    order, then the learners (``only``, else every configured one) in their config order.

    Resolving a config costs tens of milliseconds, so one is resolved per point of every axis but the
    last (a *cell*, e.g. a data set x ranks) and the last axis's value (e.g. the partition) is set in a
    copy; where the last axis changes other resolved values too, every job is resolved on its own.
    """
    axes = sweep_axes(cfg) if axes is None else axes
    learners = list(chosen_algorithms(cfg))
    base = cfg.copy()
    OmegaConf.set_struct(base, False)
    base.pop("hydra")
    base.only = None
    keys = list(axes)
    jobs = []
    if not keys:
        columns = _columns(_resolved(base, {}))
        config = _resolved(base, {}, resolve=False)
        return [Job((), name, {**config, "only": [name]}, columns) for name in learners]
    *cell_keys, last = keys
    for cell in itertools.product(*(axes[k] for k in cell_keys)):
        cell_values = dict(zip(cell_keys, cell))
        resolved = _resolved(base, {**cell_values, last: axes[last][0]})
        composed = _resolved(base, {**cell_values, last: axes[last][0]}, resolve=False)
        per_job = len(axes[last]) > 1 and _depends_on_last(base, cell_values, last, axes[last], resolved)
        for value in axes[last]:
            values = {**cell_values, last: value}
            columns = _columns(_resolved(base, values) if per_job else _set(_copy(resolved), last, _typed(value)))
            config = _set(_copy(composed), last, _typed(value))
            for name in learners:
                jobs.append(Job(tuple(values.items()), name, {**config, "only": [name]}, columns))
    return jobs


def _copy(config: dict) -> dict:
    return json.loads(json.dumps(config))


def _depends_on_last(base, cell_values, last, values, first) -> bool:
    """Whether another resolved value than ``last`` itself changes along the last axis."""
    other = _resolved(base, {**cell_values, last: values[1]})
    return _set(other, last, None) != _set(_copy(first), last, None)


def _normal(value) -> str:
    """A config cell as comparable text (parquet gives lists back as arrays; JSON text stays text)."""
    if isinstance(value, (np.ndarray, np.generic)):
        value = value.tolist()
    if isinstance(value, float) and np.isnan(value):
        return "NaN"
    return json.dumps(value, sort_keys=True, default=str)


def job_rows(table: pd.DataFrame, job: Job) -> np.ndarray:
    """A boolean mask of ``job``'s rows in ``table`` (its learner, its swept values)."""
    mask = (table["algorithm"] == job.learner).to_numpy().copy()
    for key, value in job.values:
        column = f"config.{key}"
        if column not in table:
            return np.zeros(len(table), dtype=bool)
        mask &= table[column].map(_normal).to_numpy() == _normal(_typed(value))
    return mask


def table_state(table: pd.DataFrame | None, jobs: list[Job]) -> dict[Job, str]:
    """Each job's state in ``table``: ``done`` (its rows, same configuration), ``stale`` (its rows,
    another configuration) or ``missing``."""
    if table is None or not len(table):
        return {job: "missing" for job in jobs}
    config_columns = [c for c in table.columns if c.startswith("config.")]
    index = row_index(table, jobs)
    states = {}
    for job in jobs:
        rows = index.get(job_key(job))
        if rows is None:
            states[job] = "missing"
            continue
        first = table.iloc[rows[0]]
        expected = job.columns
        same = all(_normal(first[c]) == _normal(expected[c]) if c in expected else pd.isna(first[c])
                   for c in config_columns) and set(expected) <= set(config_columns)
        states[job] = "done" if same else "stale"
    return states


def job_key(job: Job) -> tuple:
    return (job.learner, *(_normal(_typed(v)) for _, v in job.values))


def row_index(table: pd.DataFrame, jobs: list[Job]) -> dict[tuple, np.ndarray]:
    """Row positions of each :func:`job_key` (learner, swept values) in ``table``, grouped once."""
    keys = [k for k, _ in jobs[0].values] if jobs else []
    columns = [f"config.{k}" for k in keys]
    if any(c not in table for c in columns):
        return {}
    frame = pd.DataFrame({"algorithm": table["algorithm"].to_numpy(),
                          **{c: table[c].map(_normal).to_numpy() for c in columns}})
    return {tuple(k) if isinstance(k, tuple) else (k,): v
            for k, v in frame.groupby(["algorithm", *columns], sort=False).indices.items()}
