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
    tables. ``external_cache``: the experiment's external cache (rows of ``external_cache.parquet``), used as
    ``external=cached`` uses it; the pieces the job computed come back in ``JobResult.external``."""
    from ordrank.app import run

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ordrank-job-") as folder:
        folder = Path(folder)
        config = {**job.config, "results_dir": str(folder / "results"), "resume": False, "publish": False}
        if external_cache is not None and len(external_cache):
            write_table(external_cache, folder / "results" / str(config["experiment"]) / EXTERNAL_FILE)
        path = run(OmegaConf.create(config), folder / "job")
        external_file = folder / "job" / EXTERNAL_FILE
        computed = read_table(external_file) if external_file.is_file() else None
        result = JobResult(job, read_table(path), read_timings(path), computed, host_record())
    result.record["seconds"] = round(time.perf_counter() - started, 3)
    return result


def run_jobs(jobs: list[Job], external_cache: pd.DataFrame | None = None) -> list[JobResult]:
    """:func:`run_job` on each of ``jobs`` in turn (a SLURM array task holding several short jobs)."""
    return [run_job(job, external_cache) for job in jobs]
