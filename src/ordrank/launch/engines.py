"""Where jobs run: worker processes on this machine (loky, joblib's), a Ray cluster, or SLURM through
submitit. Each engine takes the jobs, reports which have finished and hands back their results; no
engine writes a table (the driver does), and none is a scheduler of ours: each queues and places the
jobs itself.

Every engine runs *tasks* (:func:`point_tasks`): the short jobs of one sweep point together, as one run
of their learners (the data read and prepared once, :func:`ordrank.launch.work.run_jobs`), every
other job alone, longest first by the expected seconds the driver gives ``submit(jobs, seconds)``.
A job's handle is a :class:`Part` of its task; a task that fails or is lost fails each of its jobs.

- ``local``: a pool of ``workers`` processes (joblib's loky), this machine only, each allowed the cores
  over the workers as BLAS/OpenMP threads (as joblib does); a driver's next sweep reuses it
  (:mod:`ordrank.launch.local`).
- ``ray``: Ray's task API (``ray.remote``, one CPU a task). ``address`` (else ``$RAY_ADDRESS``) names an
  existing cluster; without one a local Ray of ``workers`` CPUs is started. Results travel back
  through Ray's object store: the nodes share no file system with the driver. A task whose node or
  worker process dies is run again by Ray on a live node (up to ``RETRIES`` times).
- ``slurm``: a SLURM job array through submitit. An array task runs one task, or several short ones
  (:func:`array_tasks`: a SLURM task's start costs seconds). submitit pickles each array task and its
  results in ``folder``, which the driver and the compute nodes must share (the one shared path). An
  array task that ends without a result (``scancel``, a dead node, the time limit) has its jobs
  reported failed; started again, the driver runs them again.
"""
from __future__ import annotations

import heapq
import math
import os
import subprocess
import time
from pathlib import Path

import pandas as pd

from ordrank.launch.jobs import Job
from ordrank.launch.work import JobResult, run_jobs

ENGINES = ("local", "ray", "slurm")
RETRIES = 3  # Ray: how often a task lost with its node or worker process is run again
MIN_TASK_SECONDS = 30.0  # jobs expected shorter than this together share a task
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


class JobFailed(Exception):
    """A job that raised, or ended without a result; the message says why."""


class Part:
    """One job of a task: the task's handle (a future, a Ray object, a submitit job) and the job's place
    in the task's list of results."""

    __slots__ = ("task", "index")

    def __init__(self, task, index: int):
        self.task, self.index = task, index


def _cost(task: list[Job], seconds: dict) -> float:
    return sum(float(seconds.get(job, MIN_TASK_SECONDS)) for job in task)


def point_tasks(jobs: list[Job], seconds: dict) -> list[list[Job]]:
    """The jobs as tasks: in each sweep point, its shortest jobs together while their expected seconds
    stay under ``MIN_TASK_SECONDS`` (a job with no expected time counts as that long: alone), every
    other job alone; the tasks longest first (ties in the jobs' order)."""
    points: dict[tuple, list[Job]] = {}
    for job in jobs:
        points.setdefault(job.values, []).append(job)
    tasks = []
    for point in points.values():
        group, total = [], 0.0
        for job in sorted(point, key=lambda job: float(seconds.get(job, MIN_TASK_SECONDS))):
            cost = float(seconds.get(job, MIN_TASK_SECONDS))
            if total + cost < MIN_TASK_SECONDS:
                group.append(job)
                total += cost
            else:
                tasks.append([job])
        if group:
            grouped = set(group)
            tasks.append([job for job in point if job in grouped])  # in the point's order
    order = {job: i for i, job in enumerate(jobs)}
    return sorted(tasks, key=lambda task: (-_cost(task, seconds), order[task[0]]))


def array_tasks(tasks: list[list[Job]], seconds: dict, workers: int) -> list[list[Job]]:
    """``tasks`` packed into SLURM array tasks: as many as the expected seconds hold
    ``MIN_TASK_SECONDS``, yet at least two a worker and at most one a task; each task to the array
    task with the least expected time so far, longest first (the array tasks come out longest first)."""
    cost = [_cost(task, seconds) for task in tasks]
    n_arrays = min(len(tasks), max(math.ceil(sum(cost) / MIN_TASK_SECONDS), 2 * workers))
    loads = [(0.0, i) for i in range(n_arrays)]
    arrays: list[list[Job]] = [[] for _ in range(n_arrays)]
    for k in sorted(range(len(tasks)), key=lambda k: -cost[k]):
        load, i = heapq.heappop(loads)
        arrays[i] += tasks[k]
        heapq.heappush(loads, (load + cost[k], i))
    return [arrays[i] for _, i in sorted(loads, key=lambda load: (-load[0], load[1]))]


def task_parts(handle, task: list[Job]) -> dict:
    """{the :class:`Part` of each job of ``task``: the job}."""
    return {Part(handle, i): job for i, job in enumerate(task)}


def job_failed(error: BaseException) -> JobFailed:
    """The :class:`JobFailed` a task's error fails its jobs with, its message on one line."""
    message = " ".join(str(error).split()) or "(no message)"
    return JobFailed(f"{type(error).__name__}: {message}")


class RayEngine:
    """Ray tasks, one CPU each, on the cluster at ``address`` (else ``$RAY_ADDRESS``, else a local Ray)."""

    name = "ray"

    def __init__(self, workers: int, external_cache: pd.DataFrame | None = None, address: str | None = None):
        import ray

        self.ray = ray
        local = address is None and not os.environ.get("RAY_ADDRESS", "").strip()
        ray.init(address=address, num_cpus=workers if local else None, include_dashboard=False,
                 log_to_driver=False, ignore_reinit_error=True)
        self.workers = int(ray.cluster_resources().get("CPU", workers)) if not local else workers
        self.task = ray.remote(num_cpus=1, max_retries=RETRIES)(run_jobs)
        self.shared = ray.put(external_cache)
        self.parts: dict = {}  # object ref -> the parts of its task

    def submit(self, jobs: list[Job], seconds: dict | None = None) -> dict:
        handles = {}
        for task in point_tasks(jobs, seconds or {}):
            ref = self.task.remote(task, self.shared)
            self.parts[ref] = parts = task_parts(ref, task)
            handles.update(parts)
        return handles

    def ready(self, handles, timeout: float) -> list:
        refs = list(self.parts)
        done, rest = self.ray.wait(refs, num_returns=1, timeout=timeout)
        if done and rest:  # and every other one finished by now
            more, _ = self.ray.wait(rest, num_returns=len(rest), timeout=0)
            done += more
        return [part for ref in done for part in self.parts.pop(ref)]

    def result(self, part: Part) -> JobResult:
        try:
            return self.ray.get(part.task)[part.index]
        except self.ray.exceptions.RayTaskError as error:  # the job raised: its own error
            raise job_failed(error.cause if error.cause is not None else error) from error
        except self.ray.exceptions.RayError as error:  # lost more often than RETRIES, cancelled
            raise job_failed(error) from error

    def cancel(self, handles) -> None:
        for ref in self.parts:
            self.ray.cancel(ref, force=True)

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
        arrays = array_tasks(point_tasks(jobs, seconds or {}), seconds or {}, self.workers)
        with self.executor.batch():
            submitted = [self.executor.submit(run_jobs, array, self.external_cache) for array in arrays]
        return {part: job for handle, array in zip(submitted, arrays)
                for part, job in task_parts(handle, array).items()}

    def ready(self, handles, timeout: float) -> list:
        deadline = time.monotonic() + timeout
        while True:
            queued, ended = _queued(), {}  # one look per array task, not per job
            done = [p for p in handles
                    if ended.setdefault(id(p.task), p.task.paths.result_pickle.exists() or p.task.job_id not in queued)]
            if done or time.monotonic() >= deadline:
                return done
            time.sleep(min(self.POLL, max(0.0, deadline - time.monotonic())))

    def result(self, part: Part) -> JobResult:
        task = part.task
        if not task.paths.result_pickle.exists():
            time.sleep(self.POLL)  # a result written just as the task left the queue
        if not task.paths.result_pickle.exists():
            raise JobFailed(f"SLURM job {task.job_id} ended without a result (cancelled, its node lost or "
                            f"out of time): {_tail(task.paths.stderr)}")
        try:
            return task.result()[part.index]
        except Exception as error:
            raise job_failed(error) from error

    def cancel(self, handles) -> None:  # stopped (Ctrl-C, an error): the submitted tasks are cancelled
        for task in {id(p.task): p.task for p in handles}.values():
            task.cancel(check=False)

    def close(self) -> None:
        pass  # every job has left the queue


def _queued() -> set[str]:
    """The ids of this user's SLURM jobs still pending or running (array tasks as ``<id>_<index>``)."""
    out = subprocess.run(["squeue", "-h", "-r", "-o", "%i"], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def _tail(path: Path, lines: int = 5) -> str:
    try:
        return " | ".join(Path(path).read_text(errors="replace").splitlines()[-lines:]) or "(empty log)"
    except OSError:
        return f"(no log at {path})"
