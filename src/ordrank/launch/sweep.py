"""One sweep, run to its table: compose, list the jobs, plan or drive them on an engine, and with
``fresh`` recompute every job into a scratch table that replaces the committed one when complete.

``experiments/reproduce.py`` calls :func:`run` for each sweep entry; ``docs/cluster.md`` is the
user's page.
"""
from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from ordrank.launch.driver import Outcome, drive, plan
from ordrank.launch.engines import RayEngine, SlurmEngine
from ordrank.launch.local import LocalEngine
from ordrank.launch.jobs import expand, split_overrides, sweep_axes
from ordrank.results.files import atomic_path, jobs_path, read_table, timings_path
from ordrank.results.external_cache import FILE as EXTERNAL_FILE

PROJECTED_WORKERS = (1, 16, 64, 256)  # the dry run's wall-time projection


def key_value(text: str) -> tuple[str, object]:
    """A ``KEY=VALUE`` option (``--slurm timeout_min=240``): the value as YAML reads it (an int, a string)."""
    import argparse

    import yaml

    key, sep, value = text.partition("=")
    if not (sep and key):
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE")
    return key, yaml.safe_load(value)


def default_workers() -> int:
    """``$ORDRANK_JOBS`` when set (a positive count), else every core."""
    value = os.environ.get("ORDRANK_JOBS", "").strip()
    return int(value) if value and int(value) > 0 else (os.cpu_count() or 1)


@dataclass
class Engine:
    """The engine a sweep runs on: ``local``, ``ray`` or ``slurm``, with its settings."""

    launcher: str = "local"
    workers: int = field(default_factory=default_workers)
    address: str | None = None              # ray: the cluster (else $RAY_ADDRESS, else a local Ray)
    folder: Path | None = None              # slurm: submitit's folder, shared with the nodes
    slurm: dict = field(default_factory=dict)  # slurm: submitit's parameters (slurm_partition=...)

    def factory(self, external_cache, table: Path):
        if self.launcher == "local":
            return lambda: LocalEngine(self.workers, external_cache)
        if self.launcher == "ray":
            return lambda: RayEngine(self.workers, external_cache, self.address)
        if self.launcher == "slurm":
            folder = self.folder or table.parent / ".submitit"
            return lambda: SlurmEngine(folder, self.workers, external_cache, self.slurm)
        raise ValueError(f"launcher must be one of local, ray, slurm; got {self.launcher!r}")


def compose_jobs(compose, overrides: list[str]):
    """The composed config and the jobs of a sweep given as ``run.py -m`` takes it: settings, sweeps
    (``k=a,b``, ``k=range(3)``) and values of a swept key (``dataset.name=bank2``), which replace that
    axis of the experiment's ``hydra.sweeper.params``."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    parsed = OverridesParser.create().parse_overrides(list(overrides))
    sweeps = [o.input_line for o in parsed if o.is_sweep_override()]
    settings = [o.input_line for o in parsed if not o.is_sweep_override()]
    cfg = compose(settings, hydra_config=True)
    on_axes, settings = split_overrides(cfg, settings)
    if on_axes:  # a swept key's value is an axis, not a setting: compose without it
        cfg = compose(settings, hydra_config=True)
    return cfg, expand(cfg, sweep_axes(cfg, [*sweeps, *on_axes]))


def scratch_table(table: Path, scratch: Path) -> Path:
    """Where ``--fresh`` builds ``table``: ``<scratch>/<experiment>/<name>``."""
    return scratch / table.parent.name / table.name


def run(compose, overrides: list[str], table: Path, engine: Engine, *, fresh: bool = False,
        scratch: Path | None = None, dry_run: bool = False, say=print) -> Outcome | None:
    """Add the jobs ``table`` lacks (``fresh``: every job, into ``scratch``) on ``engine``; with
    ``dry_run`` only say what would run and what it would cost."""
    jobs = compose_jobs(compose, overrides)[1]
    target = scratch_table(table, scratch) if fresh else table
    if dry_run:
        say(plan(target, jobs, sorted({*PROJECTED_WORKERS, engine.workers}), estimates_from=table))
        return None
    cache = table.with_name(EXTERNAL_FILE)
    external_cache = read_table(cache) if cache.is_file() else None
    outcome = drive(target, jobs, engine.factory(external_cache, target), say=say, external_beside=table,
                    estimates_from=table)
    if fresh and outcome.complete:
        for source, dest in ((timings_path(target), timings_path(table)), (jobs_path(target), jobs_path(table)),
                             (target, table)):
            if source.is_file():
                with atomic_path(dest) as tmp:
                    shutil.copyfile(source, tmp)
        shutil.rmtree(target.parent)
    return outcome
