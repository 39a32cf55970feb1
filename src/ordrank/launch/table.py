"""Adding finished jobs to a sweep's tables, atomically: the results table (the resume point), its
timings table, its jobs table (where and with what each job ran) and the peer cache beside it.

``<table>``                    the results rows (``ordrank.results.tables``' schema)
``<table stem>.timings.parquet``  the measured seconds of each piece (``ordrank.results.files.timings_path``)
``<table stem>.jobs.parquet``  one row a job: its swept values and learner, ``host``, ``cpu``,
                               ``versions`` (JSON text of the libraries' versions), ``seconds`` (the
                               job's wall time), ``engine``; rows made before jobs were recorded say
                               ``unknown``
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from ordrank.launch.jobs import Job, job_rows
from ordrank.launch.work import JobResult
from ordrank.results.files import jobs_path, read_table, timings_path, write_table
from ordrank.results.peer_cache import merge as merge_peers
from ordrank.results.tables import concat_tables, key_columns

UNKNOWN = "unknown"


def _without_jobs(table: pd.DataFrame | None, jobs: list[Job]) -> pd.DataFrame | None:
    if table is None or not len(table):
        return table
    drop = np.zeros(len(table), dtype=bool)
    for job in jobs:
        drop |= job_rows(table, job)
    return table[~drop]


def _merged(old: pd.DataFrame | None, parts: list[pd.DataFrame]) -> pd.DataFrame:
    """``old`` and ``parts`` as one table in canonical order: sorted by its key columns (unique in a
    results table), so the same rows make the same bytes whatever order the jobs finished in."""
    tables = ([old] if old is not None and len(old) else []) + [p for p in parts if p is not None and len(p)]
    table = concat_tables(tables)
    return table.sort_values(key_columns(table), kind="stable", ignore_index=True)


def job_record(result: JobResult, engine: str) -> dict:
    job = result.job
    return {"experiment": str(job.config.get("experiment")), **{k: str(v) for k, v in job.values},
            "algorithm": job.learner, **result.record, "engine": engine}


def add(path: Path, results: list[JobResult], engine: str, peers_beside: Path | None = None) -> None:
    """Add ``results`` to the tables of ``path``: each job's earlier rows (stale ones) replaced, every
    table rewritten atomically, the results table last (it decides what is done)."""
    jobs = [r.job for r in results]
    timings = [r.timings for r in results if r.timings is not None]
    if timings:
        old = read_table(timings_path(path)) if timings_path(path).is_file() else None
        write_table(_merged(_without_jobs(old, jobs), timings), timings_path(path))
    records = pd.DataFrame([job_record(r, engine) for r in results])
    old = read_table(jobs_path(path)) if jobs_path(path).is_file() else None
    if old is not None:
        same = old.merge(records[["experiment", *[k for k, _ in jobs[0].values], "algorithm"]].astype(str),
                         how="left", indicator=True)["_merge"].eq("both").to_numpy()
        old = old[~same]
    combined = pd.concat([t for t in (old, records) if t is not None], ignore_index=True)
    order = [c for c in ["experiment", *[k for k, _ in jobs[0].values], "algorithm"] if c in combined]
    write_table(combined.sort_values(order, kind="stable", ignore_index=True), jobs_path(path))
    peers = [r.peers for r in results if r.peers is not None and len(r.peers)]
    if peers:
        with tempfile.TemporaryDirectory() as folder:
            files = []
            for i, part in enumerate(peers):
                files.append(write_table(part, Path(folder) / f"{i}.parquet"))
            merge_peers(files, peers_beside or path)
    old = read_table(path) if path.is_file() else None
    write_table(_merged(_without_jobs(old, jobs), [r.results for r in results]), path)


def record_unknown(path: Path, done: list[Job]) -> int:
    """Give each of the ``done`` jobs that the jobs table of ``path`` lacks (made before jobs were
    recorded) a row saying ``unknown``; return how many were added."""
    if not done:
        return 0
    old = read_table(jobs_path(path)) if jobs_path(path).is_file() else None
    keys = ["experiment", *[k for k, _ in done[0].values], "algorithm"]
    rows = pd.DataFrame([{"experiment": str(job.config.get("experiment")), **{k: str(v) for k, v in job.values},
                          "algorithm": job.learner, "host": UNKNOWN, "cpu": UNKNOWN, "versions": UNKNOWN,
                          "seconds": np.nan, "engine": UNKNOWN} for job in done])
    if old is not None:
        known = rows[keys].merge(old[keys].astype(str).drop_duplicates(), how="left", indicator=True)
        rows = rows[known["_merge"].eq("left_only").to_numpy()]
    if not len(rows):
        return 0
    combined = pd.concat([t for t in (old, rows) if t is not None], ignore_index=True)
    write_table(combined.sort_values(keys, kind="stable", ignore_index=True), jobs_path(path))
    return len(rows)
