"""What a worker does with one job: run it in a temporary folder and send its rows back.

The worker needs ordrank installed (the same lock as the driver) and the data sets at the job's
``data_dir``; it writes nothing that outlives the job: its tables travel back to the driver in the
returned :class:`JobResult`.
"""
from __future__ import annotations

import json
import platform
import socket
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from omegaconf import OmegaConf

from ordrank.launch.jobs import Job
from ordrank.results.files import library_versions, read_table, read_timings, write_table
from ordrank.results.external_cache import FILE as EXTERNAL_FILE


@dataclass
class JobResult:
    """A finished job: its results rows, timings rows, the external learner pieces it computed (or None), and
    where and how it ran (:func:`host_record`, plus ``seconds``, the job's wall time)."""

    job: Job
    results: pd.DataFrame
    timings: pd.DataFrame | None
    external: pd.DataFrame | None
    record: dict


def cpu_model() -> str:
    """The processor's model name (``/proc/cpuinfo``), else what the platform says."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def host_record() -> dict:
    """Where a job runs: host name, CPU model, the library versions (JSON text)."""
    return {"host": socket.gethostname(), "cpu": cpu_model(),
            "versions": json.dumps(library_versions(), sort_keys=True)}


def run_job(job: Job, external_cache: pd.DataFrame | None = None) -> JobResult:
    """Run ``job`` (``ordrank.app.run`` on its resolved config) in a temporary folder and return its
    tables. ``external_cache``: the experiment's external cache (rows of ``external_cache.parquet``), used
    as ``external=cached`` uses it; the pieces the job computed come back in ``JobResult.external``."""
    return run_jobs([job], external_cache)[0]


def run_jobs(jobs: list[Job], external_cache: pd.DataFrame | None = None) -> list[JobResult]:
    """Run ``jobs`` (one engine task): the jobs of one sweep point as one run of their learners
    together (``only=[...]``: the data read and prepared once), whose tables are then split by
    ``algorithm`` into one :class:`JobResult` each, as each job alone gives them. A job's ``seconds``
    is the run's wall time shared out in proportion to its pieces' measured seconds (timings)."""
    by_point: dict[tuple, list[Job]] = {}
    for job in jobs:
        by_point.setdefault(job.values, []).append(job)
    return [result for point in by_point.values() for result in _run_point(point, external_cache)]


def _run_point(jobs: list[Job], external_cache: pd.DataFrame | None) -> list[JobResult]:
    from ordrank.app import run

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ordrank-job-") as folder:
        folder = Path(folder)
        config = {**jobs[0].config, "only": [job.learner for job in jobs], "results_dir": str(folder / "results"),
                  "resume": False, "publish": False}
        if external_cache is not None and len(external_cache):
            write_table(external_cache, folder / "results" / str(config["experiment"]) / EXTERNAL_FILE)
        path = run(OmegaConf.create(config), folder / "job")
        external_file = folder / "job" / EXTERNAL_FILE
        external = read_table(external_file) if external_file.is_file() else None
        results, timings = read_table(path), read_timings(path)
    seconds = time.perf_counter() - started
    if len(jobs) == 1:
        return [JobResult(jobs[0], results, timings, external, {**host_record(), "seconds": round(seconds, 3)})]
    values = pd.Series(dtype=float) if timings is None or not len(timings) else \
        pd.to_numeric(timings["value"], errors="coerce").groupby(timings["algorithm"]).sum()
    measured = {job: float(values.get(job.learner, 0.0)) for job in jobs}
    total = sum(measured.values())
    share = {job: measured[job] / total if total else 1 / len(jobs) for job in jobs}
    where = host_record()
    return [JobResult(job, _of(results, job), _of(timings, job), external if i == 0 else None,
                      {**where, "seconds": round(seconds * share[job], 3)}) for i, job in enumerate(jobs)]


def _of(table: pd.DataFrame | None, job: Job) -> pd.DataFrame | None:
    if table is None:
        return None
    return table[table["algorithm"] == job.learner].reset_index(drop=True)
