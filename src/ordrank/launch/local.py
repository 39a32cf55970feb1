"""The ``local`` engine: a pool of loky processes (joblib's) on this machine, each allowed the cores over
the workers as BLAS/OpenMP threads (as joblib does). A driver keeps its pool from one sweep to the next
(:func:`_pool`): the next sweep's tasks find the workers started, their imports done and their compiled
code loaded. A sweep's external cache reaches the workers as a file, read once by each. A worker whose
driver dies exits (the driver watch); a pool that lost a worker, or was cancelled, is not reused.
"""
from __future__ import annotations

import atexit
import os
import queue
import tempfile
import threading
import time
import uuid
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pandas as pd

from ordrank.launch.engines import Part, job_failed, point_tasks, task_parts
from ordrank.launch.jobs import Job
from ordrank.launch.work import JobResult, run_jobs

DRIVER_WATCH_SECONDS = 1.0  # how often a local worker checks that its driver is alive


# a local worker's external cache: the file it was read from, and the table (one sweep's, reused by its tasks)
_EXTERNAL: dict = {"file": None, "table": None}


def _setup(threads: int) -> None:
    """A local worker's initializer: the BLAS/OpenMP threads it may use (the cores over the workers, as
    joblib's loky backend sets them: no oversubscription), and a watch on the driver that started it:
    a worker whose driver is gone (killed) exits."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(threads)
    threading.Thread(target=_exit_without, args=(os.getppid(),), daemon=True, name="driver-watch").start()


def _exit_without(driver: int) -> None:
    """Exit once ``driver`` is no longer this process's parent (it died): its results have no one to go to."""
    while os.getppid() == driver:
        time.sleep(DRIVER_WATCH_SECONDS)
    os._exit(1)


def _run_local(external_file: str | None, task: list[Job]) -> list[JobResult]:
    """A task in a local worker, with its sweep's external cache (read once per sweep and worker)."""
    if external_file != _EXTERNAL["file"]:
        _EXTERNAL["table"] = None if external_file is None else pd.read_pickle(external_file)
        _EXTERNAL["file"] = external_file
    return run_jobs(task, _EXTERNAL["table"])


# the driver's local worker pools, kept from one sweep to the next (the workers' imports and compiled code
# with them): {(workers, working directory, environment): pool}; shut down when the driver exits
_POOLS: dict = {}


def _pool(workers: int):
    """The driver's pool of ``workers`` loky processes, started on first use; a pool started in another
    working directory or environment is shut down and a new one started (the workers inherit both)."""
    from joblib.externals.loky import ProcessPoolExecutor

    key = (workers, os.getcwd(), tuple(sorted(os.environ.items())))
    if key not in _POOLS:
        _close_pools()
        threads = max(1, (os.cpu_count() or 1) // workers)
        _POOLS[key] = ProcessPoolExecutor(max_workers=workers, initializer=_setup, initargs=(threads,))
    return key, _POOLS[key]


@atexit.register
def _close_pools() -> None:
    while _POOLS:
        _POOLS.popitem()[1].shutdown(wait=True)


class LocalEngine:
    """``workers`` loky processes on this machine: the driver's pool (:func:`_pool`), reused by its next
    sweep. The sweep's external cache goes to the workers as a file each reads once."""

    name = "local"

    def __init__(self, workers: int, external_cache: pd.DataFrame | None = None):
        self.workers = workers
        self.key, self.pool = _pool(workers)
        self.external_file = None
        if external_cache is not None:
            handle, self.external_file = tempfile.mkstemp(prefix=f"ordrank-external-{uuid.uuid4().hex}-", suffix=".pkl")
            os.close(handle)
            external_cache.to_pickle(self.external_file)
        self.done: queue.Queue = queue.Queue()  # finished futures, as they finish
        self.parts: dict = {}                   # future -> the parts of its task

    def submit(self, jobs: list[Job], seconds: dict | None = None) -> dict:
        handles = {}
        for task in point_tasks(jobs, seconds or {}):
            future = self.pool.submit(_run_local, self.external_file, task)
            self.parts[future] = parts = task_parts(future, task)
            future.add_done_callback(self.done.put)
            handles.update(parts)
        return handles

    def ready(self, handles, timeout: float) -> list:
        try:
            finished = [self.done.get(timeout=timeout)]
        except queue.Empty:
            return []
        while not self.done.empty():
            finished.append(self.done.get_nowait())
        return [part for future in finished for part in self.parts.pop(future)]

    def result(self, part: Part) -> JobResult:
        try:
            return part.task.result()[part.index]
        except BrokenProcessPool as error:  # a worker died: the pool is not reused
            self._discard(kill=False)
            raise job_failed(error) from error
        except Exception as error:
            raise job_failed(error) from error

    def cancel(self, handles) -> None:  # stopped (Ctrl-C, an error): the workers go with the driver
        self._discard(kill=True)

    def close(self) -> None:
        if self.external_file is not None:
            Path(self.external_file).unlink(missing_ok=True)

    def _discard(self, kill: bool) -> None:
        if _POOLS.get(self.key) is self.pool:
            del _POOLS[self.key]
            self.pool.shutdown(wait=not kill, kill_workers=kill)
