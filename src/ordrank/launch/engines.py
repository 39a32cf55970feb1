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
- ``slurm``: a SLURM job array through submitit, one array task a job. submitit pickles each job and
  its result in ``folder``, which the driver and the compute nodes must share (the one shared path).
  A job that ends without a result (``scancel``, a dead node, the time limit) is reported failed;
  started again, the driver runs it again.
"""
from __future__ import annotations

import concurrent.futures
import os
import subprocess
import time
from pathlib import Path

import pandas as pd

from ordrank.launch.jobs import Job
from ordrank.launch.work import JobResult, run_job

ENGINES = ("local", "ray", "slurm")
RETRIES = 3  # Ray: how often a task lost with its node or worker process is run again
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


class JobFailed(Exception):
    """A job that raised, or ended without a result; the message says why."""


_SHARED: dict = {}


def _share(peer_cache, threads: int) -> None:
    """A local worker's initializer: the peer cache, once per process, and the BLAS/OpenMP threads it
    may use (the cores over the workers, as joblib's loky backend sets them: no oversubscription)."""
    from threadpoolctl import threadpool_limits

    _SHARED["peer_cache"] = peer_cache
    threadpool_limits(threads)


def _run_shared(job: Job) -> JobResult:
    return run_job(job, _SHARED.get("peer_cache"))


def _failed(error: BaseException) -> JobFailed:
    message = " ".join(str(error).split()) or "(no message)"
    return JobFailed(f"{type(error).__name__}: {message}")


class LocalEngine:
    """``workers`` loky processes on this machine."""

    name = "local"

    def __init__(self, workers: int, peer_cache: pd.DataFrame | None = None):
        from joblib.externals.loky import ProcessPoolExecutor

        self.workers = workers
        threads = max(1, (os.cpu_count() or 1) // workers)
        self.pool = ProcessPoolExecutor(max_workers=workers, initializer=_share, initargs=(peer_cache, threads))

    def submit(self, jobs: list[Job]) -> dict:
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

    def __init__(self, workers: int, peer_cache: pd.DataFrame | None = None, address: str | None = None):
        import ray

        self.ray = ray
        local = address is None and not _env("RAY_ADDRESS")
        ray.init(address=address, num_cpus=workers if local else None, include_dashboard=False,
                 log_to_driver=False, ignore_reinit_error=True)
        self.workers = int(ray.cluster_resources().get("CPU", workers)) if not local else workers
        self.task = ray.remote(num_cpus=1, max_retries=RETRIES)(run_job)
        self.shared = ray.put(peer_cache)

    def submit(self, jobs: list[Job]) -> dict:
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

    def __init__(self, folder: Path, workers: int, peer_cache: pd.DataFrame | None = None,
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
        self.peer_cache = peer_cache

    def submit(self, jobs: list[Job]) -> dict:
        with self.executor.batch():
            submitted = [self.executor.submit(run_job, job, self.peer_cache) for job in jobs]
        return dict(zip(submitted, jobs))

    def ready(self, handles, timeout: float) -> list:
        deadline = time.monotonic() + timeout
        while True:
            queued = _queued()
            done = [h for h in handles if h.paths.result_pickle.exists() or h.job_id not in queued]
            if done or time.monotonic() >= deadline:
                return done
            time.sleep(min(self.POLL, max(0.0, deadline - time.monotonic())))

    def result(self, handle) -> JobResult:
        if not handle.paths.result_pickle.exists():
            time.sleep(self.POLL)  # a result written just as the job left the queue
        if not handle.paths.result_pickle.exists():
            raise JobFailed(f"SLURM job {handle.job_id} ended without a result (cancelled, its node lost or "
                            f"out of time): {_tail(handle.paths.stderr)}")
        try:
            return handle.result()
        except Exception as error:
            raise _failed(error) from error

    def cancel(self, handles) -> None:  # stopped (Ctrl-C, an error): the submitted jobs are cancelled
        for handle in handles:
            handle.cancel(check=False)

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


def _env(name: str) -> str:
    return os.environ.get(name, "").strip()
