"""Where jobs run: worker processes on this machine (loky, joblib's), a Ray cluster, or SLURM through
submitit. Each engine takes the jobs, reports which have finished and hands back their results; no
engine writes a table (the driver does), and none is a scheduler of ours: each queues and places the
jobs itself.

- ``local``: a pool of ``workers`` processes (joblib's loky), this machine only, each allowed the cores
  over the workers as BLAS/OpenMP threads (as joblib does).
- ``ray``: Ray's task API (``ray.remote``, one CPU a job). ``address`` (else ``$RAY_ADDRESS``) names an
  existing cluster; without one a local Ray of ``workers`` CPUs is started. Results travel back
  through Ray's object store: the nodes share no file system with the driver. A task whose node or
  worker process dies is run again by Ray on a live node (up to ``RETRIES`` times).
- ``slurm``: a SLURM job array through submitit. An array task runs one job, or several short ones
  (:func:`array_tasks`: a task's start costs seconds, so jobs expected to take less than
  ``MIN_TASK_SECONDS`` share a task). submitit pickles each task and its results in ``folder``, which
  the driver and the compute nodes must share (the one shared path). A task that ends without a result
  (``scancel``, a dead node, the time limit) has its jobs reported failed; started again, the driver runs
  them again.

Every engine's ``submit(jobs, seconds)`` takes the jobs longest first and their expected seconds.
"""
from __future__ import annotations

import concurrent.futures
import heapq
import math
import os
import subprocess
import time
from pathlib import Path

import pandas as pd

from ordrank.launch.jobs import Job
from ordrank.launch.work import JobResult, run_job, run_jobs

ENGINES = ("local", "ray", "slurm")
RETRIES = 3  # Ray: how often a task lost with its node or worker process is run again
MIN_TASK_SECONDS = 30.0  # SLURM: jobs expected shorter than this share an array task
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


class JobFailed(Exception):
    """A job that raised, or ended without a result; the message says why."""


_SHARED: dict = {}


def _share(external_cache, threads: int) -> None:
    """A local worker's initializer: the external cache, once per process, and the BLAS/OpenMP threads it
    may use (the cores over the workers, as joblib's loky backend sets them: no oversubscription)."""
    from threadpoolctl import threadpool_limits

    _SHARED["external_cache"] = external_cache
    threadpool_limits(threads)


def _run_shared(job: Job) -> JobResult:
    return run_job(job, _SHARED.get("external_cache"))


def _failed(error: BaseException) -> JobFailed:
    message = " ".join(str(error).split()) or "(no message)"
    return JobFailed(f"{type(error).__name__}: {message}")


class LocalEngine:
    """``workers`` loky processes on this machine."""

    name = "local"

    def __init__(self, workers: int, external_cache: pd.DataFrame | None = None):
        from joblib.externals.loky import ProcessPoolExecutor

        self.workers = workers
        threads = max(1, (os.cpu_count() or 1) // workers)
        self.pool = ProcessPoolExecutor(max_workers=workers, initializer=_share, initargs=(external_cache, threads))

    def submit(self, jobs: list[Job], seconds: dict | None = None) -> dict:
        return {self.pool.submit(_run_shared, job): job for job in jobs}

    def ready(self, handles, timeout: float) -> list:
        done, _ = concurrent.futures.wait(list(handles), timeout=timeout,
                                          return_when=concurrent.futures.FIRST_COMPLETED)
        return list(done)

    def result(self, handle) -> JobResult:
        try:
            return handle.result()
        except Exception as error:
            raise _failed(error) from error

    def cancel(self, handles) -> None:  # stopped (Ctrl-C, an error): the workers go with the driver
        self.pool.shutdown(wait=False, kill_workers=True)

    def close(self) -> None:
        self.pool.shutdown(wait=True)


class RayEngine:
    """Ray tasks, one CPU each, on the cluster at ``address`` (else ``$RAY_ADDRESS``, else a local Ray)."""

    name = "ray"

    def __init__(self, workers: int, external_cache: pd.DataFrame | None = None, address: str | None = None):
        import ray

        self.ray = ray
        local = address is None and not _env("RAY_ADDRESS")
        ray.init(address=address, num_cpus=workers if local else None, include_dashboard=False,
                 log_to_driver=False, ignore_reinit_error=True)
        self.workers = int(ray.cluster_resources().get("CPU", workers)) if not local else workers
        self.task = ray.remote(num_cpus=1, max_retries=RETRIES)(run_job)
        self.shared = ray.put(external_cache)

    def submit(self, jobs: list[Job], seconds: dict | None = None) -> dict:
        return {self.task.remote(job, self.shared): job for job in jobs}

    def ready(self, handles, timeout: float) -> list:
        handles = list(handles)
        done, rest = self.ray.wait(handles, num_returns=1, timeout=timeout)
        if done and rest:  # and every other one finished by now
            more, _ = self.ray.wait(rest, num_returns=len(rest), timeout=0)
            done += more
        return done

    def result(self, handle) -> JobResult:
        try:
            return self.ray.get(handle)
        except self.ray.exceptions.RayTaskError as error:  # the job raised: its own error
            raise _failed(error.cause if error.cause is not None else error) from error
        except self.ray.exceptions.RayError as error:  # lost more often than RETRIES, cancelled
            raise _failed(error) from error

    def cancel(self, handles) -> None:
        for handle in handles:
            self.ray.cancel(handle, force=True)

    def close(self) -> None:
        self.ray.shutdown()


class SlurmEngine:
    """A SLURM job array through submitit; ``folder`` must be shared with the compute nodes.

    ``parameters`` go to ``submitit.AutoExecutor.update_parameters`` (``slurm_partition``,
    ``timeout_min``, ``mem_gb``, ``slurm_account`` … as submitit names them)."""

    name = "slurm"
    POLL = 2.0  # seconds between two looks at the queue

    def __init__(self, folder: Path, workers: int, external_cache: pd.DataFrame | None = None,
                 parameters: dict | None = None):
        import submitit

        self.folder = Path(folder)
        self.executor = submitit.AutoExecutor(folder=self.folder, cluster="slurm")
        parameters = {"cpus_per_task": 1, "timeout_min": 24 * 60, "slurm_array_parallelism": workers,
                      **(parameters or {})}
        threads = parameters["cpus_per_task"]  # BLAS/OpenMP threads: the task's CPUs, not the node's
        parameters.setdefault("slurm_setup", [f"export {name}={threads}" for name in THREAD_VARIABLES])
        self.executor.update_parameters(**parameters)
        self.workers = workers
        self.external_cache = external_cache

    def submit(self, jobs: list[Job], seconds: dict | None = None) -> dict:
        tasks = array_tasks(jobs, seconds or {}, self.workers)
        with self.executor.batch():
            submitted = [self.executor.submit(run_jobs, task, self.external_cache) for task in tasks]
        return {_Part(handle, i): job for handle, task in zip(submitted, tasks) for i, job in enumerate(task)}

    def ready(self, handles, timeout: float) -> list:
        deadline = time.monotonic() + timeout
        while True:
            queued = _queued()
            done = [p for p in handles if p.task.paths.result_pickle.exists() or p.task.job_id not in queued]
            if done or time.monotonic() >= deadline:
                return done
            time.sleep(min(self.POLL, max(0.0, deadline - time.monotonic())))

    def result(self, part: _Part) -> JobResult:
        task = part.task
        if not task.paths.result_pickle.exists():
            time.sleep(self.POLL)  # a result written just as the task left the queue
        if not task.paths.result_pickle.exists():
            raise JobFailed(f"SLURM job {task.job_id} ended without a result (cancelled, its node lost or "
                            f"out of time): {_tail(task.paths.stderr)}")
        try:
            return task.result()[part.index]
        except Exception as error:
            raise _failed(error) from error

    def cancel(self, handles) -> None:  # stopped (Ctrl-C, an error): the submitted tasks are cancelled
        for task in {id(p.task): p.task for p in handles}.values():
            task.cancel(check=False)

    def close(self) -> None:
        pass  # every job has left the queue


class _Part:
    """One job of a SLURM array task: the task's submitit handle and the job's place in it."""

    __slots__ = ("task", "index")

    def __init__(self, task, index: int):
        self.task, self.index = task, index


def array_tasks(jobs: list[Job], seconds: dict, workers: int) -> list[list[Job]]:
    """The jobs in SLURM array tasks: as many tasks as the jobs' expected seconds hold
    ``MIN_TASK_SECONDS`` (a job with no expected time counts as one task), yet at least two a worker
    and at most one a job; each job to the task with the least expected time so far, longest job
    first (the tasks come out longest first)."""
    cost = [float(seconds.get(job, MIN_TASK_SECONDS)) for job in jobs]
    n_tasks = min(len(jobs), max(math.ceil(sum(cost) / MIN_TASK_SECONDS), 2 * workers))
    loads = [(0.0, i) for i in range(n_tasks)]
    tasks: list[list[Job]] = [[] for _ in range(n_tasks)]
    for k in sorted(range(len(jobs)), key=lambda k: -cost[k]):
        load, i = heapq.heappop(loads)
        tasks[i].append(jobs[k])
        heapq.heappush(loads, (load + cost[k], i))
    return [tasks[i] for _, i in sorted(loads, key=lambda load: (-load[0], load[1]))]


def _queued() -> set[str]:
    """The ids of this user's SLURM jobs still pending or running (array tasks as ``<id>_<index>``)."""
    out = subprocess.run(["squeue", "-h", "-r", "-o", "%i"], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def _tail(path: Path, lines: int = 5) -> str:
    try:
        return " | ".join(Path(path).read_text(errors="replace").splitlines()[-lines:]) or "(empty log)"
    except OSError:
        return f"(no log at {path})"


def _env(name: str) -> str:
    return os.environ.get(name, "").strip()
