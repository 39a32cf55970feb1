"""The driver: the one process that adds a sweep's finished jobs to its tables.

It takes a lock on the results table (a second driver on the same table refuses, naming it), works
out which jobs the table lacks (:func:`ordrank.launch.jobs.table_state`), hands those to an engine
(:mod:`ordrank.launch.engines`) and, as jobs finish, adds their rows to the tables
(:meth:`ordrank.launch.table.SweepTables.add`: every job finished by then in one atomic rewrite, at most
every ``WRITE_EVERY`` seconds or ten times the last rewrite's time, and once more at the end). A job that fails
is reported with its error and left out; the others go on. Killed at any point, the tables hold every
job added before; the same command started again runs only the rest.
"""
from __future__ import annotations

import heapq
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from filelock import FileLock, Timeout

from ordrank.launch.jobs import Job, job_key, row_index, table_state
from ordrank.launch.table import SweepTables
from ordrank.results.files import jobs_path, read_table, timings_path


WRITE_EVERY = 1.0  # seconds: the least time between two rewrites of a sweep's tables


class TableBusy(RuntimeError):
    """Another driver is adding jobs to the same table."""


class JobsFailed(RuntimeError):
    """Some jobs of a sweep failed (the others' rows are in the table)."""


def lock(path: Path) -> FileLock:
    """Hold ``<table>.lock`` (an OS lock, released when the process ends, however it ends)."""
    lock_file = path.with_name(f".{path.name}.lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    held = FileLock(lock_file)
    try:
        held.acquire(timeout=0)
    except Timeout:
        raise TableBusy(f"another driver is adding jobs to {path} (it holds {lock_file}); wait for it to "
                        "end or stop it, then run this command again: it goes on where that one stops") from None
    return held


def expected_seconds(path: Path, jobs: list[Job]) -> dict[Job, float]:
    """Each job's expected seconds: its recorded wall time (jobs table), else its pieces' measured
    seconds (timings table), else the mean of its learner's, else of all, else 60."""
    known: dict[Job, float] = {}
    for source, column in ((jobs_path(path), "seconds"), (timings_path(path), "value")):
        if not source.is_file() or not jobs:
            continue
        table = read_table(source)
        if source == jobs_path(path):
            table = table.rename(columns={k: f"config.{k}" for k, _ in jobs[0].values})
        values = pd.to_numeric(table[column], errors="coerce").to_numpy()
        index = row_index(table, jobs)
        for job in jobs:
            rows = index.get(job_key(job))
            if job not in known and rows is not None and np.isfinite(values[rows]).any():
                known[job] = float(np.nansum(values[rows]))
    by_learner: dict[str, list[float]] = {}
    for job, seconds in known.items():
        by_learner.setdefault(job.learner, []).append(seconds)
    overall = float(np.mean(list(known.values()))) if known else 60.0
    return {job: known.get(job, float(np.mean(by_learner[job.learner])) if job.learner in by_learner else overall)
            for job in jobs}


def packed_wall(seconds: list[float], workers: int) -> float:
    """Wall time of ``seconds`` on ``workers`` workers, longest job first, each to the least loaded."""
    loads = [0.0] * max(1, workers)
    for value in sorted(seconds, reverse=True):
        heapq.heapreplace(loads, loads[0] + value)
    return max(loads)


def hours(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds / 60:.1f} min" if seconds >= 60 \
        else f"{seconds:.0f} s"


@dataclass
class Outcome:
    total: int
    done_before: int
    added: list = field(default_factory=list)      # jobs added by this run
    failed: list = field(default_factory=list)     # (job, message)
    external_hits: int = 0                             # external learner pieces the jobs took from the external cache
    external_computed: int = 0                         # external learner pieces the jobs fitted

    @property
    def external_summary(self) -> str:
        return (f"{self.external_hits} external learner pieces from the external cache, "
                f"{self.external_computed} computed")

    @property
    def complete(self) -> bool:
        return not self.failed and self.done_before + len(self.added) == self.total


def plan(path: Path, jobs: list[Job], workers: list[int], estimates_from: Path | None = None) -> str:
    """What a run would do: the jobs the table lacks, their expected CPU time (recorded times in the
    tables of ``estimates_from``, default ``path``) and wall time on each number of ``workers``
    (longest job first)."""
    table = read_table(path) if path.is_file() else None
    states = table_state(table, jobs)
    todo = [job for job in jobs if states[job] != "done"]
    stale = sum(states[job] == "stale" for job in jobs)
    seconds = expected_seconds(estimates_from or path, jobs)
    need = [seconds[job] for job in todo]
    lines = [f"{path}: {len(jobs) - len(todo)} of {len(jobs)} jobs done; {len(todo)} to run"
             + (f" ({stale} with rows of another configuration, replaced)" if stale else "")]
    for job in todo[:20]:
        lines.append(f"  {job.name}  (~{hours(seconds[job])})")
    if len(todo) > 20:
        lines.append(f"  ... and {len(todo) - 20} more")
    if todo:
        lines.append(f"expected CPU time: {sum(need) / 3600:.2f} h (from the recorded job times); longest job "
                     f"{hours(max(need))}")
        lines += [f"  on {n:>4d} workers: {hours(packed_wall(need, n))} wall (longest job first)" for n in workers]
    return "\n".join(lines)


def drive(path: Path, jobs: list[Job], engine_factory, *, say=print, poll: float = 5.0,
          external_beside: Path | None = None, estimates_from: Path | None = None) -> Outcome:
    """Run the jobs ``path`` lacks on ``engine_factory()`` and add each to the tables as it finishes
    (the external learner pieces they computed to the external cache beside ``external_beside``, default ``path``)."""
    path = Path(path)
    held = lock(path)
    try:
        tables = SweepTables(path, jobs, external_beside)
        states = table_state(tables.results, jobs)
        done = [job for job in jobs if states[job] == "done"]
        tables.record_unknown(done)
        todo = [job for job in jobs if states[job] != "done"]
        outcome = Outcome(len(jobs), len(done))
        say(f"{path}: {len(done)} of {len(jobs)} jobs already in the table; {len(todo)} to run")
        if not todo:
            return outcome
        seconds = expected_seconds(estimates_from or path, jobs)
        todo.sort(key=lambda job: -seconds[job])  # longest first: the shortest wall on several workers
        engine = engine_factory()
        left = sum(seconds[job] for job in todo)
        pending, finished, written, write_seconds = {}, [], time.monotonic(), 0.0

        def add() -> None:  # the finished jobs into the tables, in one atomic rewrite
            nonlocal finished, written, write_seconds
            started = time.monotonic()
            tables.add(finished, engine.name)
            written, write_seconds = time.monotonic(), time.monotonic() - started
            for result in finished:
                if result.external is not None and len(result.external):
                    first = result.external.drop_duplicates("cache_key")["from_cache"].astype(bool)
                    outcome.external_hits += int(first.sum())
                    outcome.external_computed += int((~first).sum())
            outcome.added += [r.job for r in finished]
            finished = []

        try:
            pending = dict(engine.submit(todo, seconds))
            while pending:
                for handle in engine.ready(pending, timeout=poll):
                    job = pending.pop(handle)
                    try:
                        finished.append(engine.result(handle))
                    except Exception as error:  # noqa: BLE001 - reported per job, the others go on
                        outcome.failed.append((job, str(error)))
                        say(f"failed: {job.name}: {error}")
                    left -= seconds[job]
                # the tables are rewritten whole: at most every WRITE_EVERY seconds, or ten times the last
                # rewrite's time, so that a sweep of many short jobs does not spend its time rewriting
                due = time.monotonic() - written >= max(WRITE_EVERY, 10 * write_seconds)
                if finished and (due or not pending):
                    add()
                    n_done = outcome.done_before + len(outcome.added)
                    say(f"{n_done}/{len(jobs)} jobs done ({len(outcome.failed)} failed), about "
                        f"{hours(left / max(1, engine.workers))} left")
        except BaseException:
            engine.cancel(list(pending))
            if finished:  # finished before the stop: kept
                add()
            raise
        finally:
            engine.close()
        return outcome
    finally:
        held.release()
