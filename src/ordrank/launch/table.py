"""A sweep's tables, held by the driver and rewritten atomically as jobs finish: the results table (the
resume point), its timings table, its jobs table (where and with what each job ran) and the external cache.

``<table>``                       the results rows (``ordrank.results.tables``' schema)
``<table stem>.timings.parquet``  the measured seconds of each piece (``ordrank.results.files.timings_path``)
``<table stem>.jobs.parquet``     one row a job: its swept values and learner, ``host``, ``cpu``, ``versions``
                                  (JSON text of the libraries' versions), ``seconds`` (the job's wall time),
                                  ``engine``; ``unknown`` for jobs run before jobs were recorded
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from ordrank.launch.jobs import Job, job_key, job_rows, row_index
from ordrank.launch.work import JobResult
from ordrank.results.files import jobs_path, read_table, timings_path, write_table
from ordrank.results.external_cache import merge as merge_external
from ordrank.results.tables import concat_tables, key_columns

UNKNOWN = "unknown"


def _read(path: Path) -> pd.DataFrame | None:
    return read_table(path) if path.is_file() else None


def _sorted(parts: list) -> pd.DataFrame:
    """Tables as one in canonical order: sorted by the key columns (unique in a results table), so the
    same rows make the same bytes whatever order the jobs finished in."""
    table = concat_tables([p for p in parts if p is not None and len(p)])
    return table.sort_values(key_columns(table), kind="stable", ignore_index=True)


class SweepTables:
    """The tables of the results table ``path``, read once; :meth:`add` adds finished jobs."""

    def __init__(self, path: Path, jobs: list[Job], external_beside: Path | None = None):
        self.path, self.external_beside = Path(path), Path(external_beside or path)
        self.results, self.timings, self.jobs = (_read(p) for p in (self.path, timings_path(self.path),
                                                                    jobs_path(self.path)))
        self.keys = ["experiment", *[k for k, _ in jobs[0].values], "algorithm"] if jobs else []
        # the jobs each table has rows of before this run: a job added again has them replaced (stale rows,
        # or rows a killed driver wrote to one table but not the next)
        self.before = {name: set() if getattr(self, name) is None else set(row_index(getattr(self, name), jobs))
                       for name in ("results", "timings")}

    def _record(self, job: Job, **record) -> dict:
        return {"experiment": str(job.config.get("experiment")), **{k: str(v) for k, v in job.values},
                "algorithm": job.learner, **record}

    def _drop_jobs(self, jobs: list[Job]) -> None:
        """Forget the rows the tables had of ``jobs`` before this run, in every table."""
        for name in ("results", "timings"):
            table, earlier = getattr(self, name), [job for job in jobs if job_key(job) in self.before[name]]
            if earlier:
                drop = np.logical_or.reduce([job_rows(table, job) for job in earlier])
                setattr(self, name, table[~drop])
                self.before[name] -= {job_key(job) for job in earlier}
        if self.jobs is not None and jobs:
            gone = pd.DataFrame([self._record(job) for job in jobs])[self.keys]
            seen = self.jobs[self.keys].astype(str).merge(gone, how="left", indicator=True)["_merge"]
            self.jobs = self.jobs[seen.eq("left_only").to_numpy()]

    def _write_jobs(self, rows: list[dict]) -> None:
        self.jobs = pd.concat([t for t in (self.jobs, pd.DataFrame(rows)) if t is not None], ignore_index=True) \
            .sort_values(self.keys, kind="stable", ignore_index=True)
        write_table(self.jobs, jobs_path(self.path))

    def record_unknown(self, done: list[Job]) -> int:
        """Give each of the ``done`` jobs the jobs table lacks (run before jobs were recorded) a row
        saying ``unknown``; return how many."""
        known = set() if self.jobs is None else set(map(tuple, self.jobs[self.keys].astype(str).to_numpy()))
        rows = [self._record(job, host=UNKNOWN, cpu=UNKNOWN, versions=UNKNOWN, seconds=np.nan, engine=UNKNOWN)
                for job in done]
        rows = [row for row in rows if tuple(row[k] for k in self.keys) not in known]
        if rows:
            self._write_jobs(rows)
        return len(rows)

    def add(self, results: list[JobResult], engine: str) -> None:
        """Add finished jobs (replacing any rows the tables had of them): the external cache, timings and jobs
        tables, then the results table last (it decides what is done), each rewritten atomically."""
        self._drop_jobs([r.job for r in results])
        computed = [r.external for r in results if r.external is not None and len(r.external)]
        if computed:
            with tempfile.TemporaryDirectory() as folder:
                merge_external([write_table(p, Path(folder) / f"{i}.parquet") for i, p in enumerate(computed)],
                           self.external_beside)
        timings = [r.timings for r in results if r.timings is not None and len(r.timings)]
        if timings:
            self.timings = _sorted([self.timings, *timings])
            write_table(self.timings, timings_path(self.path))
        self._write_jobs([self._record(r.job, **r.record, engine=engine) for r in results])
        self.results = _sorted([self.results, *(r.results for r in results)])
        write_table(self.results, self.path)
